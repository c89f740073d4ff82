'use strict'
// The CSV the historic client printed (PUT/GET, Min, Mean, 101% of Mean, Max, in µs; the fourth
// column gives the mean a visible width in a candlestick chart), plus count, percentiles, errors.

const { stringify } = require('csv-stringify/sync')

const COLUMNS = ['PUT/GET', 'Min', 'Mean', '101% of Mean', 'Max', 'Count', 'p50', 'p90', 'p99', 'p99.9', 'Errors']

const round3 = (x) => x === null ? null : Math.round(x * 1000) / 1000

function row (label, s) {
  return [label, s.min, round3(s.mean), round3(s.mean === null ? null : s.mean * 1.01), s.max, s.count, s.p50, s.p90, s.p99, s.p999, s.errors]
}

/**
 * Rows `PUT process N` and `GET process N` for every client process, then `PUT all` and `GET all`
 * from the merged histograms. Empty cells where a row has no successful operation.
 * @param {object} report from buildReport
 * @returns {string} CSV text with a header line
 */
function formatCsv (report) {
  const rows = []
  for (const p of report.processes) {
    rows.push(row(`PUT process ${p.index}`, p.latency.PUT), row(`GET process ${p.index}`, p.latency.GET))
  }
  rows.push(row('PUT all', report.latency.PUT), row('GET all', report.latency.GET))
  return stringify(rows, { header: true, columns: COLUMNS })
}

module.exports = { formatCsv, COLUMNS }
