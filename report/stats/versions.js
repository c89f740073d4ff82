'use strict'
// Node versions side by side, for a results folder run with --node=A,B,...: per version its V8,
// libuv and release-line status, each kind's throughput and server CPU per request, sync over
// async in throughput and in CPU per request with their verdicts, and which verdicts hold on every
// supported line. Used by report/index.js.

const { KINDS, kindOf, parseVersion } = require('../../lib/kinds')
const { lineStatus } = require('../../lib/node-lines')
const { pairedRatio: ratio, judge } = require('./intervals')

const nodeOf = (cell) => cell.rows[0].node
// A cell's other settings: its variant label without the Node version.
const restOf = (cell) => cell.variant.split(', ').filter((s) => s && !s.startsWith('node=')).join(', ')
// The sync/async comparisons: throughput sync over async, and server CPU per request async over
// sync (CPU time is less moved than throughput by other work on a shared machine).
const MEASURES = [
  { column: 'opsPerSec', name: 'throughput', swap: false, above: 'sync faster', below: 'async faster' },
  { column: 'serverCpuPerReqUs', name: 'server CPU per request', swap: true, above: 'sync cheaper', below: 'async cheaper' }
]
const older = (a, b) => { const [x, y] = [parseVersion(a), parseVersion(b)]; return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] }

/**
 * A ratio's verdict as the version table words it: `above` when faster (report/stats/intervals.js judge),
 * `below` when slower, else the verdict itself; clear when faster or slower.
 * @returns {{ text: string, clear: boolean }}
 */
function versionVerdict (r, above, below) {
  const verdict = judge(r)
  const text = { faster: above, slower: below, same: 'the same within ±5%', undecided: 'undecided',
    few: r ? 'one round: no interval' : 'no valid round' }[verdict]
  return { text, clear: verdict === 'faster' || verdict === 'slower' }
}

/**
 * Compares the Node versions of a sweep folder.
 * @param {object} results from readResults
 * @param {object[]} cells main cells (no A/A) from summariseCells
 * @returns {null | { versions: object[], groups: object[], findings: object[] }} null with fewer
 *   than two versions. versions: { node, v8, uv, status, supported }, oldest first; groups: one
 *   per nServers, nClients and other settings: { nServers, load, rest, kinds, byVersion: { node →
 *   { kind → cell } } }; findings: each sync/async comparison (throughput, then CPU per request:
 *   `measure` from MEASURES) with its verdict per version and `holds` (the same clear verdict on
 *   every supported line, or on all when none is supported)
 */
function compareVersions (results, cells) {
  const names = [...new Set(cells.map(nodeOf).filter(Boolean))].sort(older)
  if (names.length < 2) return null
  const versions = names.map((node) => {
    const row = results.rows.find((r) => r.node === node)
    const status = lineStatus(parseVersion(node)[0], results.env.startedAt ?? new Date())
    return { node, v8: row.v8, uv: row.uv, status, supported: /LTS$/.test(status) }
  })
  const groups = new Map()
  for (const cell of cells) {
    const key = [cell.nServers, cell.load, restOf(cell)].join('|')
    if (!groups.has(key)) groups.set(key, { nServers: cell.nServers, load: cell.load, rest: restOf(cell), kinds: new Set(), byVersion: {} })
    const group = groups.get(key)
    group.kinds.add(cell.kind)
    group.byVersion[nodeOf(cell)] = { ...group.byVersion[nodeOf(cell)], [cell.kind]: cell }
  }
  const ordered = [...groups.values()].sort((a, b) => a.nServers - b.nServers || a.load - b.load)
  for (const g of ordered) g.kinds = Object.keys(KINDS).filter((k) => g.kinds.has(k))
  const judged = versions.filter((v) => v.supported).length > 0 ? versions.filter((v) => v.supported) : versions
  const findings = ordered.flatMap((g) => pairsOf(g).flatMap(([a, b]) => MEASURES.map((measure) => {
    const per = versions.map((v) => {
      const [x, y] = [g.byVersion[v.node]?.[a], g.byVersion[v.node]?.[b]]
      const r = x && y ? (measure.swap ? ratio(y, x, measure.column) : ratio(x, y, measure.column)) : null
      return { node: v.node, ratio: r, verdict: versionVerdict(r, measure.above, measure.below) }
    })
    const counted = per.filter((p) => judged.some((v) => v.node === p.node))
    const texts = new Set(counted.map((p) => p.verdict.text))
    const holds = texts.size === 1 && counted[0].verdict.clear
    return { group: g, a, b, measure, per, holds, verdict: holds ? counted[0].verdict.text : null, over: judged.map((v) => v.node) }
  })))
  return { versions, groups: ordered, findings }
}

// The sync/async kind pairs a group has, one per process model.
function pairsOf (group) {
  return ['single', 'cluster', 'reuseport'].map((m) => [kindOf('sync', m), kindOf('async', m)])
    .filter(([a, b]) => group.kinds.includes(a) && group.kinds.includes(b))
}

/**
 * A version's throughput (or CPU per request) over the oldest version's, for a kind of a group.
 * @param {string} [column] opsPerSec or serverCpuPerReqUs
 * @returns {object|null} ratio from report-compare.js, null when a side has no valid repeat
 */
function overOldest (group, versions, node, kind, column = 'opsPerSec') {
  const [cell, base] = [group.byVersion[node]?.[kind], group.byVersion[versions[0].node]?.[kind]]
  return cell && base && cell.valid.length > 0 && base.valid.length > 0 ? ratio(cell, base, column) : null
}

module.exports = { compareVersions, overOldest, versionVerdict, pairsOf }
