'use strict'
// Runtimes side by side, for a results folder run with --node=A,B,... or --runtime=node,bun,deno (the versions and
// runtimes commands): per runtime its engine, libuv and release-line status (Node's), each kind's throughput and
// server CPU per request, sync over async (and a sync pool over its rivals) in throughput and in CPU per request with
// their verdicts, each runtime over the base (the oldest Node), and which verdicts hold on every supported line.
// Used by report/index.js.

const { KINDS, kindOf, isMultiProcess, parseVersion } = require('../../lib/kinds')
const { lineStatus } = require('../../lib/install/node-lines')
const { splitId, runtimeLabel } = require('../../lib/install/runtime-specs')
const { pairedRatio: ratio, judge } = require('./intervals')

const runtimeOf = (cell) => cell.rows[0].runtime
// A cell's other settings: its variant label without the runtime.
const restOf = (cell) => cell.variant.split(', ').filter((s) => s && !s.startsWith('runtime=')).join(', ')
// The comparisons: throughput a over b, and server CPU per request b over a (CPU time is less moved than
// throughput by other work on a shared machine). Worded by store when the pair differs by store alone.
const MEASURES = [
  { column: 'opsPerSec', name: 'throughput', swap: false, word: 'faster' },
  { column: 'serverCpuPerReqUs', name: 'server CPU per request', swap: true, word: 'cheaper' }
]
// Node versions oldest first, then Bun, then Deno, each oldest first.
const ORDER = ['node', 'bun', 'deno']
function older (a, b) {
  const [x, y] = [splitId(a), splitId(b)]
  const [p, q] = [parseVersion(x.version), parseVersion(y.version)]
  return ORDER.indexOf(x.name) - ORDER.indexOf(y.name) || p[0] - q[0] || p[1] - q[1] || p[2] - q[2]
}
// What a side of a pair is called in a verdict: its store when the pair differs by store alone, else its kind.
function sideNames (a, b) {
  return KINDS[a].model === KINDS[b].model ? [KINDS[a].store, KINDS[b].store] : [a, b]
}

/**
 * A ratio's verdict as the runtime table words it: `above` when faster (report/stats/intervals.js judge),
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
 * Compares the runtimes of a sweep folder.
 * @param {object} results from readResults
 * @param {object[]} cells main cells (no A/A) from summariseCells
 * @returns {null | { versions: object[], base: string, groups: object[], findings: object[] }} null with fewer than two
 *   runtimes. versions: { id, label, engine, uv, status, supported }, Node oldest first, then Bun and Deno; base: the id the
 *   others are divided by (the oldest Node, else the first); groups: one per nServers of the multi-process kinds, nClients
 *   and other settings (the one-process kinds, a sync pool's too, in each of its setting's):
 *   { nServers, load, rest, kinds, byVersion: { id → { kind → cell } } };
 *   findings: each pair (pairsOf) per measure with its verdict per runtime and `holds` (the same clear verdict on every
 *   supported Node line and every other runtime, or on all when none is supported)
 */
function compareVersions (results, cells) {
  const ids = [...new Set(cells.map(runtimeOf).filter(Boolean))].sort(older)
  if (ids.length < 2) return null
  const at = results.env.startedAt ?? new Date()
  const versions = ids.map((id) => {
    const row = results.rows.find((r) => r.runtime === id)
    const { name, version } = splitId(id)
    const status = name === 'node' ? lineStatus(parseVersion(version)[0], at) : ''
    const engine = name === 'bun' ? 'JavaScriptCore' : `V8 ${row.v8}`
    const supported = name !== 'node' || /LTS$/.test(status)
    return { id, name, label: runtimeLabel(id), version, v8: row.v8 || '–', engine, uv: row.uv || '–', status, supported }
  })
  // A group per process count and setting. Where a setting has a sync pool (one process, libuv's count of threads),
  // the one-process kinds sit in each group of its multi-process counts: the pool meets the clusters, and async in
  // one process, its rival, meets the pool.
  const setting = (cell) => [cell.load, restOf(cell)].join('|')
  const pooled = new Set(cells.filter((c) => KINDS[c.kind].model === 'pool').map(setting))
  const counts = new Map()
  for (const cell of cells) {
    if (pooled.has(setting(cell)) && isMultiProcess(cell.kind)) counts.set(setting(cell), new Set([...counts.get(setting(cell)) ?? [], cell.nServers]))
  }
  const groups = new Map()
  for (const cell of cells) {
    for (const n of isMultiProcess(cell.kind) ? [cell.nServers] : [...counts.get(setting(cell)) ?? [1]]) {
      const key = [n, setting(cell)].join('|')
      if (!groups.has(key)) groups.set(key, { nServers: n, load: cell.load, rest: restOf(cell), kinds: new Set(), byVersion: {} })
      const group = groups.get(key)
      group.kinds.add(cell.kind)
      group.byVersion[runtimeOf(cell)] = { ...group.byVersion[runtimeOf(cell)], [cell.kind]: cell }
    }
  }
  const ordered = [...groups.values()].sort((a, b) => a.nServers - b.nServers || a.load - b.load)
  for (const g of ordered) g.kinds = Object.keys(KINDS).filter((k) => g.kinds.has(k))
  const judged = versions.some((v) => v.supported) ? versions.filter((v) => v.supported) : versions
  const findings = ordered.flatMap((g) => pairsOf(g).flatMap(([a, b]) => MEASURES.map((measure) => {
    const [nameA, nameB] = sideNames(a, b)
    const [above, below] = [`${nameA} ${measure.word}`, `${nameB} ${measure.word}`] // a's side is above 1 in either measure
    const per = versions.map((v) => {
      const [x, y] = [g.byVersion[v.id]?.[a], g.byVersion[v.id]?.[b]]
      const r = x && y ? (measure.swap ? ratio(y, x, measure.column) : ratio(x, y, measure.column)) : null
      return { id: v.id, label: v.label, ratio: r, verdict: versionVerdict(r, above, below) }
    })
    const counted = per.filter((p) => judged.some((v) => v.id === p.id))
    const texts = new Set(counted.map((p) => p.verdict.text))
    const holds = texts.size === 1 && counted[0].verdict.clear
    const verdict = holds ? counted[0].verdict.text : null
    return { group: g, a, b, names: [nameA, nameB], measure, per, holds, verdict, over: judged.map((v) => v.label) }
  })))
  const base = (versions.find((v) => v.id.startsWith('node-')) ?? versions[0]).id
  return { versions, base, groups: ordered, findings }
}

// The pairs a group has: sync over async per process model, and a sync pool over a sync cluster and over async.
function pairsOf (group) {
  const pairs = [...['single', 'cluster', 'reuseport'].map((m) => [kindOf('sync', m), kindOf('async', m)]),
    [kindOf('sync', 'pool'), kindOf('sync', 'cluster')], [kindOf('sync', 'pool'), kindOf('async', 'single')]]
  return pairs.filter(([a, b]) => a && b && group.kinds.includes(a) && group.kinds.includes(b))
}

/**
 * A runtime's throughput (or CPU per request) over the base's, for a kind of a group.
 * @param {string} [column] opsPerSec or serverCpuPerReqUs
 * @returns {object|null} ratio from report-compare.js, null when a side has no valid repeat
 */
function overBase (group, base, id, kind, column = 'opsPerSec') {
  const [cell, other] = [group.byVersion[id]?.[kind], group.byVersion[base]?.[kind]]
  return cell && other && cell.valid.length > 0 && other.valid.length > 0 ? ratio(cell, other, column) : null
}

module.exports = { compareVersions, overBase, versionVerdict, pairsOf }
