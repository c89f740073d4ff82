'use strict'
// The process models side by side: at each store, process count and nClients, the cluster and
// reusePort kinds (and any other multi-process model) with throughput, each process's share of
// the requests and Jain's fairness, and each model over cluster. Used by report/page.js.

const { html } = require('./html-template')
const { KINDS, isMultiProcess } = require('../lib/kinds')
const { pairedRatio: ratio } = require('./intervals')
const { verdictOf } = require('./verdicts')

const LABEL = { cluster: 'cluster', reuseport: 'reusePort', lb: 'HAProxy' }

// Each valid repeat's shares, largest first, and the median share at each rank.
function medianShares (cell) {
  const runs = cell.valid.map((r) => String(r.workerShares ?? '').split(';').filter(Boolean).map(Number).sort((a, b) => b - a))
    .filter((s) => s.length > 0)
  if (runs.length === 0) return null
  return runs[0].map((_, i) => {
    const at = runs.map((s) => s[i] ?? 0).sort((a, b) => a - b)
    const mid = at.length >> 1
    return at.length % 2 ? at[mid] : (at[mid - 1] + at[mid]) / 2
  })
}

/**
 * The multi-process cells grouped by store, nServers, nClients and settings, one per model.
 * @param {object[]} cells main cells (no A/A) from summariseCells
 * @returns {{ models: string[], groups: object[] }} groups: { store, api, nServers, load, settings,
 *   byModel: { model → cell }, ratios: { model → ratio over cluster } }; none unless a model
 *   other than cluster was run
 */
function compareModels (cells) {
  const multi = cells.filter((c) => isMultiProcess(c.kind))
  const models = [...new Set(Object.values(KINDS).map((k) => k.model))].filter((m) => multi.some((c) => KINDS[c.kind].model === m))
  if (!models.some((m) => m !== 'cluster')) return { models, groups: [] }
  const groups = new Map()
  for (const cell of multi) {
    const { store, model } = KINDS[cell.kind]
    // An async cell's fs API keeps its own group: callback and promise are not compared.
    const key = [store, cell.api, cell.nServers, cell.load, cell.variant].join('|')
    if (!groups.has(key)) groups.set(key, { store, api: cell.api, nServers: cell.nServers, load: cell.load, settings: cell.variant, byModel: {}, ratios: {} })
    groups.get(key).byModel[model] = cell
  }
  for (const g of groups.values()) {
    const base = g.byModel.cluster
    for (const m of models.filter((m) => m !== 'cluster')) {
      const cell = g.byModel[m]
      g.ratios[m] = base && cell && base.valid.length > 0 && cell.valid.length > 0 ? ratio(cell, base) : null
    }
  }
  const ordered = [...groups.values()].sort((a, b) => a.settings.localeCompare(b.settings) ||
    (a.store === b.store ? 0 : a.store === 'sync' ? -1 : 1) || (a.api ?? '').localeCompare(b.api ?? '') || a.nServers - b.nServers || a.load - b.load)
  return { models, groups: ordered }
}

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
    const shares = medianShares(cell)
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
    in the path), <em>HAProxy</em> ${haproxyNote}. Throughput is the median of the valid rounds with its 95% interval; shares are
    each process's median part of the requests, largest first; fairness is Jain's index (1: even).
    A connection stays with the process that accepted it, so with few client connections the
    shares show how the model spread them.</p>
    <div class="scroll"><table class="models"><thead><tr>${settings && html`<th>settings</th>`}<th>store</th>
    <th>nServers</th><th>nClients</th>${models.map((m) => html`<th>${LABEL[m] ?? m} ops/s [95% CI]</th>
    <th>${LABEL[m] ?? m} shares</th><th>fairness</th>`)}${others.map((m) => html`<th>${LABEL[m] ?? m} / cluster</th>`)}</tr></thead>
    <tbody>${groups.map((g) => html`<tr>${settings && html`<td>${g.settings}</td>`}<td>${g.store}${g.api ? ` (${g.api})` : ''}</td>
      <td class="num">${g.nServers}</td><td class="num">${g.load}</td>${models.map((m) => modelCells(g.byModel[m]))}
      ${others.map((m) => ratioCell(g.ratios[m], m))}</tr>`)}</tbody></table></div></section>`
}

module.exports = { compareModels, modelsSection, medianShares }
