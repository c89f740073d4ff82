'use strict'
// The sweep's headline figures: sync/async and cluster/single throughput ratios with bootstrap
// intervals, the A/A noise floor, and a USL fit per cluster kind. Used by sweep/report.js.

const { bootstrapRatio } = require('../lib/bootstrap')
const { fitUsl } = require('../lib/usl')
const { validValues } = require('./report-stats')

const SEED = 1
const PAIRS = [['sync', 'async'], ['sync-cluster', 'async-cluster']]

// The throughput ratio a/b, median over median of their valid repeats, with a 95% bootstrap
// interval, or null. few: a side has one valid repeat, so the interval is a point and says nothing.
function ratio (a, b) {
  const x = validValues(a, 'opsPerSec')
  const y = validValues(b, 'opsPerSec')
  if (x.length === 0 || y.length === 0) return null
  return { ...bootstrapRatio(x, y, { seed: SEED }), few: x.length < 2 || y.length < 2, a, b }
}

/**
 * Sync vs async at each nServers and nClients (single process, then each cluster size), and
 * each cluster kind against its single-process kind.
 * @param {object[]} cells main cells (no A/A) from summariseCells
 * @returns {{ kinds: object[], speedups: object[] }} each { settings, load, nServers, api, cluster,
 *   kind?, ratio } where ratio is sync/async (kinds, api: the async side's) or cluster/single
 *   (speedups, api: both sides')
 */
function compareKinds (cells) {
  const like = (a, kind, nServers) => (c) => c.variant === a.variant && c.load === a.load &&
    c.kind === kind && c.nServers === nServers
  const kinds = []
  const speedups = []
  for (const cell of cells) {
    const at = { settings: cell.variant, load: cell.load, nServers: cell.nServers, api: cell.api }
    const pair = PAIRS.find(([syncKind]) => syncKind === cell.kind)
    // One sync cell against each async API measured beside it.
    for (const other of pair ? cells.filter(like(cell, pair[1], cell.nServers)) : []) {
      kinds.push({ ...at, api: other.api, cluster: cell.kind.endsWith('-cluster'), ratio: ratio(cell, other) })
    }
    const single = cell.kind.endsWith('-cluster') &&
      cells.find((c) => like(cell, cell.kind.replace('-cluster', ''), 1)(c) && c.api === cell.api)
    if (single) speedups.push({ ...at, cluster: true, kind: cell.kind, ratio: ratio(cell, single) })
  }
  return { kinds, speedups }
}

/**
 * The A/A pairs: cells of one configuration run under two labels, A over B.
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
 * A USL fit of throughput against nServers per cluster kind, nClients and settings, over every
 * valid repeat; fit is null when the repeats cover fewer than 3 values of nServers.
 * @param {object[]} cells main cells from summariseCells
 * @returns {{ settings, load, kind, points: { n, x }[], levels: number, fit: object|null }[]}
 */
function fitScaling (cells) {
  const groups = new Map()
  for (const cell of cells.filter((c) => c.kind.endsWith('-cluster'))) {
    const key = [cell.variant, cell.load, cell.kind, cell.api].join('|')
    if (!groups.has(key)) groups.set(key, { settings: cell.variant, load: cell.load, kind: cell.kind, api: cell.api, points: [] })
    for (const x of validValues(cell, 'opsPerSec')) groups.get(key).points.push({ n: cell.nServers, x })
  }
  return [...groups.values()].map((group) => {
    const levels = new Set(group.points.map((p) => p.n)).size
    return { ...group, levels, fit: levels >= 3 ? fitUsl(group.points) : null }
  }).sort((a, b) => a.load - b.load)
}

module.exports = { compareKinds, noiseFloor, fitScaling }
