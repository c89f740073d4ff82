'use strict'
// The pool model of a folder whose cells vary libuv's pool size (threadpool): per async cell, the throughput the pool
// allows, threads ÷ (pool calls per request × the time one call holds a thread), the throughput the cores allow,
// cores ÷ CPU per request, and the event loops', the smallest of the three beside what was measured; per pool comparison, what the model
// expected against what the verdict says. Inputs: the threadpool probes (env.json: a call's time at queue depth 1 on
// each storage), the profiled round's pool calls per request (report/stats/why.js), the cells' CPU per request.

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
 * Whether a verdict bears the expectation out: faster or slower as expected; "same" expected, anything but faster
 * (where the cores are the limit, a bigger pool can only add wake-ups).
 */
const agrees = (expected, verdict) => (expected === 'same' ? verdict !== 'faster' && verdict !== 'undecided' : verdict === expected)

/**
 * The model of every cell with a pool size, and the pool comparisons' expectations.
 * @param {object} results readResults's (its env: threadpool probes, cpus)
 * @param {object[]} cells summarised cells (report/stats/cell-stats.js)
 * @param {object[]} verdicts report/stats/comparisons.js's
 * @param {object|null} why report/stats/why.js whyAnalysis (the profiled round), null without one
 * @returns {object|null} null when no cell varies the pool: { cells: [{ id, kind, nServers, storage, ioDelay, runtime, cores,
 *   shared, pool, ioUring, measured, model, fit, queuedUsPerCall, sleeps, wakeUs }], comparisons: [{ a, b, label, verdict,
 *   estimate, low, high, expected, agrees, ioDelay }], fit: { all, pool, cores } (median |measured/model − 1|), holds }
 */
function poolModel (results, cells, verdicts, why) {
  const pooled = cells.filter((c) => c.valid.length > 0 && Number.isFinite(c.valid[0].uvThreadpoolSize))
  if (new Set(pooled.map((c) => c.valid[0].uvThreadpoolSize)).size < 2) return null
  const probes = results.env.threadpool ?? { hold: [], ioUring: [] }
  const profiled = new Map((why?.cells ?? []).map((c) => [c.id, c]))
  const modelled = pooled.map((cell) => {
    const row = cell.valid[0]
    const ioUring = row.uvUseIoUring === 1 && probes.ioUring.some((p) => p.runtime === row.runtime && p.used)
    const hold = probes.hold.find((h) => h.runtime === row.runtime && h.storage === row.storage && String(h.ioDelay) === String(row.ioDelay))
    const shared = String(row.serverCpus).split(',').some((cpu) => String(row.clientCpus).split(',').includes(cpu))
    const cores = cpuCount(row.serverCpus) || results.env.cpus
    // On cores it shares, the client's CPU and the delay layer's count against the server's.
    const cpu = figure(cell, 'serverCpuPerReqUs')
    const cpuPerRequestUs = cpu === null ? null : cpu + (shared ? (figure(cell, 'clientCpuPerReqUs') ?? 0) + (figure(cell, 'storageCpuPerReqUs') ?? 0) : 0)
    const prof = profiled.get(cell.id)
    const async = KINDS[cell.kind].store === 'async'
    const measured = cell.ci.opsPerSec
    // An event loop busy a share u of the time at x ops/s would do x / u busy all the time (JS runs on one thread a process).
    const busy = cell.telemetry?.meanUtilization
    const model = async
      ? predict({ threads: row.uvThreadpoolSize * (isMultiProcess(cell.kind) ? cell.nServers : 1), callsPerRequest: prof?.waits.poolCalls?.estimate ?? null,
        holdUs: hold?.usPerCall ?? null, ioUring, cores, cpuPerRequestUs, loopAllows: busy > 0 && measured ? measured.median / busy : null })
      : null
    const per = (w) => (prof?.waits[w] && prof.waits.poolCalls?.estimate > 0 ? prof.waits[w].estimate / prof.waits.poolCalls.estimate : null)
    return {
      id: cell.id,
      kind: cell.kind,
      nServers: cell.nServers,
      storage: row.storage,
      ioDelay: row.ioDelay,
      runtime: row.runtime,
      cores,
      shared,
      pool: row.uvThreadpoolSize,
      ioUring: row.uvUseIoUring === 1,
      measured,
      model,
      fit: model?.predicted && measured ? measured.median / model.predicted : null,
      queuedUsPerCall: per('poolQueuedUs'),
      sleeps: prof?.sleeps?.estimate ?? null,
      wakeUs: prof?.categories?.['kernel-wake']?.estimate ?? null
    }
  })
  const byId = new Map(modelled.map((m) => [m.id, m]))
  const comparisons = verdicts.filter((v) => v.kind === 'pool' && v.metric === 'opsPerSec').map((v) => {
    const [a, b] = [byId.get(v.a), byId.get(v.b)]
    const expected = a?.model?.predicted && b?.model?.predicted ? expectation(a.model.predicted / b.model.predicted, v.margin) : null
    return { a: v.a, b: v.b, label: v.label, verdict: v.verdict, estimate: v.estimate, low: v.low, high: v.high, ioDelay: a?.ioDelay,
      expected, agrees: expected === null ? null : agrees(expected, v.verdict) }
  })
  const off = (list) => (list.length > 0 ? median(list.map((m) => Math.abs(m.fit - 1))) : null)
  const fitted = modelled.filter((m) => m.fit !== null)
  return {
    cells: modelled,
    comparisons,
    fit: { all: off(fitted), ...Object.fromEntries(LIMITS.map((l) => [l, off(fitted.filter((m) => m.model.limit === l))])) },
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
