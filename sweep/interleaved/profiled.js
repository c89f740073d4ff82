'use strict'
// --profile: after the verdict rounds, --profileRounds more rounds on fresh servers started with the profilers' flags
// (the verdict rounds' servers ran without them), the same interleaving and windows, in the same phases (the page cache's
// cells, then those that wait: sweep/interleaved/rounds.js), --profileRounds for each. In each, a random quarter of
// the passes (at least one) is left unprofiled, so the profilers' cost is measured in the same rounds at no fixed
// place. Where perf works it samples the profiled passes (the categories come from it) but the last of the first
// profiled round, which is V8's profiler's (JS stacks in every serving process, for the .cpuprofile files): V8's
// profiler slows the calls into node's C++ while it runs, so it gets a pass of its own. Without perf V8 takes
// every profiled pass. Every profiled pass times the fs waits, and every window of an async cell samples its pool threads
// at work (Little's law: their work ÷ the pool calls is the time a call holds a thread under that load, report/stats/pool-model.js)
// and the time its event loop waited on a full pool.
// Nothing of these rounds reaches summary.csv; they write profile/ (profile/session.js).

const { beginRound, storageGroups, groupLabel } = require('./live-cells')
const { endRound } = require('./round-rows')
const { runPasses } = require('./passes')
const { groupMembers } = require('../cell/process-group')
const { threadsCpuNs, poolThreads, busyThreads, loopWaits } = require('../../lib/machine/proc')
const { shuffle } = require('../../lib/random')
const { openProfileSession } = require('../../profile/session')
const { KINDS } = require('../../lib/kinds')
const { uvThreadpoolSize } = require('../../lib/results/environment')

const POOL_SAMPLE_MS = 10

/**
 * Starts sampling the pool threads of a server's processes (lib/machine/proc.js) every POOL_SAMPLE_MS, and each one's
 * event loop: where the loop waits for work while every thread of its pool holds some, the pool alone holds it up.
 * @param {number[]} pids
 * @param {number} size the pool's size in each
 * @returns {() => { heldUs: number, boundUs: number }} stops it; its threads' work so far (Σ busy threads × time, µs), and the
 *   time in which a process's loop waited on its full pool (µs, averaged over the processes)
 */
function samplePool (pids, size) {
  const threads = pids.map((pid) => [pid, poolThreads(pid, size)])
  const look = () => threads.map(([pid, tids]) => {
    const busy = busyThreads(pid, tids)
    return { busy, bound: tids.length > 0 && busy === tids.length && loopWaits(pid) }
  })
  let last = performance.now()
  let now = look()
  let heldUs = 0
  let boundUs = 0
  const tick = () => {
    const t = performance.now()
    const us = (t - last) * 1000
    heldUs += now.reduce((n, p) => n + p.busy, 0) * us
    boundUs += now.filter((p) => p.bound).length / Math.max(1, threads.length) * us
    last = t
    now = look()
  }
  const timer = setInterval(tick, POOL_SAMPLE_MS)
  return () => {
    clearInterval(timer)
    tick()
    return { heldUs: Math.round(heldUs), boundUs: Math.round(boundUs) }
  }
}

/**
 * Which profiler samples each pass of the k-th profiled round (from 0).
 * @param {number} k
 * @param {{ passes: number, profileRounds: number }} options
 * @param {boolean} perf whether perf works here
 * @param {() => number} random the run's
 * @returns {Array<'perf'|'v8'|null>} by pass (index 0 is pass 1); null: unprofiled
 */
function passPlan (k, { passes, profileRounds }, perf, random) {
  const all = Array.from({ length: passes }, (_, i) => i)
  const off = new Set(shuffle(all, random).slice(0, Math.max(1, Math.round(passes / 4))))
  const plan = all.map((i) => (off.has(i) ? null : perf ? 'perf' : 'v8'))
  // V8's pass: the last profiled one of the first round, if perf keeps a pass (or a round) of its own.
  const profiled = all.filter((i) => plan[i])
  if (perf && k === 0 && (profiled.length > 1 || profileRounds > 1)) plan[profiled.at(-1)] = 'v8'
  return plan
}

/**
 * Runs the profiled rounds and writes profile/.
 * @param {object[]} state the live cells (sweep/interleaved/live-cells.js)
 * @param {object} live what runPasses takes (options, random, hosts, signal, deadline, machine)
 * @param {{ dir: string, firstRound: number, say: (line: string) => void }} how firstRound: the number of the first
 *   profiled round (after the verdict rounds, for the files of profile/cells/)
 * @param {object} ctx the run's, as sweep/interleaved/round-rows.js endRound takes it (its files go to profile/cells/)
 * @returns {Promise<object|null>} profile.json's document, or null if interrupted
 */
async function runProfiledRounds (state, live, { dir, firstRound, say }, ctx) {
  const session = openProfileSession(dir, { rounds: live.options.profileRounds, say })
  const perf = session.mode === 'perf'
  try {
    // Every cell is profiled, settled or not, in the verdict rounds' phases: each phase's cells in rounds of their own.
    const groups = storageGroups(state.map((c) => c.cell))
    for (let n = 0; n < groups.length * live.options.profileRounds && !live.signal.aborted; n++) {
      const k = n % live.options.profileRounds
      const group = groups[Math.floor(n / live.options.profileRounds)]
      const ids = new Set(group.map((cell) => cell.id))
      const round = firstRound + n
      await beginRound(state, live.options)
      for (const c of state) c.settled = !ids.has(c.cell.id)
      const alive = state.filter((c) => !c.failed && ids.has(c.cell.id))
      if (alive.length === 0) continue
      for (const c of alive) {
        const members = groupMembers(c.opened.server.child.pid).map((m) => m.pid)
        c.cpuNow = () => members.reduce((a, pid) => a + threadsCpuNs(pid), 0)
        if (KINDS[c.cell.kind]?.store === 'async') {
          const size = c.cell.uvThreadpoolSize ?? uvThreadpoolSize()
          c.samplePool = () => samplePool(members, size)
        }
        session.watch(members)
      }
      const plan = passPlan(k, live.options, perf, live.random)
      const by = (pass) => plan[pass - 1]
      const around = { before: (pass) => session.arm(by(pass)), after: (pass) => session.disarm(by(pass)) }
      await session.round(round, async () => {
        try {
          await runPasses(state, { ...live, around })
        } finally {
          for (const c of state) {
            delete c.cpuNow
            delete c.samplePool
          }
        }
        const rows = await endRound(state, { round, order: 0, disturbed: '' }, { ...ctx, dir: session.folder })
        return {
          windows: alive.flatMap((c) => c.kept.map((w) => ({ ...w, cell: c.cell.id, by: by(w.pass) }))),
          problems: new Map(rows.filter((r) => !r.valid).map((r) => [r.cell, r.reason]))
        }
      })
      say(`profiled round ${k + 1} of ${live.options.profileRounds}${groups.length > 1 ? ` (${groupLabel(group[0])})` : ''}`)
    }
    return live.signal.aborted ? null : session.write()
  } finally {
    session.close()
  }
}

module.exports = { runProfiledRounds, passPlan, samplePool }
