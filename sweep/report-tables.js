'use strict'
// The report's tables: medians per cell, and every summary.csv row with invalid ones marked.
// Used by sweep/report-html.js.

const { spread } = require('./report-cells')
const { html } = require('./html-template')

const OVERSUBSCRIBED = html` <span class="over" title="oversubscribed: more servers than cores">†</span>`

// [heading, summary column, scale, decimals] of the medians table, per summary format.
const MEDIANS = {
  sweep: [['ops/s', 'opsPerSec', 1, 0], ['total time (s)', 'wallTimeMs', 1e-3, 2],
    ['GET mean (µs)', 'getMean', 1, 0], ['GET p99 (µs)', 'getP99', 1, 0],
    ['PUT mean (µs)', 'putMean', 1, 0], ['PUT p99 (µs)', 'putP99', 1, 0]],
  peak: [['req/s', 'reqPerSec', 1, 0], ['latency mean (ms)', 'latencyMeanMs', 1, 2],
    ['latency p99 (ms)', 'latencyP99Ms', 1, 2]]
}

/**
 * The medians table: one row per cell, figures are medians of the valid repeats.
 * @returns {object} markup (html``)
 */
function medianTable (results, cells) {
  const figures = MEDIANS[results.format]
  const peak = results.format === 'peak'
  const variant = cells.some((c) => c.variant)
  const row = (cell) => html`<tr${cell.valid.length < cell.rows.length && html` class="partial"`}>
    <td>${cell.id}</td><td>${cell.kind}</td>
    <td class="num">${cell.nServers}${cell.oversubscribed && OVERSUBSCRIBED}</td>
    ${peak && html`<td>${cell.op}</td>`}<td class="num">${cell.load}</td>
    ${variant && html`<td>${cell.variant}</td>`}
    ${figures.map(([, column, scale, decimals]) =>
      html`<td class="num">${formatMedian(spread(cell, column), scale, decimals)}</td>`)}
    <td class="num">${cell.valid.length} / ${cell.rows.length}</td></tr>`
  return html`<table class="medians"><thead><tr><th>cell</th><th>kind</th><th>nServers</th>
    ${peak && html`<th>op</th>`}<th>${results.load}</th>${variant && html`<th>variant</th>`}
    ${figures.map(([heading]) => html`<th>${heading}</th>`)}<th>valid repeats</th>
    </tr></thead><tbody>${cells.map(row)}</tbody></table>`
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
function summaryTable (results) {
  const { columns, rows } = results
  const cell = (value) => typeof value === 'number'
    ? html`<td class="num">${Number.isInteger(value) ? value : value.toFixed(2)}</td>`
    : html`<td>${String(value ?? '')}</td>`
  const tr = (row) => html`<tr${!row.valid && html` class="invalid" title="${row.reason}"`}>
    ${columns.map((c) => cell(row[c]))}</tr>`
  return html`<table class="summary"><thead><tr>${columns.map((c) => html`<th>${c}</th>`)}</tr>
    </thead><tbody>${rows.map(tr)}</tbody></table>`
}

module.exports = { medianTable, summaryTable }
