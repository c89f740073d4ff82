'use strict'
// A serving process's part of --profile: armed by the folder in BENCH_PROFILE_DIR, it watches each
// telemetry window (lib/serving/process-telemetry.js) while that folder holds the file `on`: the fs waits
// (lib/serving/fs-waits.js) always, and V8's sampling profiler through an inspector session when `on` says
// `v8` (its profile goes to a file there). perf, when it samples a window, needs nothing of the process.

const fs = require('node:fs')
const path = require('node:path')
const { watchFs } = require('./fs-waits')
const { threadCpuNs, threadsSleeps } = require('../machine/proc')

const DIR_VAR = 'BENCH_PROFILE_DIR'
const INTERVAL_VAR = 'BENCH_PROFILE_INTERVAL_US'
const V8_INTERVAL_US = 1000 // V8's own default
const ON = 'on'
// Names for JIT code in perf's stacks; cheap after warm-up (a line per function compiled). Not
// --interpreted-frames-native-stack: its trampolines reuse addresses, and perf then names the wrong function.
const PERF_FLAGS = ['--perf-basic-prof-only-functions']

/** Where a run's serving processes write their V8 profiles: a folder of the results folder, removed at the end. */
const profileSpool = (resultsDir) => path.join(resultsDir, 'profile', 'v8')

/**
 * The environment of a server whose windows may be profiled: the folder, the interval and the
 * flags that name JS functions in perf's stacks (NODE_OPTIONS reaches every process it starts).
 * @param {string} dir where the processes write their profiles and where `on` marks profiled windows
 * @param {object} env the server's environment so far
 * @returns {object} the variables to add
 */
function profileEnv (dir, env) {
  const options = [env.NODE_OPTIONS, ...PERF_FLAGS].filter(Boolean).join(' ')
  return { [DIR_VAR]: dir, [INTERVAL_VAR]: String(V8_INTERVAL_US), NODE_OPTIONS: options }
}

/**
 * This process's profiler, or null when the server was not started for --profile. The sweep writes
 * `on` (its text: `v8`, or `waits` for a window perf samples) before a profiled window's telemetry
 * reset and removes it after the window's read.
 * @param {object} [env]
 * @returns {{ start(): Promise<void>, stop(): Promise<{ profile?: string, mainCpuUs?: number, fsWaits?: object }> }|null} mainCpuUs:
 *   the main thread's CPU while V8's profiler ran (its samples are scaled to it: profile/attribute.js)
 */
function createProfiler (env = process.env) {
  const dir = env[DIR_VAR]
  if (!dir) return null
  const inspector = require('node:inspector')
  let session = null
  let active = false // a window is watched
  let waits = null
  let profiling = false
  let mainCpuNs = 0 // the main thread's CPU when V8's profiler started: its samples weigh wall time, this says how much was CPU
  let sleeps = 0 // this process's threads' sleeps when the window began
  const post = (method, params) => new Promise((resolve, reject) => {
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result)))
  })
  return {
    async start () {
      if (active) return
      let mode
      try {
        mode = fs.readFileSync(path.join(dir, ON), 'utf8')
      } catch {
        return // not a profiled window
      }
      active = true
      sleeps = threadsSleeps(process.pid)
      if (mode === 'v8') {
        if (!session) {
          session = new inspector.Session()
          session.connect()
          await post('Profiler.enable')
          await post('Profiler.setSamplingInterval', { interval: Number(env[INTERVAL_VAR]) || V8_INTERVAL_US })
        }
        await post('Profiler.start')
        profiling = true
        mainCpuNs = threadCpuNs(process.pid, process.pid)
      }
      waits = watchFs() // last: the reads above are not the server's fs calls
    },
    async stop () {
      if (!active) return {}
      active = false
      const fsWaits = { ...waits.stop(), sleeps: threadsSleeps(process.pid) - sleeps }
      waits = null
      if (!profiling) return { fsWaits }
      profiling = false
      const mainCpuUs = Math.round((threadCpuNs(process.pid, process.pid) - mainCpuNs) / 1000)
      const { profile } = await post('Profiler.stop')
      const file = path.join(dir, `${process.pid}-${profile.startTime}.cpuprofile`)
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(profile))
      fs.renameSync(`${file}.tmp`, file)
      return { profile: file, mainCpuUs, fsWaits }
    }
  }
}

module.exports = { createProfiler, profileEnv, profileSpool, ON, V8_INTERVAL_US, PERF_FLAGS }
