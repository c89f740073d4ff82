'use strict'
// How precise a run's headline comparisons are so far: the sweep asks after every round, with the
// rows it has written (report/data/read.js runRows), whether each interval is narrow enough to decide
// (report/stats/intervals.js isPrecise: its width alone, never whether a difference is significant), to
// stop adding rounds, and which cells still have a comparison to narrow.

const { groupCells } = require('../data/cells')
const { headlineComparisons } = require('./comparisons')
const { isPrecise } = require('./intervals')

/**
 * @param {{ rows: object[], load: string, variants: string[] }} results typed rows (report/data/read.js runRows or readResults)
 * @param {number} margin
 * @returns {{ precise: boolean, summary: string, open: string[], needed: (id: string) => boolean }} open: the
 *   labels still too wide; needed: whether a cell is in one of them, or in no comparison at all
 */
function precision (results, margin) {
  let entries
  try {
    entries = headlineComparisons(groupCells(results), { margin })
  } catch (err) {
    return { precise: false, summary: `intervals unknown (${err.message})`, open: [], needed: () => true }
  }
  const wide = entries.filter((e) => !isPrecise(e.ratio, margin))
  const open = wide.map((e) => e.label)
  const compared = new Set(entries.flatMap((e) => [e.a, e.b]))
  const unsure = new Set(wide.flatMap((e) => [e.a, e.b]))
  const widest = entries.filter((e) => e.ratio && !e.ratio.few)
    .map((e) => e.ratio.high / e.ratio.low - 1)
    .reduce((a, b) => Math.max(a, b), 0)
  const summary = entries.length === 0 ? 'no comparison yet'
    : `${entries.length - open.length} of ${entries.length} intervals narrow enough to decide ` +
      `(under ${margin * 100}% wide; the widest ${(widest * 100).toFixed(1)}%)`
  return { precise: entries.length > 0 && open.length === 0, summary, open, needed: (id) => unsure.has(id) || !compared.has(id) }
}

module.exports = { precision }
