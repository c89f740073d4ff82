'use strict'
// An interleaved run (sweep, quick, versions): the live cells (sweep/interleaved/live-cells.js) started and
// warmed up once (or afresh every --restartEvery rounds: fresh processes, new memory layouts, at the
// cost of another warm-up), then round after round of passes (sweep/interleaved/passes.js) until, after --rounds clean
// rounds, every headline comparison's interval is narrow enough to decide, or another round would
// overrun --budget, or --maxRounds is reached. A round that could not get its clean passes is
// disturbed: its rows are invalid and another round is run, at most --rounds more in all. Writes
// rounds.csv (each round's phases), passes.csv (each pass's interference) and windows.csv.
//
// The page cache's cells and the cells that wait (a FUSE delay, the real disk, a link's round trip) are measured in two
// phases, one after the other, each with its share of the budget: waiting cells leave the cores idle, and on a VM
// where a core left idle runs the next work slower for a while, the page cache's servers measured beside them took a third to
// a half more CPU per request, and a sync cluster's lead over one process came and went with the cells around it
// (bench/RESULTS.md, "The cells around a cell"). Every comparison is of cells of one storage, so none spans phases.

const path = require('node:path')
const { openCells, warmCells, beginRound, closeCells, fairWindows, storageGroups, groupLabel } = require('./live-cells')
const { endRound } = require('./round-rows')
const { runPasses, MACHINE } = require('./passes')
const { runProfiledRounds } = require('./profiled')
const { sampleMachine } = require('../../lib/machine/cpu-share')
const { createSummary, openLog } = require('../results/folder')
const { mulberry32 } = require('../../lib/random')
const { progressBar } = require('../../lib/progress')
const { openPool } = require('../../client/pool')
const { precision } = require('../../report/stats/precision')
const { runRows } = require('../../report/data/read')
const { stopReason } = require('./stop')

const ROUND_COLUMNS = ['round', 'startedAt', 'disturbed', 'cells', 'passes', 'measured', 'verify', 'total', 'precision']
const PASS_COLUMNS = ['round', 'pass', 'startedAt', 'kept', 'seconds', 'own', 'other', 'steal', 'iowait', 'interference', 'runnable', 'load1', 'waitedMs']
const WINDOW_COLUMNS = ['round', 'pass', 'kept', 'cell', 'ops', 'failed', 'wallUs', 'opsPerSec', 'clientCpuUs', 'serverCpuUs']

// The client processes, one pool per placement (the cores they are pinned to), kept for the whole
// run so that they stay warm; a pool that lost a process is replaced. Their output: cells/pool.log;
// their command lines name the run's data folder, as the servers' do. With client hosts, the pool's
// processes are there (client/pool.js), on the client's Node.
function clientPools ({ dir, dataRoot, remote }, options) {
  const log = openLog(path.join(dir, 'cells', 'pool.log'))
  const pools = new Map()
  const elsewhere = remote?.clients ? { hosts: remote.clients, ssh: remote.ssh, dir: remote.dir, node: options.clientNode.node } : null
  return {
    get (prefix, size) {
      const key = prefix.join(' ')
      if (!pools.get(key)?.alive()) {
        pools.set(key, openPool({ size, execPath: options.clientNode?.path, prefix, logFd: log.fd, label: dataRoot, remote: elsewhere }))
      }
      return pools.get(key)
    },
    close: async () => {
      await Promise.all([...pools.values()].map((pool) => pool.close()))
      log.close()
    }
  }
}

/**
 * Runs the plan's rounds and appends their rows (through `add`) and records.
 * @param {{ cells: object[], options: object }} plan options: rounds (the fewest clean ones), maxRounds,
 *   budget (s), margin, seed, warmOps, restartEvery and what sweep/interleaved/passes.js and sweep/interleaved/live-cells.js take
 * @param {{ dir: string, signal: AbortSignal, hosts: object|null }} ctx and what sweep/cell/harness.js takes
 * @param {(row: object) => void} add
 * @returns {Promise<{ rounds: number, disturbed: number, stop: string, timing: object }>} stop: why the rounds
 *   ended; timing: ms of start, warm, rounds, stop and measured (the kept windows' wall time)
 */
