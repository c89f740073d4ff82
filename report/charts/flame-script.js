'use strict'
// The browser side of report/charts/flame.js, inlined into each page by its source: draws the embedded
// frame tree as positioned divs (root at the bottom) with hover details, click-to-zoom and search.

/**
 * A value for people: 4 significant digits, whole numbers from 1000 up, a sign when asked.
 * Runs in Node (the page's total line) and, inlined, in the page.
 * @param {number} value
 * @param {boolean} [signed] prefix "+" to a non-negative value
 * @returns {string}
 */
function formatValue (value, signed) {
  const text = Math.abs(value) >= 1000 ? value.toFixed(0) : String(Number(value.toPrecision(4)))
  return signed && value >= 0 ? `+${text}` : text
}

/**
 * The page script; flame.js inlines `(${flameScript})(${formatValue})`, so it may use nothing but
 * its argument and the DOM. Reads the tree from <script id="flame-data">.
 * @param {(value: number, signed?: boolean) => string} formatValue
 */
function flameScript (formatValue) {
  /* global document, window */
  const data = JSON.parse(document.getElementById('flame-data').textContent)
  const [chart, details, matches, search] = ['flame', 'details', 'matches', 'search'].map((id) => document.getElementById(id))
  const { unit, labels, differential } = data
  const ROW = 18
  const CHAR = 6.7 // px per character of the 11px monospace font
  let maxDepth = 0
  const frames = []
  ;(function link (node, parent, depth) {
    node.parent = parent
    node.depth = depth
    frames.push(node)
    maxDepth = Math.max(maxDepth, depth)
    for (const child of node.c) link(child, node, depth + 1)
  })(data.tree, null, 0)
  chart.style.height = `${(maxDepth + 1) * ROW}px`
  let zoomed = data.tree
  let pattern = null

  const share = (value, total) => (total > 0 ? `${(100 * value / total).toFixed(1)}%` : '–')
  function describe (node) {
    if (!differential) return `${node.n}: ${formatValue(node.v)} ${unit} (${share(node.v, data.total)} of total)`
    const change = node.b > 0 ? ` (${formatValue(100 * (node.v - node.b) / node.b, true)}%)` : ''
    return `${node.n}: ${labels.a} ${formatValue(node.v)} ${unit} (${share(node.v, data.total)} of total), ` +
      `${labels.b} ${formatValue(node.b)} ${unit} (${share(node.b, data.baseTotal)}), difference ${formatValue(node.v - node.b, true)} ${unit}${change}`
  }

  // Plain: a warm colour from a stable hash of the name (FNV-1a). Differential: red where it grew, blue where it
  // shrank, deeper the larger the relative change; grey when the two sides agree within 1% of the frame.
  function colour (node) {
    if (!differential) {
      let h = 2166136261
      for (let i = 0; i < node.n.length; i++) h = Math.imul(h ^ node.n.charCodeAt(i), 16777619)
      const part = (shift) => ((h >>> shift) & 1023) / 1023
      return `rgb(${205 + Math.round(50 * part(20))}, ${Math.round(230 * part(0))}, ${Math.round(55 * part(10))})`
    }
    const delta = node.v - node.b
    if (node.w === 0 || Math.abs(delta) <= 0.01 * node.w) return 'rgb(221, 221, 221)'
    const c = Math.round(230 - 200 * Math.sqrt(Math.abs(delta) / Math.max(node.v, node.b)))
    return delta > 0 ? `rgb(255, ${c}, ${c})` : `rgb(${c}, ${c}, 255)`
  }
  const ink = (background) => (/^rgb\(\d+, (\d+)/.exec(background)[1] < 110 ? '#fff' : '#000') // readable on deep red and blue

  function label (name, width) {
    const fit = Math.floor((width - 6) / CHAR)
    if (fit < 3) return ''
    return name.length <= fit ? name : `${name.slice(0, fit - 2)}..`
  }

  function place (parent, node, x, width) {
    const el = document.createElement('div')
    el.className = pattern && pattern.test(node.n) ? 'frame match' : 'frame'
    el.dataset.name = node.n
    const top = (maxDepth - node.depth) * ROW
    const background = colour(node)
    Object.assign(el.style, { left: `${x}px`, width: `${width}px`, top: `${top}px`, height: `${ROW - 1}px`, background, color: ink(background) })
    el.textContent = label(node.n, width)
    el.addEventListener('mouseenter', () => { details.textContent = describe(node) })
    el.addEventListener('click', () => { zoomed = node; draw() })
    parent.appendChild(el)
  }

  // The zoomed frame spans the width, its ancestors too; frames under ~0.5 px are left out with their children.
  function draw () {
    const width = chart.clientWidth
    const scale = zoomed.w > 0 ? width / zoomed.w : 0
    const fragment = document.createDocumentFragment()
    for (let node = zoomed.parent; node; node = node.parent) place(fragment, node, 0, width)
    ;(function layout (node, x) {
      const w = node.w * scale
      if (w < 0.5) return
      place(fragment, node, x, w)
      for (const child of node.c) {
        layout(child, x)
        x += child.w * scale
      }
    })(zoomed, 0)
    chart.textContent = ''
    chart.appendChild(fragment)
  }

  function compile (text) {
    const m = /^\/(.+)\/([a-z]*)$/.exec(text)
    if (m) return new RegExp(m[1], m[2].replace(/[gy]/g, ''))
    return { test: (name) => name.includes(text) }
  }

  // Counts every matching frame; sums only the outermost ones, so nested matches are not counted twice.
  function report () {
    const hits = frames.filter((node) => pattern.test(node.n))
    const outer = hits.filter((node) => { for (let p = node.parent; p; p = p.parent) if (pattern.test(p.n)) return false; return true })
    const sum = (key) => outer.reduce((s, node) => s + node[key], 0)
    const count = hits.length === 1 ? '1 frame matches' : `${hits.length} frames match`
    const a = `${formatValue(sum('v'))} ${unit} (${share(sum('v'), data.total)} of total)`
    const b = `${formatValue(sum('b'))} ${unit} (${share(sum('b'), data.baseTotal)}) in ${labels.b}`
    matches.textContent = differential ? `${count}, ${a} in ${labels.a}, ${b}` : `${count}, ${a}`
  }

  search.addEventListener('input', () => {
    pattern = null
    matches.textContent = ''
    if (search.value !== '') {
      try {
        pattern = compile(search.value)
        report()
      } catch {
        matches.textContent = 'not a valid regular expression'
      }
    }
    draw()
  })
  document.getElementById('reset').addEventListener('click', () => { zoomed = data.tree; draw() })
  window.addEventListener('resize', draw)
  draw()
}

module.exports = { flameScript, formatValue }
