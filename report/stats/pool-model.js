'use strict'
// The pool model of a folder whose cells vary libuv's pool size (threadpool): per async cell, the throughput the pool
// allows, threads ÷ (pool calls per request × the time one call holds a thread), the cores', cores ÷ CPU per request,
// and the event loops', processes ÷ loop time per request; the smallest of the three beside what was measured. Each cell
// is predicted from the costs its reference measured (the same cell at libuv's default pool), so a size's prediction is
// not its own measurement; per pool comparison, what the model expected against what the verdict says. Inputs: the
// profiled round's pool calls per request and its pool threads' work (report/stats/why.js; Little's law gives the time a
// call holds a thread under load), the threadpool probes where a folder has no such sample (env.json: a GET's file calls at
// queue depth 1 on each storage), the cells' CPU per request and event-loop use.

const { KINDS, isMultiProcess } = require('../../lib/kinds')
const { median } = require('../../lib/median')

const { LIBUV_DEFAULT_THREADPOOL: DEFAULT_POOL } = require('../../lib/results/environment')
const LIMITS = ['pool', 'cores', 'loop']

const cpuCount = (list) => (list ? String(list).split(',').filter(Boolean).length : 0)
const figure = (cell, column) => {
  const values = cell.valid.map((r) => r[column]).filter(Number.isFinite)
  return values.length > 0 ? median(values) : null
}

/**
 * One async cell's model: what the pool, the cores and the event loops allow (ops/s), the smallest, and which one it is.
 * @param {{ threads: number, callsPerRequest: number|null, holdUs: number|null, ioUring: boolean, cores: number,
 *   cpuPerRequestUs: number|null, loopAllows: number|null }} m threads: the pool threads of every serving process; ioUring: libuv
 *   sends the calls to io_uring (the pool allows any rate); loopAllows: the event loops' rate when busy all the time
 * @returns {{ pool: number|null, cores: number|null, loop: number|null, predicted: number|null, limit: 'pool'|'cores'|'loop'|null }}
 */
function predict ({ threads, callsPerRequest, holdUs, ioUring, cores, cpuPerRequestUs, loopAllows = null }) {
  const pool = ioUring ? Infinity : callsPerRequest > 0 && holdUs > 0 ? threads * 1e6 / (callsPerRequest * holdUs) : null
  const byCores = cpuPerRequestUs > 0 ? cores * 1e6 / cpuPerRequestUs : null
  const loop = loopAllows > 0 ? loopAllows : null
  if (pool === null || byCores === null) return { pool, cores: byCores, loop, predicted: null, limit: null }
  const [limit, predicted] = Object.entries({ pool, cores: byCores, loop: loop ?? Infinity }).reduce((a, b) => (b[1] < a[1] ? b : a))
  return { pool, cores: byCores, loop, predicted, limit }
}

/**
 * What the model expects of a ratio of two predictions: faster, slower or the same within the margin.
 * @param {number} ratio
 * @param {number} margin
 * @returns {'faster'|'slower'|'same'}
 */
function expectation (ratio, margin) {
  return ratio > 1 + margin ? 'faster' : ratio < 1 / (1 + margin) ? 'slower' : 'same'
}

/**
 * Whether a verdict bears the expectation out: faster or slower as expected; where the model expects the same (something
 * other than the pool is the limit), an interval that leaves out faster beyond the margin (the same or slower: a bigger pool
 * can only add wake-ups there).
 */
function agrees (expected, { verdict, high }, margin) {
  return expected === 'same' ? Number.isFinite(high) && high <= 1 + margin : verdict === expected
}

// The cells one async cell is modelled from: its own pool size (the threads), and the costs of its reference, the same cell
// at libuv's default pool without io_uring: a size's model predicts it from what the default measured.
const placeOf = (c) => [c.kind, c.nServers, c.storage, c.ioDelay, c.runtime, c.cores, c.shared].join('|')

// A cell's place and costs: cores, CPU and event-loop time per request, pool calls per request.
function costsOf (cell, env, probes, profiled) {
  const row = cell.valid[0]
  const shared = String(row.serverCpus).split(',').some((cpu) => String(row.clientCpus).split(',').includes(cpu))
  const cores = cpuCount(row.serverCpus) || env.cpus
  // On cores it shares, the client's CPU and the delay layer's count against the server's.
  const cpu = figure(cell, 'serverCpuPerReqUs')
  const measured = cell.ci.opsPerSec
  const processes = isMultiProcess(cell.kind) ? cell.nServers : 1
  const busy = cell.telemetry?.meanUtilization
  const prof = profiled.get(cell.id)
  const per = (w) => (prof?.waits[w] && prof.waits.poolCalls?.estimate > 0 ? prof.waits[w].estimate / prof.waits.poolCalls.estimate : null)
  return {
    id: cell.id,
    kind: cell.kind,
    nServers: cell.nServers,
    processes,
    storage: row.storage,
    ioDelay: row.ioDelay,
    runtime: row.runtime,
    cores,
    shared,
    pool: row.uvThreadpoolSize,
    ioUring: row.uvUseIoUring === 1,
    usesIoUring: row.uvUseIoUring === 1 && probes.ioUring.some((p) => p.runtime === row.runtime && p.used),
    measured,
    cpuPerRequestUs: cpu === null ? null : cpu + (shared ? (figure(cell, 'clientCpuPerReqUs') ?? 0) + (figure(cell, 'storageCpuPerReqUs') ?? 0) : 0),
    // Each event loop's busy time per request (JS runs on one thread a process): busy share ÷ its share of the rate.
    loopUsPerRequest: busy > 0 && measured?.median > 0 ? busy * 1e6 / (measured.median / processes) : null,
    callsPerRequest: prof?.waits.poolCalls?.estimate ?? null,
    holdUs: probes.hold.find((h) => h.runtime === row.runtime && h.storage === row.storage && String(h.ioDelay) === String(row.ioDelay))?.usPerCall ?? null,
    // Little's law: the pool threads' work in the profiled round ÷ its pool calls, the time a call held a thread under load.
    loadedHoldUs: prof?.poolHeld && prof.waits.poolCalls?.estimate > 0 ? prof.poolHeld.estimate / prof.waits.poolCalls.estimate : null,
    queuedUsPerCall: per('poolQueuedUs'),
    sleeps: prof?.sleeps?.estimate ?? null,
    wakeUs: prof?.categories?.['kernel-wake']?.estimate ?? null
  }
}

