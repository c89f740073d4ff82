'use strict'
// The sweep's headline figures: sync/async and cluster/single throughput ratios taken within each
// round and summarised over the rounds, the A/A noise floor, and a USL fit per cluster kind.
// Used by report/index.js.

const { KINDS, isMultiProcess, kindOf } = require('../lib/kinds')
const { fitUsl } = require('../lib/usl')
const { validValues } = require('./cell-stats')
const { pairedRatio, noiseBand } = require('./intervals')

const ratio = (a, b) => pairedRatio(a, b, 'opsPerSec')

/**
 * Sync vs async at each nServers and nClients (single process, then each process model and
 * size), and each multi-process kind against its single-process kind, each paired by round.
 * @param {object[]} cells main cells (no A/A) from summariseCells
 * @returns {{ kinds: object[], speedups: object[] }} each { settings, load, nServers, api, model,
 *   cluster, kind?, ratio } where ratio is sync/async (kinds, api: the async side's) or
 *   multi-process/single (speedups, api: both sides'); cluster: the entry is of a multi-process model
 */
function compareKinds (cells) {
  const like = (a, kind, nServers) => (c) => c.variant === a.variant && c.load === a.load &&
    c.kind === kind && c.nServers === nServers
  const kinds = []
  const speedups = []
  for (const cell of cells) {
    const at = { settings: cell.variant, load: cell.load, nServers: cell.nServers, api: cell.api }
    const { store, model } = KINDS[cell.kind]
    const multi = isMultiProcess(cell.kind)
    const asyncKind = store === 'sync' && kindOf('async', model)
    // One sync cell against each async API measured beside it.
    for (const other of asyncKind ? cells.filter(like(cell, asyncKind, cell.nServers)) : []) {
      kinds.push({ ...at, api: other.api, model, cluster: multi, ratio: ratio(cell, other) })
    }
    const single = multi && cells.find((c) => like(cell, kindOf(store, 'single'), 1)(c) && c.api === cell.api)
    if (single) speedups.push({ ...at, model, cluster: true, kind: cell.kind, ratio: ratio(cell, single) })
  }
  return { kinds, speedups }
}

/**
 * The A/A pairs: cells of one configuration run under two labels, A over B, round by round.
 * @param {object[]} cells the A/A cells (aa set) from summariseCells
 * @returns {{ a: object, b: object, ratio: object|null }[]} b is null when a label is missing
 */
function noiseFloor (cells) {
  const groups = new Map()
  for (const cell of cells) {
    const key = [cell.kind, cell.nServers, cell.load, cell.variant].join('|')
    if (!groups.has(key)) groups.set(key, [])
    groups.get(key).push(cell)
  }
  return [...groups.values()].map((group) => {
    const [a, b = null] = group.sort((x, y) => x.aa.localeCompare(y.aa))
    return { a, b, ratio: b && ratio(a, b) }
  })
}

/**
 * A USL fit of throughput against nServers per multi-process kind, nClients and settings, over every
 * valid repeat; fit is null when the repeats cover fewer than 3 values of nServers.
 * @param {object[]} cells main cells from summariseCells
 * @returns {{ settings, load, kind, points: { n, x }[], levels: number, fit: object|null }[]}
 */
function fitScaling (cells) {
  const groups = new Map()
  for (const cell of cells.filter((c) => isMultiProcess(c.kind))) {
    const key = [cell.variant, cell.load, cell.kind, cell.api].join('|')
    if (!groups.has(key)) groups.set(key, { settings: cell.variant, load: cell.load, kind: cell.kind, api: cell.api, points: [] })
    for (const x of validValues(cell, 'opsPerSec')) groups.get(key).points.push({ n: cell.nServers, x })
  }
  return [...groups.values()].map((group) => {
    const levels = new Set(group.points.map((p) => p.n)).size
    return { ...group, levels, fit: levels >= 3 ? fitUsl(group.points) : null }
  }).sort((a, b) => a.load - b.load)
}

/**
 * The noise band of a folder's A/A pairs (report/intervals.js noiseBand), null without one.
 * @param {{ ratio: object|null }[]} pairs from noiseFloor
 * @returns {{ low: number, high: number } | null}
 */
function noiseBandOf (pairs) {
  return noiseBand(pairs.map((p) => p.ratio))
}

module.exports = { compareKinds, noiseFloor, noiseBandOf, fitScaling }
