'use strict'
// The pool model of a folder whose cells vary libuv's pool size (threadpool): per async cell, the throughput the pool
// allows, threads ÷ (pool calls per request × the time one call holds a thread), the cores', cores ÷ CPU per request,
// and the event loops', processes ÷ loop time per request; beside what was measured, the rate they allow together. A call
// holds a thread longer the busier the cores (a woken pool thread waits for one to hand its result back), so the pool
// allows less as the rate nears what the cores allow. Each cell is modelled from its own pool and CPU per request and its
// reference's pool calls, hold and event loop (the same cell at libuv's default pool), so a size's rate is not an input to
// its own model; per pool comparison, what the model expected against what the verdict says. Inputs: the profiled round's
// pool calls per request, its pool threads' work (report/stats/why.js; Little's law gives the time a call holds a thread
// under load) and the share of its time its event loop waited on a full pool; the threadpool probes (env.json: a GET's
// file calls at queue depth 1 on each storage); the cells' CPU per request and event-loop use.

const { KINDS, isMultiProcess } = require('../../lib/kinds')
const { median } = require('../../lib/median')

const { LIBUV_DEFAULT_THREADPOOL: DEFAULT_POOL } = require('../../lib/results/environment')
const LIMITS = ['pool', 'cores', 'loop']

const cpuCount = (list) => (list ? String(list).split(',').filter(Boolean).length : 0)
const figure = (cell, column) => {
  const values = cell.valid.map((r) => r[column]).filter(Number.isFinite)
  return values.length > 0 ? median(values) : null
}

// How a pool thread's time per request grows as the cores fill: a thread woken by its file call must run again to hand
// the result back, and waiting for a core counts as holding the thread (M/M/1's wait, ρ ÷ (1 − ρ), at the cores' load ρ).
const crowding = (rho) => (rho > 0 && rho < 1 ? rho / (1 - rho) : rho >= 1 ? Infinity : 0)

/**
 * One async cell's model: what the pool, the cores and the event loops allow (ops/s), the rate they allow together, and
 * which one holds it there. The pool allows threads ÷ (pool calls per request × µs a call holds a thread), where the hold
 * is the probe's at queue depth 1 plus growthUs × ρ ÷ (1 − ρ) per request, ρ the cores' load at that rate (CPU per request
 * × rate ÷ cores): the largest rate the pool allows at the load it makes, below what the cores and the event loops allow,
 * and below what the reference's measured rate becomes where its stretches of waiting on a full pool shorten with more threads.
 * The limit is the pool where twice the threads would be faster by more than the margin, else the event loop where its
 * bound or the reference's stretches bind, else the cores (the pool's threads are then held waiting for them).
 * @param {{ threads: number, callsPerRequest: number|null, holdUs: number|null, growthUs?: number,
 *   stretch?: { share: number, rate: number, threads: number }|null, ioUring: boolean, cores: number, cpuPerRequestUs: number|null,
 *   loopAllows: number|null, margin?: number }} m threads: the pool threads of every serving process; growthUs: thread time
 *   per request added per unit of ρ ÷ (1 − ρ); stretch: the share of the reference's time its loop waited on its full pool,
 *   its rate and threads; ioUring: libuv sends the calls to io_uring (the pool allows any rate); loopAllows: the event loops'
 *   rate when busy all the time
 * @returns {{ pool: number|null, cores: number|null, loop: number|null, predicted: number|null, holdUs: number|null,
 *   limit: 'pool'|'cores'|'loop'|null }} pool and holdUs: at the predicted rate's load
 */