// A cell's model from its reference's costs and its own pool: what the pool, the cores and the event loops allow. The time a
// call holds a thread is the reference's under load where its profiled round sampled it, else the probe's at queue depth 1.
const holdOf = (m, ref) => ref.loadedHoldUs ?? m.holdUs

function modelFrom (m, ref) {
  return predict({ threads: m.pool * m.processes, callsPerRequest: ref.callsPerRequest ?? m.callsPerRequest, holdUs: holdOf(m, ref), ioUring: m.usesIoUring,
    cores: m.cores, cpuPerRequestUs: ref.cpuPerRequestUs, loopAllows: ref.loopUsPerRequest > 0 ? m.processes * 1e6 / ref.loopUsPerRequest : null })
}

/**
 * The model of every cell with a pool size, and the pool comparisons' expectations. Each async cell is predicted from the
 * costs its reference (the same cell at libuv's default, 4, without io_uring) measured: CPU and event-loop time per request,
 * pool calls per request (the profiled round), with its own pool's threads and the probe's time per call.
 * @param {object} results readResults's (its env: threadpool probes, cpus)
 * @param {object[]} cells summarised cells (report/stats/cell-stats.js)
 * @param {object[]} verdicts report/stats/comparisons.js's
 * @param {object|null} why report/stats/why.js whyAnalysis (the profiled round), null without one
 * @returns {object|null} null when no cell varies the pool: { cells: [{ id, kind, nServers, storage, ioDelay, runtime, cores,
 *   shared, pool, ioUring, measured, model, reference, hold, loadedHoldUs, fit, queuedUsPerCall, sleeps, wakeUs }], comparisons: [{ a, b, label,
 *   verdict, estimate, low, high, expected, agrees, storage, ioDelay }], fit: { n, all, pool, cores, loop } (median |measured/model − 1|
 *   over the n cells predicted from another's costs), holds, ioUring, notes }
 */
function poolModel (results, cells, verdicts, why) {
  const pooled = cells.filter((c) => c.valid.length > 0 && Number.isFinite(c.valid[0].uvThreadpoolSize))
  if (new Set(pooled.map((c) => c.valid[0].uvThreadpoolSize)).size < 2) return null
  const probes = results.env.threadpool ?? { hold: [], ioUring: [] }
  const profiled = new Map((why?.cells ?? []).map((c) => [c.id, c]))
  const costs = pooled.map((cell) => costsOf(cell, results.env, probes, profiled))
  const refs = new Map(costs.filter((m) => m.pool === DEFAULT_POOL && !m.ioUring).map((m) => [placeOf(m), m]))
  const modelled = costs.map((m) => {
    const ref = KINDS[m.kind].store === 'async' ? refs.get(placeOf(m)) : null
    const model = ref ? modelFrom(m, ref) : null
    const fit = model?.predicted && m.measured ? m.measured.median / model.predicted : null
    return { ...m, reference: ref?.id ?? null, model, hold: ref ? holdOf(m, ref) : null, fit }
  })
  const byId = new Map(modelled.map((m) => [m.id, m]))
  const comparisons = verdicts.filter((v) => v.kind === 'pool' && v.metric === 'opsPerSec').map((v) => {
    const [a, b] = [byId.get(v.a), byId.get(v.b)]
    const expected = a?.model?.predicted && b?.model?.predicted ? expectation(a.model.predicted / b.model.predicted, v.margin) : null
    return { a: v.a, b: v.b, label: v.label, verdict: v.verdict, estimate: v.estimate, low: v.low, high: v.high, storage: a?.storage, ioDelay: a?.ioDelay,
      expected, agrees: expected === null ? null : agrees(expected, v, v.margin) }
  })
  const off = (list) => (list.length > 0 ? median(list.map((m) => Math.abs(m.fit - 1))) : null)
  const predicted = modelled.filter((m) => m.fit !== null && m.reference !== m.id)
  return {
    cells: modelled,
    comparisons,
    fit: { n: predicted.length, all: off(predicted), ...Object.fromEntries(LIMITS.map((l) => [l, off(predicted.filter((m) => m.model.limit === l))])) },
    holds: probes.hold,
    ioUring: probes.ioUring,
    notes: probes.notes ?? []
  }
}

/**
 * The pool size past which the pool stops being the limit, by the model of a cell at libuv's default: the smallest
 * whole number of threads per process whose pool allows what the cores and the event loops do (Little's law: threads = rate × calls
 * per request × time per call).
 * @param {object} m a modelled cell
 * @returns {number|null}
 */
function knee (m) {
  const rest = Math.min(m.model?.cores ?? Infinity, m.model?.loop ?? Infinity)
  if (!m.model?.pool || !Number.isFinite(m.model.pool) || !Number.isFinite(rest)) return null
  return Math.ceil(rest / m.model.pool * m.pool)
}

module.exports = { poolModel, predict, expectation, knee, DEFAULT_POOL, LIMITS }
