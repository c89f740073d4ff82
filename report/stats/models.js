'use strict'
// The process models compared: at each store, process count and nClients, the cluster and reusePort
// kinds (and any other multi-process model), each process's median share of the requests, and each
// model over cluster. Used by report/index.js (analysis); report/page/models-section.js shows it.

const { KINDS, isMultiProcess } = require('../../lib/kinds')
const { pairedRatio: ratio } = require('./intervals')
const { median } = require('../../lib/median')

// Each valid repeat's shares, largest first, and the median share at each rank.
function sharesByRank (cell) {
  const runs = cell.valid.map((r) => String(r.workerShares ?? '').split(';').filter(Boolean).map(Number).sort((a, b) => b - a))
    .filter((s) => s.length > 0)
  if (runs.length === 0) return null
  return runs[0].map((_, i) => median(runs.map((s) => s[i] ?? 0)))
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

module.exports = { compareModels, sharesByRank }
