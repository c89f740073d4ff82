'use strict'
// The capacity command's rounds: in each round, in a shuffled order, every cell on a fresh server:
// its files created, a warm-up and a closed-loop window (the closed-loop figure its verdict is set
// beside), then the search for its capacity (sweep/capacity/search.js), each probe judged by
// sweep/capacity/judge.js and written to capacity.csv, then the --rates probes of the curve. One
// row per cell and round goes to summary.csv: the rate at which the fit of its probes crossed the target. Rounds go on to --rounds, or until another would
// overrun --budget.
//
// File growth: every probe starts from the same files. Before each probe the cell's files are
// removed and created again (one record each), so probes at different rates see the same sizes at
// their start; within a probe a file grows by rate × seconds / ((readsPerWrite + 1) × nFiles) records.

const path = require('node:path')
const { openServer, serverGone, dataOf } = require('../cell/harness')
const { rowOf } = require('../cell/cell')
const { createSummary } = require('../results/folder')
const { mulberry32, shuffle } = require('../../lib/random')
const { progressBar } = require('../../lib/progress')
const { deadline } = require('../interleaved/passes')
const { clientPools } = require('../interleaved/rounds')
const { searchCapacity } = require('./search')
const { judgeProbe, probeSeconds } = require('./judge')
const { minRequests } = require('../../lib/slo')
const { median } = require('../../lib/median')
const { SUMMARY } = require('../../lib/results/dimensions')

const CLOSED_OPS = 1000 // the closed-loop window after the warm-up, operations per client process
const PROBE_COLUMNS = ['cell', 'round', 'stage', 'rate', 'seconds', 'achieved', 'sent', 'requests', 'late', 'onTime', 'failed', 'passed',
  'invalid', 'cause', 'reason', 'sendRate', 'generatorCpu', 'generatorDelayP99Us', 'p50', 'p90', 'p99', 'p999', 'p50_GET', 'p90_GET', 'p99_GET',
  'p999_GET', 'p50_PUT', 'p90_PUT', 'p99_PUT', 'p999_PUT', 'windowP50s', 'windowsOver']
const COLUMNS = SUMMARY.capacity.columns // lib/results/dimensions.js
const TABLE = [
  { title: 'capacity req/s [interval]', key: 'capacity', interval: true },
  { title: 'highest pass', key: 'highestPass' },
  { title: 'closed-loop ops/s', key: 'closedOpsPerSec' },
  { title: 'probes', key: 'probes' },
  { title: 'search s', key: 'seconds', digits: 1 }
]

/**
 * Runs the capacity plan's rounds.
 * @param {{ cells: object[], options: object }} plan options: slo, precision, startRate, endRate, probe (s),
 *   rates, rounds, budget (s), seed, cellTimeout
 * @param {{ dir: string, dataRoot: string, signal: AbortSignal }} ctx and what sweep/cell/harness.js takes
 * @param {(row: object) => void} add
 * @returns {Promise<{ rounds: number, disturbed: number, stop: string, timing: object }>}
 */
async function runCapacity ({ cells, options }, ctx, add) {
  const random = mulberry32(options.seed)
  const writeProbe = createSummary(path.join(ctx.dir, 'capacity.csv'), PROBE_COLUMNS)
  const pools = clientPools(ctx, options)
  const poolSize = Math.max(...cells.map((c) => c.nClients)) // every cell's processes in one pool per placement
  const started = performance.now()
  const elapsed = () => (performance.now() - started) / 1000
  const bar = progressBar(options.rounds * cells.length, '{bar} {value}/{total} searches | {cell} | {rate} | last: {last}',
    { cell: '', rate: 'starting', last: '–' })
  const say = (line) => (bar ? bar.increment({ last: line }) : process.stderr.write(`capacity: ${line}\n`))
  const found = new Map() // cell id → capacities found so far
  const result = { rounds: 0, disturbed: 0, stop: `${options.rounds} rounds (--rounds)`, timing: { rounds: [] } }
  try {
    for (let round = 1; round <= options.rounds && !ctx.signal.aborted; round++) {
      const roundStart = performance.now()
      for (const [k, cell] of shuffle(cells, random).entries()) {
        const prior = found.has(cell.id) ? median(found.get(cell.id)) : null
        // Ctrl-C: the search in hand stops, the finished rows are kept (sweep/runner.js exits 130).
        const at = { round, order: (round - 1) * cells.length + k + 1, prior }
        const row = ctx.signal.aborted
          ? null
          : await measureCell(cell, at, { ...ctx, options, pools, poolSize, writeProbe, bar }).catch((err) => { if (!ctx.signal.aborted) throw err })
        if (!row) {
          result.stop = 'interrupted'
          break
        }
        add(row)
        if (Number.isFinite(row.capacity) && row.valid) found.set(cell.id, [...(found.get(cell.id) ?? []), row.capacity])
        const searched = row.capacity === null ? `no capacity (${row.limit})` : `${row.capacity} req/s (${row.limit})`
        say(`${cell.id} r${round}: ${row.valid ? searched : `invalid: ${row.reason}`}`)
      }
      if (ctx.signal.aborted) break
      result.rounds = round
      const roundS = (performance.now() - roundStart) / 1000
      result.timing.rounds.push(Math.round(roundS * 1000))
      if (round < options.rounds && elapsed() + roundS > options.budget) {
        result.stop = `another round would overrun the budget of ${options.budget} s`
        break
      }
    }
  } finally {
    bar?.stop()
    await pools.close()
  }
  return result
}

