'use strict'
// From a machine's fingerprint (lib/machine/fingerprint.js) to the sync/async answer on the page cache, in one process
// and in a cluster of 2: how a folder measured on one machine (its fingerprint, its profile, its rows) would come out on
// another whose fingerprint is known.
//
// Each cell's time per request, as measured where the folder was made: the client's CPU (C), the server's CPU (S), and
// its event loops' busy time (L = processes × loop utilization ÷ ops/s). The profile splits the server's time into the
// categories of profile/categories.js, and each category is paid at one of the fingerprint's costs: JS and V8 at the JS
// work's, node's HTTP and the kernel's network at the loopback HTTP round trip's, the kernel's file system and the rest
// of its entries at a system call's, the kernel's wake-ups at a thread wake-up's (its CPU where both fingerprints have
// it, its time otherwise: the time also holds an idle CPU's waking, which a server does not pay in CPU), the libuv
// pool's own work at a pool trip's; the client's time at the HTTP round trip's. On another machine each category's
// time is scaled by its cost there over its cost here. A cell then serves min(processes ÷ L, cores ÷ (C + S)) requests a second: its event loops
// or the cores, whichever is full first; the ratio of sync's to async's is the prediction.

const fs = require('node:fs')
const path = require('node:path')
const { median } = require('../../lib/median')
const { LABELS } = require('../../lib/machine/fingerprint')
const { readResults } = require('../data/read')
const { readProfile } = require('../data/profile')

// Which fingerprint cost each profile category is paid at; the profiler's own samples are left out.
const COST_OF = {
  app: 'jsWorkUs',
  express: 'jsWorkUs',
  fs: 'jsWorkUs',
  callbacks: 'jsWorkUs',
  malloc: 'jsWorkUs',
  gc: 'jsWorkUs',
  engine: 'jsWorkUs',
  other: 'jsWorkUs',
  primary: 'jsWorkUs',
  balancer: 'jsWorkUs',
  http: 'httpRoundTripUs',
  'kernel-net': 'httpRoundTripUs',
  'kernel-fs': 'systemCallUs',
  'kernel-other': 'systemCallUs',
  'kernel-wake': 'wakeUpUs',
  pool: 'poolTripUs'
}
const COSTS = ['jsWorkUs', 'httpRoundTripUs', 'systemCallUs', 'wakeUpUs', 'poolTripUs']

// The two comparisons the model answers: sync against async on the page cache, in 1 process and in a cluster of 2.
const PAIRS = [
  { id: 'process', label: 'sync vs async, 1 process', kinds: ['sync', 'async'], nServers: 1 },
  { id: 'cluster', label: 'sync vs async, cluster of 2', kinds: ['sync-cluster', 'async-cluster'], nServers: 2 }
]

/**
 * One cell's inputs: its time per request (µs) and the share of its server's time paid at each cost.
 * @param {object[]} rows the cell's valid summary rows (report/data/read.js)
 * @param {object|null} profiled profile.json's cells[id]
 * @returns {{ processes: number, ops: number, clientUs: number, serverUs: number, loopUs: number,
 *   shares: Record<string, number> }|null} null without rows, CPU figures or profiled time
 */
function cellInputs (rows, profiled) {
  const of = (key) => median(rows.map((r) => r[key]).filter(Number.isFinite))
  const [ops, clientUs, serverUs, busy] = ['opsPerSec', 'clientCpuPerReqUs', 'serverCpuPerReqUs', 'meanUtilization'].map(of)
  const time = Object.fromEntries(COSTS.map((c) => [c, 0]))
  for (const round of profiled?.rounds ?? []) {
    if (!(round.requests > 0) || round.problem) continue
    for (const [category, us] of Object.entries(round.categories ?? {})) if (COST_OF[category]) time[COST_OF[category]] += us
  }
  const total = COSTS.reduce((a, c) => a + time[c], 0)
  if (!(ops > 0) || !(clientUs > 0) || !(serverUs > 0) || !(busy > 0) || !(total > 0)) return null
  const processes = rows[0].nServers
  return {
    processes,
    ops,
    clientUs,
    serverUs,
    loopUs: processes * busy * 1e6 / ops,
    shares: Object.fromEntries(COSTS.map((c) => [c, time[c] / total]))
  }
}

/**
 * A cell's requests a second on a machine whose costs are `scale` times the folder's (by cost) and which has `cores`.
 * @param {ReturnType<typeof cellInputs>} cell
 * @param {Record<string, number>} scale each cost there over its cost where the folder was made
 * @param {number} cores
 * @returns {{ ops: number, bound: 'loop'|'cores', serverUs: number, clientUs: number, loopUs: number }}
 */
function predictCell (cell, scale, cores) {
  const f = COSTS.reduce((a, c) => a + cell.shares[c] * scale[c], 0)
  const serverUs = cell.serverUs * f
  const loopUs = cell.loopUs * f
  const clientUs = cell.clientUs * scale.httpRoundTripUs
  const loop = cell.processes * 1e6 / loopUs
  const byCores = cores * 1e6 / (clientUs + serverUs)
  return { ops: Math.min(loop, byCores), bound: loop <= byCores ? 'loop' : 'cores', serverUs, clientUs, loopUs }
}

/**
 * A results folder as the model reads it.
 * @param {string} dir
 * @returns {{ env: object, rows: object[], profile: object|null, verdicts: object|null }}
 * @throws {Error} naming what is not there or malformed
 */
function readModelFolder (dir) {
  const results = readResults(dir)
  const verdictsFile = path.join(dir, 'verdicts.json')
  const verdicts = fs.existsSync(verdictsFile) ? JSON.parse(fs.readFileSync(verdictsFile, 'utf8')) : null
  return { env: results.env, rows: results.rows, profile: readProfile(dir), verdicts }
}

