'use strict'
// Where the processes ran, compared: a balancer (HAProxy, the -lb kinds) against node:cluster with its
// cost, split cores against shared ones, and what a round trip does to the sync/async ratio, each
// paired by round. Used by report/index.js (analysis); report/page/placement-section.js words and shows it.

const { KINDS, kindOf } = require('../../lib/kinds')
const { pairedRatio } = require('./intervals')
const { median } = require('../../lib/median')
const { validValues } = require('./cell-stats')

// A cell's settings (its variant, "cpuset=split, rtt=1") as a map, and without one of them.
const settingsOf = (cell) => new Map(cell.variant ? cell.variant.split(', ').map((kv) => kv.split('=')) : [])
const without = (cell, name) => cell.variant.split(', ').filter((kv) => kv && !kv.startsWith(`${name}=`)).join(', ')
const same = (a, b) => a.nServers === b.nServers && a.load === b.load
const typicalOf = (cell, column) => {
  const values = validValues(cell, column).filter(Number.isFinite)
  return values.length ? median(values) : null
}

/**
 * The three comparisons of a folder's cells; each list is empty when the folder lacks its cells.
 * @param {object[]} cells main cells (no A/A) from summariseCells
 * @returns {{ balancers: object[], cores: object[], rtts: object[] }} balancers: each -lb cell with
 *   its cluster twin and ratio (lb/cluster ops/s); cores: split over shared per cell; rtts:
 *   sync/async at each round trip
 */
function comparePlacement (cells) {
  const balancers = cells.filter((c) => KINDS[c.kind].model === 'lb').map((lb) => {
    const { store } = KINDS[lb.kind]
    const rest = without(lb, 'balance')
    const cluster = cells.find((c) => c.kind === kindOf(store, 'cluster') && same(c, lb) && c.api === lb.api && c.variant === rest)
    return { lb, cluster, balance: settingsOf(lb).get('balance') ?? lb.valid[0]?.balance ?? '', ratio: cluster ? pairedRatio(lb, cluster) : null,
      balancerUs: typicalOf(lb, 'balancerCpuPerReqUs') }
  })
  const cores = cells.filter((c) => settingsOf(c).get('cpuset') === 'split').map((split) => {
    const shared = cells.find((c) => c.kind === split.kind && same(c, split) && c.api === split.api &&
      settingsOf(c).get('cpuset') === 'shared' && without(c, 'cpuset') === without(split, 'cpuset'))
    return shared && { kind: split.kind, nServers: split.nServers, load: split.load, settings: without(split, 'cpuset'), split, shared,
      ratio: pairedRatio(split, shared) }
  }).filter(Boolean)
  const rtts = cells.filter((c) => KINDS[c.kind].store === 'sync' && settingsOf(c).has('rtt')).flatMap((s) => {
    const other = kindOf('async', KINDS[s.kind].model)
    return cells.filter((a) => a.kind === other && same(a, s) && a.variant === s.variant).map((a) => ({
      model: KINDS[s.kind].model, nServers: s.nServers, load: s.load, api: a.api, rtt: Number(settingsOf(s).get('rtt')),
      settings: without(s, 'rtt'), ratio: pairedRatio(s, a)
    }))
  }).sort((x, y) => x.settings.localeCompare(y.settings) || x.model.localeCompare(y.model) || x.nServers - y.nServers || x.load - y.load || x.rtt - y.rtt)
  return { balancers, cores, rtts }
}

module.exports = { comparePlacement }