// One cell in one round: a fresh server, warmed, its closed-loop window, the search, the curve.
async function measureCell (cell, { round, order, prior }, ctx) {
  const { options, pools, poolSize, writeProbe, bar } = ctx
  const opened = await openServer({ cell, repeat: round }, ctx)
  const hostNames = ctx.remote ? { serverHost: ctx.remote.server?.host.text ?? '', clientHosts: ctx.remote.clients?.map((h) => h.text).join(',') ?? '' } : {}
  const base = rowOf({ cell, repeat: round, order }, { ...hostNames, listenMechanism: opened.placement?.row.listenMechanism ?? '' })
  const key = `${cell.id}-r${round}`
  let pool = null
  try {
    if (opened.error) return { ...base, valid: false, reason: opened.error.message }
    const n = cell.nClients
    const config = { ...cell.config, dataPath: opened.dataPath, serverPort: opened.server.port, rate: 0,
      ...(opened.placement.serverHostname && { serverHostname: opened.placement.serverHostname }),
      // The acknowledgement ledger's room: the longest probe at the highest rate, or the closed-loop window.
      // A probe repeated for the SLO's requests (judge.js probeSeconds) sends less than the rate × seconds asked + minRequests.
      nOperations: n * Math.max(CLOSED_OPS, Math.ceil((options.endRate * options.probe + minRequests(options.slo)) / n) + 1) }
    pool = pools.get(opened.placement.clientPrefix, poolSize)
    await pool.open(key, config, key)
    const limit = (promise, seconds, what) => deadline(promise, (seconds + 30) * 1000, `${what} of ${cell.id}`)
    for (const phase of ['create', 'warm']) {
      const { failed } = await limit(pool.phase(key, n, phase), 60, `the ${phase} phase`)
      if (failed > 0) return { ...base, valid: false, reason: `${failed} requests failed in the ${phase} phase` }
    }
    const closed = await limit(pool.window(key, n, 0, CLOSED_OPS), 60, 'the closed-loop window')
    await pool.settle(false)
    const closedOpsPerSec = Math.round(n * CLOSED_OPS / (closed.wallUs / 1e6))
    const searchStart = performance.now()
    // A probe asked for `asked` seconds lasts long enough for the SLO's percentiles (judge.js probeSeconds).
    const probe = async (rate, asked, stage = 'search') => {
      if (ctx.signal.aborted) throw ctx.signal.reason
      const seconds = probeSeconds(rate, asked, options.slo)
      await dataOf(ctx).call('clear', { dir: opened.dataPath })
      await limit(pool.phase(key, n, 'create'), 60, 'creating the files')
      bar?.update({ cell: `${cell.id} r${round}`, rate: `probing ${rate} req/s for ${seconds} s` })
      const measured = await limit(pool.probe(key, n, rate, seconds), seconds, `a probe at ${rate} req/s`)
      const judged = judgeProbe({ rate, seconds, ...measured }, options.slo)
      const gone = serverGone(opened)
      if (gone) throw new Error(gone)
      writeProbe({ cell: cell.id, round, stage, rate, seconds,
        achieved: Math.round(judged.achieved), sent: measured.sent, requests: judged.requests, late: measured.late,
        onTime: Number(judged.onTime.toFixed(4)), failed: measured.failed, passed: judged.passed, invalid: judged.invalid, cause: judged.cause,
        reason: judged.reason, sendRate: Math.round(judged.sendRate), generatorCpu: Number(measured.cpu.toFixed(3)),
        generatorDelayP99Us: measured.delayUs.p99 ?? '', ...judged.pooled, windowP50s: judged.p50s.join(' '), windowsOver: `${judged.windowsOver}/${seconds}` })
      bar?.update({ last: `${rate} req/s ${judged.passed ? 'passed' : judged.invalid ? 'invalid' : 'failed'}` })
      return judged
    }
    const found = await searchCapacity(probe, { ...options, seconds: options.probe, prior })
    const seconds = (performance.now() - searchStart) / 1000
    for (const rate of options.rates) await probe(rate, options.probe, 'curve')
    return { ...base, valid: true, reason: '', capacity: found.capacity, capacityLow: found.low, capacityHigh: found.high,
      highestPass: found.highestPass, limit: found.limit, probes: found.probes, closedOpsPerSec, seconds: Number(seconds.toFixed(1)) }
  } catch (err) {
    if (ctx.signal.aborted) throw err
    return { ...base, valid: false, reason: err.message }
  } finally {
    await pool?.drop(key).catch(() => {})
    await opened.close()
  }
}

module.exports = { runCapacity, COLUMNS, TABLE, PROBE_COLUMNS }
