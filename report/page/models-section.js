'use strict'
// The process models side by side, as a section: throughput, shares and fairness per model, and each
// model over cluster (report/stats/models.js compares them). Used by report/page/page.js.

const { html } = require('../../lib/html-template')
const { verdictOf } = require('../stats/verdicts')
const { sharesByRank } = require('../stats/models')

const LABEL = { cluster: 'cluster', reuseport: 'reusePort', lb: 'HAProxy', pool: 'thread pool' }

const n0 = (x) => Math.round(x).toLocaleString('en-US')

/**
 * The process-models section; '' when only cluster was run.
 * @param {{ models: string[], groups: object[] }} comparison from compareModels
 * @returns {object|string} markup (html``)
 */
function modelsSection ({ models, groups }) {
  if (groups.length === 0) return ''
  const others = models.filter((m) => m !== 'cluster')
  const settings = groups.some((g) => g.settings)
  const modelCells = (cell) => {
    if (!cell) return html`<td class="empty">–</td><td class="empty">–</td><td class="empty">–</td>`
    const ci = cell.ci.opsPerSec
    const shares = sharesByRank(cell)
    return html`<td class="num">${ci ? `${n0(ci.median)} [${n0(ci.low)}–${n0(ci.high)}]` : '–'}</td>
      <td class="num">${shares ? shares.map((s) => s.toFixed(2)).join(' / ') : '–'}</td>
      <td class="num">${cell.telemetry.fairness == null ? '–' : cell.telemetry.fairness.toFixed(3)}</td>`
  }
  const ratioCell = (r, m) => {
    if (!r) return html`<td class="empty">–</td>`
    const verdict = verdictOf(r, LABEL[m], 'cluster')[0]
    return html`<td>${r.estimate.toFixed(2)}× [${r.low.toFixed(2)}–${r.high.toFixed(2)}]<br><span class="verdict">${verdict}</span></td>`
  }
  const haproxyNote = '(single-process servers behind HAProxy, which spreads requests)'
  return html`<section><h2>Process models side by side</h2>
    <p>The same store, process count and load under each process model: <em>cluster</em> (a
    node:cluster primary hands connections to its workers), <em>reusePort</em> (independent
    processes each bind the port with SO_REUSEPORT and the kernel spreads connections; no primary
    in the path), <em>HAProxy</em> ${haproxyNote}, <em>thread pool</em> (one process: its main thread does HTTP, a pool of
    nServers worker threads the sync reads and appends; its one process takes every request). Throughput is the median of
    the valid rounds with its 95% interval; shares are each process's median part of the requests, largest first; fairness is Jain's index (1: even).
    A connection stays with the process that accepted it, so with few client connections the
    shares show how the model spread them.</p>
    <div class="scroll"><table class="models"><thead><tr>${settings && html`<th>settings</th>`}<th>store</th>
    <th>nServers</th><th>nClients</th>${models.map((m) => html`<th>${LABEL[m] ?? m} ops/s [95% CI]</th>
    <th>${LABEL[m] ?? m} shares</th><th>fairness</th>`)}${others.map((m) => html`<th>${LABEL[m] ?? m} / cluster</th>`)}</tr></thead>
    <tbody>${groups.map((g) => html`<tr>${settings && html`<td>${g.settings}</td>`}<td>${g.store}${g.api ? ` (${g.api})` : ''}</td>
      <td class="num">${g.nServers}</td><td class="num">${g.load}</td>${models.map((m) => modelCells(g.byModel[m]))}
      ${others.map((m) => ratioCell(g.ratios[m], m))}</tr>`)}</tbody></table></div></section>`
}

module.exports = { modelsSection }