function predict ({ threads, callsPerRequest, holdUs, growthUs = 0, stretch = null, ioUring, cores, cpuPerRequestUs, loopAllows = null, margin = 0.05 }) {
  const byCores = cpuPerRequestUs > 0 ? cores * 1e6 / cpuPerRequestUs : null
  // The event loops allow their busy time's rate, and no more than the reference's rate with its waits on a full pool gone.
  const rest = stretch && stretch.share < 1 ? stretch.rate / (1 - stretch.share) : Infinity
  const loop = loopAllows > 0 || Number.isFinite(rest) ? Math.min(loopAllows > 0 ? loopAllows : Infinity, rest) : null
  const known = ioUring || (callsPerRequest > 0 && holdUs > 0)
  if (!known || byCores === null) {
    const pool = ioUring ? Infinity : known ? threads * 1e6 / (callsPerRequest * holdUs) : null
    return { pool, cores: byCores, loop, predicted: null, holdUs: null, limit: null }
  }
  const usPerRequest = (rate) => callsPerRequest * holdUs + (growthUs > 0 ? growthUs * crowding(rate / byCores) : 0)
  const poolAt = (n, rate) => (ioUring ? Infinity : n * 1e6 / usPerRequest(rate))
  // Where the reference's loop waited on its full pool for a share of its time, n threads shorten those stretches by
  // stretch.threads ÷ n and leave the rest of its time as it was.
  const stretched = (n) => (stretch ? stretch.rate / (1 - stretch.share + stretch.share * stretch.threads / n) : Infinity)
  // The pool allows less the faster the rate (its threads wait longer for the cores): the rate where the two meet, by bisection.
  const rateWith = (n) => {
    const ceiling = Math.min(byCores, loop ?? Infinity, stretched(n))
    if (poolAt(n, ceiling) >= ceiling) return ceiling
    if (!(growthUs > 0)) return poolAt(n, 0)
    let [lo, hi] = [0, ceiling]
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2
      if (poolAt(n, mid) >= mid) lo = mid
      else hi = mid
    }
    return lo
  }
  const predicted = rateWith(threads)
  // The pool where twice the threads would be faster beyond the margin; else the event loop where its bound or the rest of
  // the reference's time binds; else the cores (the pool's threads held waiting for them).
  const binds = (x) => Number.isFinite(x) && predicted >= x * (1 - 1e-9)
  const limit = rateWith(2 * threads) > predicted * (1 + margin) ? 'pool' : binds(loop) || binds(stretched(threads)) ? 'loop' : 'cores'
  return { pool: poolAt(threads, predicted), cores: byCores, loop, predicted, holdUs: ioUring ? null : usPerRequest(predicted) / callsPerRequest, limit }
}

/**
 * What the model expects of a size against the default, from the ratio of their predictions: faster beyond the margin;
 * slower where the pool limits the size (too few threads); otherwise the same (or slower: where the cores or the event
 * loop are the limit, a bigger pool can only add wake-ups).
 * @param {number} ratio
 * @param {number} margin
 * @param {'pool'|'cores'|'loop'} limit the size's
 * @returns {'faster'|'slower'|'same'}
 */
function expectation (ratio, margin, limit) {
  return ratio > 1 + margin ? 'faster' : ratio < 1 / (1 + margin) && limit === 'pool' ? 'slower' : 'same'
}