async function runRounds ({ cells, options }, ctx, add) {
  const random = mulberry32(options.seed)
  const write = {
    round: createSummary(path.join(ctx.dir, 'rounds.csv'), ROUND_COLUMNS),
    pass: createSummary(path.join(ctx.dir, 'passes.csv'), PASS_COLUMNS),
    window: createSummary(path.join(ctx.dir, 'windows.csv'), WINDOW_COLUMNS)
  }
  const started = performance.now()
  const seconds = () => (performance.now() - started) / 1000
  const timing = { start: 0, warm: 0, rounds: 0, profile: 0, stop: 0, measured: 0 }
  // Adds the ms since the last lap to timing[name] and returns them.
  const lap = (() => {
    let last = performance.now()
    return (name) => {
      const t = performance.now()
      const ms = Math.round(t - last)
      timing[name] += ms
      last = t
      return ms
    }
  })()
  const bar = progressBar(Math.round(options.budget), '{bar} {value}/{total} s of the budget | {last}', { last: 'starting the servers' })
  const say = (line) => (bar
    ? bar.update(Math.min(Math.round(seconds()), Math.round(options.budget)), { last: line })
    : process.stderr.write(`${options.command}: ${line}\n`))
  const pools = clientPools(ctx, options)
  const live = { ...ctx, random, pools, deadline: Date.now() + options.budget * 1000 }
  // With other hosts, their processes are named after the run's data folder: where a host is this
  // machine (a local sshd, a namespace), they are the run's own, not interference.
  if (ctx.remote) live.machine = { ...MACHINE, sample: () => sampleMachine(process.pid, path.basename(ctx.dataRoot)) }
  let state = []
  const written = [] // the rows so far, for the precision check after each round
  const result = { rounds: 0, disturbed: 0, stop: 'interrupted' }
  // Every cell's servers, started and warmed up: once, and under --profile once more for the profiled rounds, with the
  // profilers' flags, which the verdict rounds' servers never carry. Every --restartEvery rounds of a phase the servers of
  // the cells it still measures start again (`ids`); parked and settled cells keep theirs.
  let generations = 0
  const generation = async ({ profile = false, ids = null } = {}) => {
    const again = (c) => !ids || ids.has(c.cell.id)
    await closeCells(state.filter(again))
    lap('stop')
    const fresh = await openCells(cells.filter((cell) => !ids || ids.has(cell.id)), { ...live, options: { ...options, profile } }, ++generations)
    state = ids ? state.map((c) => (again(c) ? fresh.find((f) => f.cell === c.cell) : c)) : fresh
    const up = lap('start')
    say(`${fresh.filter((c) => !c.failed).length} servers up in ${(up / 1000).toFixed(1)} s; warming up`)
    const warmWindows = await warmCells(fresh, live)
    say(`warmed up in ${(lap('warm') / 1000).toFixed(1)} s (${warmWindows} windows)`)
  }
  try {
    await generation()
    const groups = storageGroups(cells)
    const stops = []
    for (const [g, group] of groups.entries()) {
      // A phase: the rounds of one group's cells, the others parked (measured no more, as if settled), with the budget
      // left shared by the cells left.
      const ids = new Set(group.map((cell) => cell.id))
      const left = groups.slice(g).reduce((n, gr) => n + gr.length, 0)
      const phase = { clean: 0, disturbed: 0, rounds: 0, started: seconds() }
      const budget = Math.max(0, options.budget - phase.started) * group.length / left
      for (const c of state) c.settled = !ids.has(c.cell.id)
      if (groups.length > 1) say(`${groupLabel(group[0])}: ${group.length} cells, ${Math.round(budget)} s of the budget`)
      for (;;) {
        const round = result.rounds + 1
        phase.rounds++
        if (phase.rounds > 1 && options.restartEvery > 0 && (phase.rounds - 1) % options.restartEvery === 0) {
          await generation({ ids: new Set(state.filter((c) => !c.settled).map((c) => c.cell.id)) })
        }
        const roundStart = performance.now()
        await beginRound(state, options)
        const measuring = state.filter((c) => !c.failed && !c.settled).length
        const measured = await runPasses(state, { ...live, onPass: (pass, windows) => {
          write.pass({ round, ...pass })
          for (const w of windows) write.window({ round, ...w, opsPerSec: w.wallUs > 0 ? Math.round(w.ops / (w.wallUs / 1e6)) : '' })
        } })
        const passesMs = Math.round(performance.now() - roundStart)
        let disturbed = (measured.disturbed
          ? `disturbed: ${measured.passes.length - measured.clean} of ${measured.passes.length} passes had more than ` +
            `${options.maxInterference * 100}% of the CPU taken by others (${measured.clean} of ${options.passes} clean)`
          : '')
        for (const row of await endRound(state, { round, order: (round - 1) * cells.length + 1, disturbed }, ctx)) {
          add(row)
          written.push(row)
        }
        // A cold cell whose cache drifted (sweep/cell/cache-state.js) makes the round one to measure again, as a disturbed one.
        const drifted = state.filter((c) => c.drift)
        if (!disturbed && drifted.length > 0) disturbed = drifted.map((c) => `${c.cell.id}: ${c.drift}`).join('; ')
        const keptMs = Math.round(measured.windows.reduce((a, w) => a + (w.kept ? w.wallUs : 0), 0) / 1000)
        timing.measured += keptMs
        if (disturbed) {
          result.disturbed++
          phase.disturbed++
        } else phase.clean++
        result.rounds = round
        const now = precision(runRows(written.filter((row) => ids.has(row.cell))), options.margin)
        // Past --rounds, a cell all of whose comparisons are narrow enough is settled: it gets no more
        // windows (and rows), which go to the cells still needed.
        if (phase.clean >= options.rounds) for (const c of state) c.settled ||= !now.needed(c.cell.id)
        const total = Math.round(performance.now() - roundStart)
        write.round({ round, startedAt: new Date(Date.now() - total).toISOString(), disturbed: Boolean(disturbed), cells: measuring,
          passes: passesMs, measured: keptMs, verify: total - passesMs, total, precision: now.summary })
        lap('rounds')
        say(`round ${round}${disturbed ? ' (disturbed)' : ''} in ${(total / 1000).toFixed(1)} s; ${now.summary}`)
        if (phase.rounds === 1 && options.fairWindows) for (const line of fairWindows(state.filter((c) => ids.has(c.cell.id)))) say(line)
        // One phase has the whole budget, counted from the run's start; a phase of two, its share, from its own.
        const alone = groups.length === 1
        const elapsed = alone ? seconds() : seconds() - phase.started
        const perRound = (alone ? seconds() - (timing.start + timing.warm) / 1000 : elapsed) / phase.rounds
        const stop = stopReason({ aborted: ctx.signal.aborted, allFailed: state.every((c) => c.failed || !ids.has(c.cell.id)), clean: phase.clean,
          disturbed: phase.disturbed, precise: now.precise, elapsed, perRound }, alone ? options : { ...options, budget: Number(budget.toFixed(1)) })
        if (stop) {
          stops.push(groups.length > 1 ? `${groupLabel(group[0])}: ${stop}` : stop)
          break
        }
      }
      if (ctx.signal.aborted) break
    }
    result.stop = stops.join('; ') || result.stop
    if (options.profile && !ctx.signal.aborted) {
      lap('rounds')
      await generation({ profile: true })
      await runProfiledRounds(state, live, { dir: ctx.dir, firstRound: result.rounds + 1, say }, ctx)
      lap('profile')
    }
  } catch (err) {
    if (!ctx.signal.aborted) throw err
  } finally {
    lap('rounds')
    await closeCells(state)
    await pools.close()
    lap('stop')
    bar?.stop()
  }
  return { ...result, timing }
}

module.exports = { runRounds, clientPools }