/**
 * The model's inputs from a results folder: its fingerprint, and per pair its two cells.
 * @param {{ env: object, rows: object[], profile: object|null, verdicts: object|null }} folder env.json, the typed summary
 *   rows, profile.json and verdicts.json
 * @returns {{ fingerprint: object, node: string, freshFiles: boolean, runtime: string, pairs: object[] }} node: the Node that
 *   measured the fingerprint; freshFiles: every round started from the files as created;
 *   runtime: the servers' (node-v20.20.2); pairs: { id, label, ids, cells: [sync, async] (cellInputs), measured: { estimate, low,
 *   high }|null }, for each pair the folder has
 * @throws {Error} one line: no fingerprint, no profile, or no pair with both cells profiled
 */
function modelInputs ({ env, rows, profile, verdicts }) {
  if (!env.fingerprint?.costs) throw new Error('its env.json has no fingerprint (made before fingerprints were recorded): run it again')
  if (!profile?.cells) throw new Error('it was not profiled: the model needs the profile of quick --profile (or sweep --profile)')
  const measured = measuredPairs({ rows, verdicts })
  const pairs = []
  for (const pair of PAIRS) {
    const ids = cellsOf(rows, pair)
    const cells = ids?.map((id) => cellInputs(rows.filter((r) => r.cell === id && r.valid), profile.cells[id]))
    if (cells && cells.every(Boolean)) pairs.push({ id: pair.id, label: pair.label, ids, cells, measured: measured.get(pair.id) ?? null })
  }
  if (pairs.length === 0) throw new Error('it has no profiled pair of sync and async cells on the page cache (1 process or a cluster of 2)')
  const runtime = rows.find((r) => r.cell === pairs[0].ids[0]).runtime
  return { fingerprint: env.fingerprint, node: env.node, freshFiles: env.options?.freshFiles === true, runtime, pairs }
}

// A pair's sync and async cells on the page cache (a plain folder, no delay, no revision, not the A/A copy), or null.
function cellsOf (rows, { kinds, nServers }) {
  const ids = kinds.map((kind) => rows.find((r) => r.valid && r.kind === kind && r.nServers === nServers && r.ioDelay === 'off' &&
    r.storage === 'cache' && !r.cell.endsWith('-B') && (!r.rev || r.rev === 'tree'))?.cell)
  return ids.every(Boolean) ? ids : null
}

/**
 * What a folder measured for each pair the model answers, profiled or not: its throughput verdict's ratio and interval.
 * @param {{ rows: object[], verdicts: object|null }} folder
 * @returns {Map<string, { estimate: number, low: number, high: number }>} by pair id
 */
function measuredPairs ({ rows, verdicts }) {
  const out = new Map()
  for (const pair of PAIRS) {
    const ids = cellsOf(rows, pair)
    const v = ids && verdicts?.comparisons?.find((c) => c.a === ids[0] && c.b === ids[1] && c.metric === 'opsPerSec')
    if (v) out.set(pair.id, { estimate: v.estimate, low: v.low, high: v.high })
  }
  return out
}

/**
 * Which wake-up cost two fingerprints are compared at: the CPU spent on one where both have it (since 2026-11-30), else its time.
 * @returns {'wakeUpCpuUs'|'wakeUpUs'}
 */
function wakeUpCost (here, there) {
  return here.costs.wakeUpCpuUs && there.costs.wakeUpCpuUs ? 'wakeUpCpuUs' : 'wakeUpUs'
}

/**
 * Each pair's sync/async ratio on a machine with this fingerprint.
 * @param {ReturnType<typeof modelInputs>} inputs
 * @param {{ cores: number, costs: Record<string, { estimate: number }> }} there the other machine's fingerprint (or a what-if)
 * @returns {{ id: string, label: string, ratio: number, bounds: string[], measured: object|null }[]} bounds: sync's and async's
 */
function predict (inputs, there) {
  const here = inputs.fingerprint
  const key = (c) => c === 'wakeUpUs' ? wakeUpCost(here, there) : c
  const scale = Object.fromEntries(COSTS.map((c) => [c, there.costs[key(c)].estimate / here.costs[key(c)].estimate]))
  return inputs.pairs.map((pair) => {
    const [sync, async] = pair.cells.map((cell) => predictCell(cell, scale, there.cores))
    return { id: pair.id, label: pair.label, ratio: sync.ops / async.ops, bounds: [sync.bound, async.bound], measured: pair.measured }
  })
}

/**
 * What would move the answer: each pair's ratio where one cost is twice the folder machine's. Not the cores alone: a machine
 * with other cores has other costs too (a wake-up on 1 core cost 0.18x one on 2 here), which its fingerprint measures.
 * @param {ReturnType<typeof modelInputs>} inputs
 * @returns {{ what: string, ratios: Record<string, number> }[]} ratios by pair id
 */
function movers (inputs) {
  const fp = inputs.fingerprint
  return COSTS.map((c) => {
    const there = { cores: fp.cores, costs: { ...fp.costs, [c]: { estimate: fp.costs[c].estimate * 2 } } }
    if (c === 'wakeUpUs' && fp.costs.wakeUpCpuUs) there.costs.wakeUpCpuUs = { estimate: fp.costs.wakeUpCpuUs.estimate * 2 }
    const what = `${LABELS[c]} twice as costly (${(fp.costs[c].estimate * 2).toPrecision(3)} µs)`
    return { what, ratios: Object.fromEntries(predict(inputs, there).map((p) => [p.id, p.ratio])) }
  })
}

module.exports = { readModelFolder, modelInputs, measuredPairs, predict, movers, wakeUpCost }
