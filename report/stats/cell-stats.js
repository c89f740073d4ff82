'use strict'
// Per-cell figures with order-statistic intervals of the median, telemetry medians and the client-bound flag,
// and cells.csv (one row per cell). Used by report/index.js; invalid repeats never count.

const { stringify } = require('csv-stringify/sync')
const { varyingSettings } = require('../data/cells')
const { intervalOfMedian } = require('./intervals')
const { median } = require('../../lib/median')

// Figures that get an interval, per summary format.
const FIGURES = {
  sweep: ['opsPerSec', 'getMean', 'getP99', 'putMean', 'putP99'],
  peak: ['reqPerSec', 'latencyMeanMs', 'latencyP99Ms']
}
const TELEMETRY = ['eldP50Us', 'eldP99Us', 'meanUtilization', 'fairness', 'clientCpuPerReqUs',
  'serverCpuPerReqUs']

/**
 * The non-empty values of a column over a cell's valid repeats.
 * @param {object} cell from groupCells
 * @param {string} column a summary.csv column
 * @returns {Array<number|boolean>}
 */
function validValues (cell, column) {
  return cell.valid.map((r) => r[column]).filter((v) => v !== null && v !== undefined)
}

/**
 * Adds to each cell `ci` (per figure: { median, low, high, confidence } or null; the interval is
 * report/stats/intervals.js intervalOfMedian over the valid repeats), `telemetry` (per column:
 * median or null) and `clientBound` (true when most valid repeats were client-bound, null when
 * no repeat says).
 * @param {object[]} cells from groupCells; changed in place
 * @param {'sweep'|'peak'} format
 * @returns {object[]} the same cells
 */
function summariseCells (cells, format) {
  for (const cell of cells) {
    cell.ci = {}
    for (const figure of FIGURES[format]) {
      const values = validValues(cell, figure)
      const ci = values.length > 0 && intervalOfMedian(values)
      cell.ci[figure] = ci ? { median: ci.estimate, low: ci.low, high: ci.high, confidence: ci.confidence } : null
    }
    cell.telemetry = {}
    for (const column of TELEMETRY) {
      const values = validValues(cell, column)
      cell.telemetry[column] = values.length > 0 ? median(values) : null
    }
    const flags = validValues(cell, 'clientBound')
    cell.clientBound = flags.length === 0 ? null
      : flags.filter(Boolean).length > cell.valid.length / 2
  }
  return cells
}

/**
 * cells.csv: cell, kind, nServers, the load, op (peak), the settings that vary, variant,
 * repeats, validRepeats, FIGURE{Median,Low,High} per figure, then (sweep) telemetry medians
 * and clientBound. Empty fields where a cell has no value.
 * @param {object} results from readResults
 * @param {object[]} cells from summariseCells, A/A cells included
 * @returns {string} the CSV text, with a header row
 */
function cellsCsv (results, cells) {
  const { format, load } = results
  const settings = varyingSettings(results)
  const figures = FIGURES[format]
  const columns = ['cell', 'kind', 'nServers', load, ...(format === 'peak' ? ['op'] : []),
    ...settings, 'variant', 'repeats', 'validRepeats',
    ...figures.flatMap((f) => [`${f}Median`, `${f}Low`, `${f}High`]),
    ...(format === 'sweep' ? [...TELEMETRY, 'clientBound'] : [])]
  const records = cells.map((cell) => {
    const first = cell.rows[0]
    const record = { cell: cell.id, kind: cell.kind, nServers: cell.nServers, [load]: cell.load,
      op: cell.op, variant: cell.aa, repeats: cell.rows.length, validRepeats: cell.valid.length,
      clientBound: cell.clientBound === null ? '' : String(cell.clientBound) }
    for (const c of settings) record[c] = first[c]
    for (const f of figures) {
      const ci = cell.ci[f]
      Object.assign(record, { [`${f}Median`]: round(ci?.median), [`${f}Low`]: round(ci?.low),
        [`${f}High`]: round(ci?.high) })
    }
    for (const c of TELEMETRY) record[c] = round(cell.telemetry[c])
    return columns.map((c) => record[c] ?? '')
  })
  return stringify([columns, ...records])
}

// Six significant digits: enough for any figure here, without float noise in the file.
function round (value) {
  return value === null || value === undefined ? null : Number(value.toPrecision(6))
}

module.exports = { summariseCells, cellsCsv, validValues }
