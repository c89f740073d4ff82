'use strict'
// The compact table printed on stderr at the end of a run: per cell, how many repeats were valid,
// the median of each figure over the valid ones and marks (footnoted); then each invalid run's reason.

const { median, intervalOfMedian, coverage, SETTLED_NOTE } = require('../../lib/median')

/**
 * @param {object[]} rows summary rows
 * @param {Array<{ title: string, key: string, scale?: number, digits?: number, interval?: boolean }>} columns figures to show;
 *   interval: the median's order-statistic interval over the valid repeats beside it, as the report gives it, with what it covers
 * @param {Array<{ key: string, symbol: string, note: string }>} [marks] a cell's id gets `symbol`
 *   when `key` is true in most (more than half) of its valid repeats, as in the report; the note
 *   follows the table if any cell has it
 * @returns {string} the table, one line per cell, ending in a newline
 */
function formatTable (rows, columns, marks = []) {
  const byCell = new Map()
  for (const row of rows) byCell.set(row.cell, [...(byCell.get(row.cell) || []), row])
  const ids = [...byCell.keys()].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
  const lines = [['cell', 'valid', ...columns.map((c) => c.title)]]
  const used = new Set()
  for (const id of ids) {
    const valid = byCell.get(id).filter((r) => r.valid)
    const marked = marks.filter((m) => valid.filter((r) => r[m.key] === true).length > valid.length / 2)
    for (const m of marked) used.add(m)
    const symbols = marked.map((m) => m.symbol).join('')
    lines.push([symbols ? `${id} ${symbols}` : id, `${valid.length}/${byCell.get(id).length}`, ...columns.map(({ key, scale = 1, digits = 0, interval }) => {
      const values = valid.map((r) => r[key]).filter(Number.isFinite)
      const m = median(values)
      if (m === null) return '-'
      if (!interval) return (m * scale).toFixed(digits)
      const over = intervalOfMedian(values)
      const bracket = over.n > 1 ? ` [${(over.low * scale).toFixed(digits)}–${(over.high * scale).toFixed(digits)}]` : ''
      return `${(m * scale).toFixed(digits)}${bracket} (${coverage(over)})`
    })])
  }
  const widths = lines[0].map((_, i) => Math.max(...lines.map((l) => l[i].length)))
  const text = lines.map((l) => l.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  '))
  const invalid = rows.filter((r) => !r.valid).map((r) => `invalid ${r.cell} r${r.repeat}: ${r.reason}`)
  const notes = marks.filter((m) => used.has(m)).map((m) => `${m.symbol} ${m.note}`)
  if (new Set([...byCell.values()].map((r) => r.length)).size > 1) notes.push(SETTLED_NOTE)
  return [`medians of the valid rounds (${rows.length} rows)`, ...text, ...notes, ...invalid].join('\n') + '\n'
}

module.exports = { formatTable }
