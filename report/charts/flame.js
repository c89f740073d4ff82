'use strict'
// Interactive flame graphs from folded stacks ("frame;frame;leaf VALUE", Brendan Gregg's format), and the
// per-request differential of two of them, as self-contained HTML pages that open offline.

const { html, raw } = require('../../lib/html-template')
const { flameScript, formatValue } = require('./flame-script')

const NUMBER = /^\d+(\.\d+)?([eE][+-]?\d+)?$/
const ROOT = 'all'

/**
 * Parses folded stacks: one `frame;frame;...;leaf VALUE` a line, root first, VALUE a non-negative number.
 * @param {string} text the folded file
 * @returns {Map<string, number>} stack → value, duplicate stacks summed; blank lines ignored
 * @throws {Error} naming the line number of a malformed line
 */
function parseFolded (text) {
  const stacks = new Map()
  String(text).split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return
    const m = /^(.*\S)\s+(\S+)$/.exec(line.trim())
    if (!m || !NUMBER.test(m[2])) {
      throw new Error(`folded stacks, line ${i + 1}: expected "frame;...;leaf VALUE" with VALUE a non-negative number, got "${line.slice(0, 80)}"`)
    }
    stacks.set(m[1], (stacks.get(m[1]) ?? 0) + Number(m[2]))
  })
  return stacks
}

/**
 * Scales a profile to one request, so that two runs serving different numbers of requests compare.
 * @param {Map<string, number>} stacks stack → value over the whole profile
 * @param {number} requests how many requests the profile covers, > 0
 * @returns {Map<string, number>} a new map, stack → value per request
 */
function perRequest (stacks, requests) {
  if (!(typeof requests === 'number' && Number.isFinite(requests) && requests > 0)) {
    throw new RangeError(`requests must be a number > 0, got ${requests}`)
  }
  return new Map([...stacks].map(([stack, value]) => [stack, value / requests]))
}

/**
 * Pairs two per-request profiles stack by stack. Totals are deliberately not equalised (unlike
 * difffolded.pl -n): a side that does more work per request must show it.
 * @param {Map<string, number>} a stack → value per request
 * @param {Map<string, number>} b stack → value per request
 * @returns {{ stack: string, a: number, b: number }[]} the union of stacks, a missing one as 0
 */
function diffStacks (a, b) {
  const stacks = new Set([...a.keys(), ...b.keys()])
  return [...stacks].map((stack) => ({ stack, a: a.get(stack) ?? 0, b: b.get(stack) ?? 0 }))
}

// The frame tree: n name, v inclusive value, b inclusive base value (differential only),
// w width = the max of the two sides summed over the stacks under the frame, c children sorted by name.
function frameTree (pairs, differential) {
  const root = { n: ROOT, v: 0, w: 0, c: new Map() }
  if (differential) root.b = 0
  for (const { stack, a, b } of pairs) {
    let node = root
    const add = (n) => { n.v += a; n.w += Math.max(a, b); if (differential) n.b += b }
    add(node)
    for (const name of stack.split(';')) {
      if (!node.c.has(name)) node.c.set(name, differential ? { n: name, v: 0, b: 0, w: 0, c: new Map() } : { n: name, v: 0, w: 0, c: new Map() })
      node = node.c.get(name)
      add(node)
    }
  }
  const finish = (node) => ({ ...node, c: [...node.c.values()].sort((x, y) => (x.n < y.n ? -1 : x.n > y.n ? 1 : 0)).map(finish) })
  return finish(root)
}

// JSON that cannot end the <script> it sits in: no "<" (so no "</script" or "<!--") and no line separators.
function scriptJson (value) {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}

const STYLE = `
body { font: 13px system-ui, -apple-system, Segoe UI, Roboto, sans-serif; margin: 16px; color: #222; }
h1 { font-size: 18px; margin: 0 0 4px; } p { margin: 4px 0; } .sub { color: #555; }
.controls { margin: 8px 0; display: flex; gap: 8px; align-items: center; } #search { width: 260px; }
#flame { position: relative; width: 100%; overflow: hidden; }
.frame { position: absolute; box-sizing: border-box; border: 1px solid #fff; border-radius: 2px; padding: 0 3px;
  font: 11px/16px ui-monospace, Menlo, Consolas, monospace; white-space: nowrap; overflow: hidden; cursor: pointer; color: #000; }
.frame:hover { border-color: #000; } .frame.match { background: #c060e0 !important; }
#details { min-height: 1.4em; font-family: ui-monospace, Menlo, Consolas, monospace; } .legend span { padding: 0 6px; }`

/**
 * A complete, self-contained HTML page with an interactive flame graph (hover, click to zoom, search).
 * With `base` it is a differential graph: widths are max(stacks, base) summed as a tree, red where
 * stacks > base, blue where less, grey within 1% of the frame.
 * @param {object} options
 * @param {string} options.title the heading
 * @param {string} [options.subtitle] a line under it
 * @param {Map<string, number>} options.stacks stack → value per request
 * @param {Map<string, number>} [options.base] the other side of a comparison, stack → value per request
 * @param {string} [options.unit] the unit of every value
 * @param {{ a: string, b: string }} [options.labels] names of stacks (a) and base (b)
 * @returns {string} the HTML document
 */
function flameHtml ({ title, subtitle, stacks, base, unit = 'µs per request', labels = { a: 'a', b: 'b' } }) {
  const differential = base !== undefined
  const tree = frameTree(differential ? diffStacks(stacks, base) : diffStacks(stacks, new Map()), differential)
  const data = { unit, differential, labels, total: tree.v, baseTotal: differential ? tree.b : undefined, tree }
  const total = differential
    ? `total ${labels.a} ${formatValue(tree.v)} ${unit}, ${labels.b} ${formatValue(tree.b)} ${unit} (difference ${formatValue(tree.v - tree.b, true)})`
    : `total ${formatValue(tree.v)} ${unit}`
  const legend = differential && html`<p class="legend"><span style="background:#f88">${labels.a} more than ${labels.b}</span>
<span style="background:#88f">${labels.a} less</span><span style="background:#ddd">the same within 1%</span> · width: the larger of the two</p>`
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${raw(STYLE)}</style></head>
<body>
<h1>${title}</h1>
${subtitle ? html`<p class="sub">${subtitle}</p>` : ''}
<p id="total">${total}</p>
${legend}
<div class="controls"><input id="search" type="search" placeholder="search: substring or /regex/" aria-label="search frames">
<button id="reset" type="button">reset zoom</button><span id="matches"></span></div>
<div id="flame" role="img" aria-label="${title}"></div>
<p id="details">hover a frame for its value; click to zoom</p>
<script type="application/json" id="flame-data">${raw(scriptJson(data))}</script>
<script>(${raw(String(flameScript))})(${raw(String(formatValue))})</script>
</body></html>
`.text
}

module.exports = { parseFolded, perRequest, diffStacks, flameHtml }
