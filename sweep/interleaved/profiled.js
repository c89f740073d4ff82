'use strict'
// --profile: after the verdict rounds, --profileRounds more rounds on the same live cells, whose odd
// passes are profiled and whose even passes are not: the same interleaving and windows, and the
// profilers' own cost measured in the same rounds. Where perf works it samples the odd passes (every
// CPU; the categories come from it) but the last odd one of the first profiled round (pass 7 of quick's
// 8), which is V8's profiler's
// (JS stacks in every serving process, for the .cpuprofile files): V8's profiler slows the calls into
// node's C++ while it runs, so it gets a pass of its own. Without perf V8 takes every odd pass. Every
// profiled pass times the fs waits.
// Nothing of these rounds reaches summary.csv; they write profile/ (profile/record.js).

const fs = require('node:fs')
const path = require('node:path')
const { beginRound } = require('./live-cells')
const { endRound } = require('./round-rows')
const { runPasses } = require('./passes')
const { groupMembers } = require('../cell/process-group')
const { threadsCpuNs } = require('../../lib/proc')
const { openLog } = require('../results/folder')
const { ON, V8_INTERVAL_US, profileSpool } = require('../../lib/profiler')
const { perfProblem, startPerf, perfScript, FREQUENCY_HZ } = require('../../profile/perf')
const { roundFigures } = require('../../profile/round')
const { createProfileRecord } = require('../../profile/record')

// With perf, V8's pass: the last odd one of the first profiled round, if perf keeps an odd pass of its own.
const v8PassOf = ({ passes, profileRounds }) => {
  const last = passes % 2 === 1 ? passes : passes - 1
  return last >= 3 || profileRounds > 1 ? last : null
}
/** Which profiler samples a pass of the k-th profiled round (from 0): 'perf', 'v8' or null (an unprofiled pass). */
const profiler = (pass, perf, k, v8Pass) => (pass % 2 === 0 ? null : !perf || (k === 0 && pass === v8Pass) ? 'v8' : 'perf')

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
  const folder = path.join(dir, 'profile')
  fs.mkdirSync(path.join(folder, 'cells'), { recursive: true })
  const log = openLog(path.join(folder, 'perf.log'))
  const problem = perfProblem()
  const record = createProfileRecord({
    mode: problem ? 'v8' : 'perf', note: problem ?? '', perfHz: problem ? null : FREQUENCY_HZ, v8IntervalUs: V8_INTERVAL_US, rounds: live.options.profileRounds
  })
  if (problem) say(`profiles: V8 stacks only (main threads; not the thread pool or the kernel): ${problem}`)
  const known = new Map()
  const servers = new Set() // every serving process profiled: their JIT names for perf are removed at the end
  fs.mkdirSync(profileSpool(dir), { recursive: true })
  const flag = path.join(profileSpool(dir), ON)
  const v8Pass = v8PassOf(live.options)
  try {
    for (let k = 0; k < live.options.profileRounds && !live.signal.aborted; k++) {
      const round = firstRound + k
      await beginRound(state)
      for (const c of state) c.settled = false // every cell is profiled, settled or not
      const alive = state.filter((c) => !c.failed)
      if (alive.length === 0) break
      const data = path.join(folder, `round-${round}.data`)
      for (const c of alive) {
        const members = groupMembers(c.opened.server.child.pid).map((m) => m.pid)
        c.cpuNow = () => members.reduce((a, pid) => a + threadsCpuNs(pid), 0)
        for (const pid of members) servers.add(pid)
      }
      const perf = problem ? null : await startPerf({ file: data, logFd: log.fd })
      const around = {
        before: async (pass) => {
          const by = profiler(pass, perf, k, v8Pass)
          if (by) fs.writeFileSync(flag, by === 'perf' ? 'waits' : 'v8')
          if (by === 'perf') await perf.enable()
        },
        after: async (pass) => {
          if (profiler(pass, perf, k, v8Pass) === 'perf') await perf.disable()
          fs.rmSync(flag, { force: true })
        }
      }
      try {
        await runPasses(state, { ...live, around })
      } finally {
        for (const c of state) delete c.cpuNow
        fs.rmSync(flag, { force: true })
        await perf?.stop()
      }
      const rows = await endRound(state, { round, order: 0, disturbed: '' }, { ...ctx, dir: folder })
      const problems = new Map(rows.filter((r) => !r.valid).map((r) => [r.cell, r.reason]))
      const windows = alive.flatMap((c) => c.kept.map((w) => ({ ...w, cell: c.cell.id, by: profiler(w.pass, perf, k, v8Pass) })))
      const perfText = perf ? await perfScript(data) : null
      fs.rmSync(data, { force: true })
      record.addRound(round, roundFigures(windows, { perfText, known }), known, problems)
      say(`profiled round ${k + 1} of ${live.options.profileRounds}`)
    }
    return live.signal.aborted ? null : record.write(folder)
  } finally {
    log.close()
    fs.rmSync(profileSpool(dir), { recursive: true, force: true })
    for (const pid of servers) fs.rmSync(`/tmp/perf-${pid}.map`, { force: true }) // node's JIT names for perf
  }
}

module.exports = { runProfiledRounds }
