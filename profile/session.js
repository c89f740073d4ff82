'use strict'
// One --profile of a results folder, whatever runs its windows (the interleaved rounds, or run's runs):
// profile/ made and perf checked; round by round perf recording (switched on only for the windows it
// samples), the serving processes told which profiler a window has (the `on` file of lib/serving/profiler.js),
// the round's samples put into figures (profile/round.js) and kept for profile.json (profile/record.js);
// at the end the profiles' spool and node's perf maps of every serving process removed.

const fs = require('node:fs')
const path = require('node:path')
const { ON, V8_INTERVAL_US, profileSpool } = require('../lib/serving/profiler')
const { V8_ONLY, perfAccess, perfProblem, startPerf, perfScript, FREQUENCY_HZ } = require('./perf')
const { isAlive } = require('../lib/machine/proc')
const { roundFigures } = require('./round')
const { createProfileRecord } = require('./record')

/**
 * @param {string} dir the results folder
 * @param {{ rounds: number, say: (line: string) => void }} how rounds: how many profiled rounds (profile.json's head)
 * @returns {{ folder: string, mode: 'perf'|'v8', scope: 'cpus'|'processes'|'user'|null, watch(pids: number[]): void,
 *   round(round: number, measure: () => Promise<{ windows: object[], problems: Map<string, string> }>): Promise<void>,
 *   arm(by: 'perf'|'v8'|null): Promise<void>, disarm(by: 'perf'|'v8'|null): Promise<void>, write(): object, close(): void }}
 *   round: runs measure with perf recording (when there is perf) and adds the windows it returns (profile/round.js's
 *   roundFigures takes them); arm/disarm: before and after a window sampled by `by` (null: an unprofiled window)
 */
function openProfileSession (dir, { rounds, say }) {
  const folder = path.join(dir, 'profile')
  fs.mkdirSync(path.join(folder, 'cells'), { recursive: true })
  fs.mkdirSync(profileSpool(dir), { recursive: true })
  const logFd = fs.openSync(path.join(folder, 'perf.log'), 'a')
  // Before the first run, one line: what the run will see, and the sysctl that would show more.
  const access = perfAccess()
  const problem = access.scope ? perfProblem(access.scope) : access.why
  const mode = problem ? 'v8' : 'perf'
  const scope = problem ? null : access.scope
  say(problem ? `${V8_ONLY}: ${problem}` : access.line)
  const record = createProfileRecord({ mode, scope, note: problem ?? '', perfHz: problem ? null : FREQUENCY_HZ, v8IntervalUs: V8_INTERVAL_US, rounds })
  const known = new Map()
  const servers = new Set() // every serving process profiled: their JIT names for perf are removed at the end
  const flag = path.join(profileSpool(dir), ON)
  let perf = null
  return {
    folder,
    mode,
    scope,
    watch (pids) {
      for (const pid of pids) servers.add(pid)
    },
    async round (round, measure) {
      const data = path.join(folder, `round-${round}.data`)
      let got, perfText
      try {
        // Where perf may see only processes: this one (the servers it starts later inherit the recording) and the live servers.
        const pids = [process.pid, ...[...servers].filter(isAlive)]
        perf = mode === 'perf' ? await startPerf({ file: data, logFd, scope, pids }) : null
        try {
          got = await measure()
        } finally {
          fs.rmSync(flag, { force: true })
          await perf?.stop()
        }
        perfText = perf ? await perfScript(data) : null
      } finally {
        perf = null
        fs.rmSync(data, { force: true })
      }
      for (const w of got.windows) this.watch(processPids(w.doc))
      record.addRound(round, roundFigures(got.windows, { perfText, known, userOnly: scope === 'user' }), known, got.problems)
    },
    async arm (by) {
      if (by) fs.writeFileSync(flag, by === 'perf' ? 'waits' : 'v8')
      if (by === 'perf') await perf.enable()
    },
    async disarm (by) {
      if (by === 'perf') await perf.disable()
      fs.rmSync(flag, { force: true })
    },
    write: () => record.write(folder),
    close () {
      fs.closeSync(logFd)
      fs.rmSync(profileSpool(dir), { recursive: true, force: true })
      for (const pid of servers) fs.rmSync(`/tmp/perf-${pid}.map`, { force: true }) // node's JIT names for perf
    }
  }
}

// The pids of a window's telemetry document: its processes and HAProxy's.
const processPids = (doc) => [...(doc?.processes ?? []).map((p) => p.pid), ...(doc?.balancer?.pid ? [doc.balancer.pid] : [])]

module.exports = { openProfileSession }
