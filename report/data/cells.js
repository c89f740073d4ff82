'use strict'
// Groups summary rows into cells and summarises each cell's valid repeats (median, min, max).
// Used by the report's charts and tables; invalid repeats never enter a figure.

const { KINDS } = require('./read')
const { CELL_KEYS } = require('../../lib/results/dimensions')
const { median } = require('../../lib/median')

/**
 * The settings columns (uvThreadpoolSize, schedPolicy, ...) that take more than one value. An
 * empty value is a setting that means nothing for its cell (balance for a kind without HAProxy):
 * one value besides it is not a variation, so the cells it is moot for chart beside the others.
 * @param {{ rows: object[], variants: string[] }} results from readResults
 * @returns {string[]}
 */
function varyingSettings ({ rows, variants }) {
  return variants.filter((c) => new Set(rows.map((r) => r[c]).filter((v) => v !== '' && v !== null)).size > 1)
}

/**
 * Groups rows into cells (one per cell id, and per op in a peak summary), sorted by kind,
 * nServers, load and op. A cell's `variant` names the other knobs that vary across the folder;
 * (a setting a cell has no value for is left out); `api` is an async cell's fs API (lib/results/dimensions.js CELL_KEYS) when the
 * folder records it; `aa` is the A/A label ('A', 'B') of a noise-floor cell, '' for every other cell.
 * @param {{ rows: object[], load: string, variants: string[] }} results from readResults
 * @returns {object[]} cells: { id, kind, nServers, load, op, variant, api, aa, oversubscribed, rows, valid }
 */
function groupCells (results) {
  const { rows, load } = results
  const varying = varyingSettings(results)
  const cells = new Map()
  for (const row of rows) {
    const key = row.op === undefined ? row.cell : `${row.cell} ${row.op}`
    if (!cells.has(key)) {
      cells.set(key, { id: row.cell, kind: row.kind, nServers: row.nServers, load: row[load],
        op: row.op, variant: varying.filter((c) => row[c] !== null && row[c] !== '').map((c) => `${c}=${row[c]}`).join(', '),
        ...Object.fromEntries(Object.entries(CELL_KEYS).map(([key, column]) => [key, row[column] || ''])), aa: row.variant || '',
        oversubscribed: row.oversubscribed, rows: [], valid: [] })
    }
    const cell = cells.get(key)
    cell.rows.push(row)
    if (row.valid) cell.valid.push(row)
  }
  return [...cells.values()].sort((a, b) => kindRank(a.kind) - kindRank(b.kind) ||
    a.nServers - b.nServers || a.load - b.load || String(a.op).localeCompare(String(b.op)))
}

function kindRank (kind) {
  return KINDS.indexOf(kind)
}

/**
 * The median, min and max of a column over a cell's valid repeats, skipping empty values.
 * @returns {{ median: number, min: number, max: number } | null} null when there is no value
 */
function spread (cell, column) {
  const values = cell.valid.map((r) => r[column]).filter((v) => v !== null)
  if (values.length === 0) return null
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) }
}

/**
 * Splits cells by variant, keeping first-seen order.
 * @returns {{ label: string, cells: object[] }[]}
 */
function splitVariants (cells) {
  const groups = new Map()
  for (const cell of cells) {
    if (!groups.has(cell.variant)) groups.set(cell.variant, { label: cell.variant, cells: [] })
    groups.get(cell.variant).cells.push(cell)
  }
  return [...groups.values()]
}

module.exports = { groupCells, varyingSettings, spread, splitVariants }
