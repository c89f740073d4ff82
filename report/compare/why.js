'use strict'
// compare A B's "Why" tables: for each cell both folders profiled (a run with --profile), each category's median µs per
// request in A and in B and B − A, in Markdown and HTML. Used by report/compare/compare.js and format.js.

const { html } = require('../../lib/html-template')
const { cellCosts, formatUs, signed } = require('../stats/why')

/**
 * A folder's profiled cells, by the id compare matches cells on.
 * @param {object|null} profile from report/data/profile.js readProfile
 * @param {(id: string) => string} rename the folder's cell id as compare matches it
 * @returns {{ mode: string, categories: object[], cells: Map<string, object> }|null} cells: report/stats/why.js cellCosts
 */
function profiledCells (profile, rename) {
  if (!profile) return null
  const cells = new Map(Object.entries(profile.cells).map(([id, cell]) => [rename(id), cellCosts(id, cell, profile.categories)]))
  return { mode: profile.mode, categories: profile.categories, cells }
}

/**
 * The why tables of two folders; null unless both have a profile.
 * @param {object|null} a from profiledCells
 * @param {object|null} b from profiledCells
 * @returns {{ modes: string[], cells: { id: string, rows: { id: string, label: string, a: number|null, b: number|null,
 *   change: number|null }[] }[] }|null} rows: the categories either shows, then sampled and measured server CPU
 */
function whyCompare (a, b) {
  if (!a || !b) return null
  const categories = [...a.categories, ...b.categories.filter((c) => !a.categories.some((x) => x.id === c.id))]
  const ids = [...a.cells.keys()].filter((id) => b.cells.has(id))
  const row = (id, label, x, y) => ({ id, label, a: x?.estimate ?? null, b: y?.estimate ?? null,
    change: x && y ? y.estimate - x.estimate : null })
  return {
    modes: [a.mode, b.mode],
    cells: ids.map((id) => {
      const [x, y] = [a.cells.get(id), b.cells.get(id)]
      const rows = categories.map((c) => row(c.id, c.label, x.categories[c.id], y.categories[c.id]))
        .filter((r) => r.a > 0 || r.b > 0)
      return { id, rows: [...rows, row('sampled', 'the categories summed', x.sampled, y.sampled),
        row('measured', 'server CPU, measured', x.serverCpu, y.serverCpu)] }
    })
  }
}

const us = (x) => (x === null ? '–' : formatUs(x))
const change = (x) => (x === null ? '–' : signed(x))
const modesNote = ([a, b]) => (a === b ? `Both profiled with ${a}.`
  : `A was profiled with ${a}, B with ${b}: V8's profiler sees neither the thread pool nor the kernel, so their categories do not compare.`)
const INTRO = 'Each figure is a category\'s µs of server time per request in the profiled windows, the median of the folder\'s rounds.'

/**
 * @param {object|null} why from whyCompare
 * @returns {string[]} Markdown lines; none without a why
 */
function whyMarkdown (why) {
  if (!why) return []
  return ['', `## Why: µs per request by category (${why.cells.length} cells profiled in both)`, '', `${INTRO} ${modesNote(why.modes)}`,
    ...why.cells.flatMap((cell) => ['', `### ${cell.id}`, '', '| category | A | B | B − A |', '|---|---|---|---|',
      ...cell.rows.map((r) => `| ${r.id} | ${us(r.a)} | ${us(r.b)} | ${change(r.change)} |`)])]
}

/**
 * @param {object|null} why from whyCompare
 * @returns {object|string} markup (html``); '' without a why
 */
function whyHtml (why) {
  if (!why) return ''
  return html`<h2>Why: µs per request by category (${why.cells.length} cells profiled in both)</h2>
<p class="note">${INTRO} ${modesNote(why.modes)}</p>
${why.cells.map((cell) => html`<h3>${cell.id}</h3><table class="why"><thead><tr><th>category</th><th>A</th><th>B</th><th>B − A</th></tr></thead>
<tbody>${cell.rows.map((r) => html`<tr><td title="${r.label}">${r.id}</td><td>${us(r.a)}</td><td>${us(r.b)}</td><td>${change(r.change)}</td></tr>`)}
</tbody></table>`)}`
}

module.exports = { profiledCells, whyCompare, whyMarkdown, whyHtml }
