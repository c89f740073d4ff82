'use strict'
// The report's tables: medians per cell, and every summary.csv row with invalid ones marked.
// Used by report/page/page.js.

const { spread } = require('../data/cells')
const { html } = require('../../lib/html-template')
const { CLIENT_BOUND } = require('./sections')
const { SETTLED_NOTE } = require('../../lib/median')

const OVERSUBSCRIBED = html` <span class="over" title="oversubscribed: more servers than cores">†</span>`

// [heading, summary column, scale, decimals] of the medians table, per summary format; the
// first is the throughput, shown with its interval.
const MEDIANS = {
  sweep: [['ops/s [95% CI]', 'opsPerSec', 1, 0], ['total time (s)', 'wallTimeMs', 1e-3, 2],
    ['GET mean (µs)', 'getMean', 1, 0], ['GET p99 (µs)', 'getP99', 1, 0],
    ['PUT mean (µs)', 'putMean', 1, 0], ['PUT p99 (µs)', 'putP99', 1, 0]],
  peak: [['req/s [95% CI]', 'reqPerSec', 1, 0], ['latency mean (ms)', 'latencyMeanMs', 1, 2],
    ['latency p99 (ms)', 'latencyP99Ms', 1, 2]]
}

// Medians of the server telemetry, shown when the folder has the columns.
const TELEMETRY = [['loop utilization', 'meanUtilization', 1, 2], ['loop delay p99 (µs)', 'eldP99Us', 1, 0],
  ['fairness', 'fairness', 1, 3], ['client CPU/req (µs)', 'clientCpuPerReqUs', 1, 0],
  ['server CPU/req (µs)', 'serverCpuPerReqUs', 1, 0]]

/**
 * The medians table: one row per cell, figures are medians of the valid repeats, throughput
 * with the order-statistic interval of its median; ⚠ marks a client-bound cell.
 * @param {object} results from readResults
 * @param {object[]} cells from summariseCells
 * @returns {object} markup (html``)
 */
function tableOfMedians (results, cells) {
  const telemetry = results.columns.includes('meanUtilization') ? TELEMETRY : []
  const [throughput, ...figures] = [...MEDIANS[results.format], ...telemetry]
  const peak = results.format === 'peak'
  const variant = cells.some((c) => c.variant)
  const row = (cell) => html`<tr${cell.valid.length < cell.rows.length && html` class="partial"`}>
    <td>${cell.id}${cell.clientBound && CLIENT_BOUND}</td><td>${cell.kind}</td>
    <td class="num">${cell.nServers}${cell.oversubscribed && OVERSUBSCRIBED}</td>
    ${peak && html`<td>${cell.op}</td>`}<td class="num">${cell.load}</td>
    ${variant && html`<td>${cell.variant}</td>`}
    <td class="num">${formatInterval(cell.ci[throughput[1]])}</td>
    ${figures.map(([, column, scale, decimals]) =>
      html`<td class="num">${formatMedian(spread(cell, column), scale, decimals)}</td>`)}
    <td class="num">${cell.valid.length} / ${cell.rows.length}</td></tr>`
  // An interleaved run stops measuring a settled cell: its medians cover fewer, earlier rounds.
  const caption = new Set(cells.map((c) => c.rows.length)).size > 1 &&
    html`<caption>${SETTLED_NOTE}</caption>`
  return html`<table class="medians">${caption}<thead><tr><th>cell</th><th>kind</th><th>nServers</th>
    ${peak && html`<th>op</th>`}<th>${results.load}</th>${variant && html`<th>settings</th>`}
    ${[throughput, ...figures].map(([heading]) => html`<th>${heading}</th>`)}<th>valid repeats</th>
    </tr></thead><tbody>${cells.map(row)}</tbody></table>`
}

// "1,234 [1,180–1,301]"
function formatInterval (ci) {
  if (!ci) return '–'
  const n = (x) => Math.round(x).toLocaleString('en-US')
  return `${n(ci.median)} [${n(ci.low)}–${n(ci.high)}]`
}

function formatMedian (s, scale, decimals) {
  if (!s) return '–'
  return (s.median * scale).toLocaleString('en-US',
    { minimumFractionDigits: decimals, maximumFractionDigits: decimals })
}

/**
 * Every row of summary.csv, columns as in the file; invalid rows are highlighted.
 * @returns {object} markup (html``)
 */
const SUMMARY_ROWS = 200 // a long interleaved sweep has thousands of rows: the page shows this many

function summaryTable (results) {
  const { columns, rows } = results
  const cell = (value) => typeof value === 'number'
    ? html`<td class="num">${Number.isInteger(value) ? value : value.toFixed(2)}</td>`
    : html`<td>${String(value ?? '')}</td>`
  const tr = (row) => html`<tr${!row.valid && html` class="invalid" title="${row.reason}"`}>
    ${columns.map((c) => cell(row[c]))}</tr>`
  // Every invalid row is shown; valid ones fill the rest, in file order.
  const invalid = rows.filter((r) => !r.valid)
  const shown = rows.length <= SUMMARY_ROWS ? rows
    : rows.filter((r, i) => !r.valid || i < SUMMARY_ROWS - invalid.length)
  const caption = shown.length < rows.length &&
    html`<caption>${shown.length} of ${rows.length} rows: every invalid one and the first valid ones; all are in summary.csv</caption>`
  return html`<table class="summary">${caption}<thead><tr>${columns.map((c) => html`<th>${c}</th>`)}</tr>
    </thead><tbody>${shown.map(tr)}</tbody></table>`
}

module.exports = { tableOfMedians, summaryTable }