/**
 * Whether a verdict bears the expectation out: faster or slower as expected; where the model expects the same, an interval
 * that leaves out faster beyond the margin (the same or slower).
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
    // The share of its time its event loop waited while every pool thread held a call: the pool alone held it up.
    poolBound: prof?.poolBound?.estimate ?? null,
    queuedUsPerCall: per('poolQueuedUs'),
    sleeps: prof?.sleeps?.estimate ?? null,
    wakeUs: prof?.categories?.['kernel-wake']?.estimate ?? null
  }
}

// A cell's model from its own pool, threads and CPU per request, and its reference's pool calls, hold and event loop. A call
// holds a thread the probe's time at queue depth 1 (the reference's under load where there is no probe); where the
// reference's profiled round sampled its pool threads under load, their extra time per request over the probe's is set
// against the reference's cores' load to give the growth: how much longer threads are held as the cores fill. Where it
// sampled the share of time its loop waited on its full pool, a size's threads shorten that share's stretches.
function modelFrom (m, ref, margin) {
  const calls = ref.callsPerRequest ?? m.callsPerRequest
  const holdUs = m.holdUs ?? ref.loadedHoldUs
  const load = ref.cpuPerRequestUs > 0 && ref.measured?.median > 0 ? ref.measured.median * ref.cpuPerRequestUs / (ref.cores * 1e6) : null
  const extra = calls > 0 && ref.loadedHoldUs > 0 && holdUs > 0 ? calls * (ref.loadedHoldUs - holdUs) : 0
  const growthUs = extra > 0 && crowding(load) > 0 && Number.isFinite(crowding(load)) ? extra / crowding(load) : 0
  const stretch = !m.usesIoUring && ref.poolBound !== null && ref.measured?.median > 0
    ? { share: ref.poolBound, rate: ref.measured.median, threads: ref.pool * ref.processes }
    : null
  const inputs = { threads: m.pool * m.processes, callsPerRequest: calls, holdUs, growthUs, stretch, ioUring: m.usesIoUring, cores: m.cores,
    cpuPerRequestUs: m.cpuPerRequestUs, loopAllows: ref.loopUsPerRequest > 0 ? m.processes * 1e6 / ref.loopUsPerRequest : null, margin }
  return { ...predict(inputs), inputs }
}

/**
 * The model of every cell with a pool size, and the pool comparisons' expectations. Each async cell is modelled from its own
 * pool's threads and CPU per request and from what its reference (the same cell at libuv's default, 4, without io_uring)
 * measured: event-loop time and pool calls per request, the time a call holds a thread under its load (the profiled round).
 * @param {object} results readResults's (its env: threadpool probes, cpus)
 * @param {object[]} cells summarised cells (report/stats/cell-stats.js)
 * @param {object[]} verdicts report/stats/comparisons.js's
 * @param {object|null} why report/stats/why.js whyAnalysis (the profiled round), null without one
 * @returns {object|null} null when no cell varies the pool: { cells: [{ id, kind, nServers, storage, ioDelay, runtime, cores,
 *   shared, pool, ioUring, measured, model, reference, loadedHoldUs, fit, queuedUsPerCall, sleeps, wakeUs }], comparisons: [{ a, b, label,
 *   verdict, estimate, low, high, expected, agrees, storage, ioDelay }], fit: { n, all, pool, cores, loop } (median |measured/model − 1|
 *   over the n cells predicted from another's costs), holds, ioUring, notes }
 */
function poolModel (results, cells, verdicts, why) {
  const pooled = cells.filter((c) => c.valid.length > 0 && Number.isFinite(c.valid[0].uvThreadpoolSize))
  if (new Set(pooled.map((c) => c.valid[0].uvThreadpoolSize)).size < 2) return null
  const probes = results.env.threadpool ?? { hold: [], ioUring: [] }
  const profiled = new Map((why?.cells ?? []).map((c) => [c.id, c]))
  const costs = pooled.map((cell) => costsOf(cell, results.env, probes, profiled))
  const margin = results.env.options?.margin ?? 0.05
  const refs = new Map(costs.filter((m) => m.pool === DEFAULT_POOL && !m.ioUring).map((m) => [placeOf(m), m]))
  const modelled = costs.map((m) => {
    const ref = KINDS[m.kind].store === 'async' ? refs.get(placeOf(m)) : null
    const model = ref ? modelFrom(m, ref, margin) : null
    const fit = model?.predicted && m.measured ? m.measured.median / model.predicted : null
    return { ...m, reference: ref?.id ?? null, model, fit }
  })
  const byId = new Map(modelled.map((m) => [m.id, m]))
  const comparisons = verdicts.filter((v) => v.kind === 'pool' && v.metric === 'opsPerSec').map((v) => {
    const [a, b] = [byId.get(v.a), byId.get(v.b)]
    const expected = a?.model?.predicted && b?.model?.predicted ? expectation(a.model.predicted / b.model.predicted, v.margin, a.model.limit) : null
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
 * The pool size past which the pool stops being the limit, by the model of a cell at libuv's default: the smallest whole
 * number of threads per process where twice as many would not be faster by more than the margin.
 * @param {object} m a modelled cell
 * @returns {number|null}
 */
function knee (m) {
  const inputs = m.model?.inputs
  if (!m.model?.predicted || inputs.ioUring) return null
  for (let n = 1; n <= 1024; n++) if (predict({ ...inputs, threads: n * m.processes }).limit !== 'pool') return n
  return null
}

module.exports = { poolModel, predict, expectation, knee, DEFAULT_POOL, LIMITS }
