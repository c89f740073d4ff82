'use strict'
// --profile: after the verdict rounds, --profileRounds more rounds on the same live cells, whose passes
// are profiled but every fourth from the second (2, 6, 10 ...): the same interleaving and windows, and the
// profilers' own cost measured in the same rounds. Where perf works it samples the profiled passes (every
// CPU; the categories come from it) but the last of the first profiled round (pass 8 of quick's 8), which
// is V8's profiler's (JS stacks in every serving process, for the .cpuprofile files): V8's profiler slows
// the calls into node's C++ while it runs, so it gets a pass of its own. Without perf V8 takes every
// profiled pass. Every profiled pass times the fs waits.
// Nothing of these rounds reaches summary.csv; they write profile/ (profile/session.js).

const { beginRound } = require('./live-cells')
const { endRound } = require('./round-rows')
const { runPasses } = require('./passes')
const { groupMembers } = require('../cell/process-group')
const { threadsCpuNs } = require('../../lib/proc')
const { openProfileSession } = require('../../profile/session')

/** Whether a pass of a profiled round is left unprofiled, for the profilers' cost: 2, 6, 10 ... */
const unprofiled = (pass) => pass % 4 === 2
// With perf, V8's pass: the last profiled one of the first profiled round, if perf keeps a pass of its own
// (pass 1 is always profiled).
const v8PassOf = ({ passes, profileRounds }) => {
  const last = unprofiled(passes) ? passes - 1 : passes
  return last > 1 || profileRounds > 1 ? last : null
}
/** Which profiler samples a pass of the k-th profiled round (from 0): 'perf', 'v8' or null (an unprofiled pass). */
const profiler = (pass, perf, k, v8Pass) => (unprofiled(pass) ? null : !perf || (k === 0 && pass === v8Pass) ? 'v8' : 'perf')

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
  const v8Pass = v8PassOf(live.options)
  try {
    for (let k = 0; k < live.options.profileRounds && !live.signal.aborted; k++) {
      const round = firstRound + k
      await beginRound(state)
      for (const c of state) c.settled = false // every cell is profiled, settled or not
      const alive = state.filter((c) => !c.failed)
      if (alive.length === 0) break
      for (const c of alive) {
        const members = groupMembers(c.opened.server.child.pid).map((m) => m.pid)
        c.cpuNow = () => members.reduce((a, pid) => a + threadsCpuNs(pid), 0)
        session.watch(members)
      }
      const around = {
        before: (pass) => session.arm(profiler(pass, perf, k, v8Pass)),
        after: (pass) => session.disarm(profiler(pass, perf, k, v8Pass))
      }
      await session.round(round, async () => {
        try {
          await runPasses(state, { ...live, around })
        } finally {
          for (const c of state) delete c.cpuNow
        }
        const rows = await endRound(state, { round, order: 0, disturbed: '' }, { ...ctx, dir: session.folder })
        return {
          windows: alive.flatMap((c) => c.kept.map((w) => ({ ...w, cell: c.cell.id, by: profiler(w.pass, perf, k, v8Pass) }))),
          problems: new Map(rows.filter((r) => !r.valid).map((r) => [r.cell, r.reason]))
        }
      })
      say(`profiled round ${k + 1} of ${live.options.profileRounds}`)
    }
    return live.signal.aborted ? null : session.write()
  } finally {
    session.close()
  }
}

module.exports = { runProfiledRounds, profiler, v8PassOf }
