'use strict'
// Linux perf for --profile: what it may sample here and whether it does, a recording of every CPU (the serving
// processes' samples are picked out by pid later; a user's: this run's processes) switched on and off around the profiled passes through its
// control fifos, with timestamps on the monotonic clock (process.hrtime's), and its samples as text.
// Every CPU, not the processes: a per-process recording stops at each context switch and so misses the
// switches' own cost, most of the CPU of a thread that runs in bursts of microseconds (libuv's pool).

const { spawn, spawnSync } = require('node:child_process')
const { once } = require('node:events')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { findOnPath } = require('../lib/find-on-path')

const FREQUENCY_HZ = 277 // its cost, measured by bench/profile-overhead.js: within 5% of throughput (999 Hz: 9-10%); its period (3.61 ms) is far from
// a multiple of the kernel's 4 ms tick and of 1 ms timers: at 249 Hz it drifted 16 µs a sample against them, so it saw a workload
// paced by such timers (1 ms storage) at one phase for a whole window and miscounted its CPU by up to a third
const ACK_TIMEOUT_MS = 5000
const STOP_TIMEOUT_MS = 10000

const perfPath = (env = process.env) => findOnPath('perf', `${env.PATH ?? ''}${path.delimiter}/usr/sbin:/sbin`)

const V8_ONLY = 'profiles: V8 stacks only (main threads; not the thread pool or the kernel)'
const readSysctl = (name) => {
  try {
    return Number(fs.readFileSync(`/proc/sys/kernel/${name}`, 'utf8').trim())
  } catch {
    return NaN
  }
}

/**
 * What perf may sample for this user, from kernel.perf_event_paranoid and kernel.kptr_restrict (root: everything),
 * said in one line with the sysctl that would show more.
 * @param {{ uid?: number, sysctl?: (name: string) => number }} [machine]
 * @returns {{ scope: 'cpus'|'processes'|'user'|null, line: string, why?: string }} scope: every CPU; this run's processes,
 *   kernel too; their user space only; null: no perf (V8's stacks), why: the reason
 */
function perfAccess ({ uid = process.getuid(), sysctl = readSysctl } = {}) {
  if (uid === 0) return { scope: 'cpus', line: 'profiles: perf samples every CPU, user space and kernel (root)' }
  const paranoid = sysctl('perf_event_paranoid')
  const set = (value) => `sudo sysctl -w kernel.perf_event_paranoid=${value}`
  const kernelNames = sysctl('kptr_restrict') > 0 ? `; kernel frames unnamed (kernel.kptr_restrict = ${sysctl('kptr_restrict')}: ` +
    'sudo sysctl -w kernel.kptr_restrict=0 names them)' : ''
  if (paranoid <= 0) return { scope: 'cpus', line: `profiles: perf samples every CPU, user space and kernel${kernelNames}` }
  if (paranoid === 1) {
    return {
      scope: 'processes',
      line: `profiles: perf samples this run's processes, user space and kernel, not the context switches between them${kernelNames}; ` +
        `${set(0)} samples every CPU`
    }
  }
  if (paranoid === 2) {
    return {
      scope: 'user',
      line: 'profiles: perf samples this run\'s processes in user space only (main, pool and GC threads); the kernel categories are not ' +
        `sampled (kernel.perf_event_paranoid = 2): ${set(1)} adds the kernel, ${set(0)} every CPU`
    }
  }
  const why = `perf is not allowed to users here (kernel.perf_event_paranoid = ${Number.isNaN(paranoid) ? 'unreadable' : paranoid}); ` +
    `${set(2)} lets perf sample this run's processes`
  return { scope: null, why, line: `${V8_ONLY}: ${why}` }
}

// perf record's options for a scope: every CPU with a large buffer (root's), or the given processes (and every thread
// and process they start later: perf's counters are inherited) with the buffer a user's locked-memory limit allows.
const targetArgs = (scope, pids) => scope === 'cpus' ? ['-e', 'cpu-clock', '-a', '--mmap-pages=8M']
  : ['-e', scope === 'user' ? 'cpu-clock:u' : 'cpu-clock', '-p', pids.join(',')]
const recordArgs = (scope, pids, frequency) => ['record', '-q', '-F', String(frequency), '-g', '-k', 'CLOCK_MONOTONIC', ...targetArgs(scope, pids)]

/**
 * Why perf cannot profile here, or null: it must be installed and record a sample with stacks, with the options the
 * real recording will have (a process of its own as the target where the scope is processes).
 * @param {'cpus'|'processes'|'user'} [scope]
 * @param {object} [env] whose PATH is searched
 * @returns {string|null}
 */
function perfProblem (scope = 'cpus', env = process.env) {
  const perf = perfPath(env)
  if (!perf) return 'perf is not installed (./run_benchmark.sh setup installs it)'
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-perf-check-'))
  const target = scope === 'cpus' ? null : spawn('sleep', ['10'], { stdio: 'ignore' })
  try {
    const r = spawnSync(perf, [...recordArgs(scope, [target?.pid], FREQUENCY_HZ), '-o', path.join(dir, 'check.data'), '--', 'sleep', '0.05'],
      { encoding: 'utf8', timeout: 15000 })
    const last = `${r.stderr ?? ''}`.trim().split('\n').pop()
    return r.status === 0 ? null : `perf record does not work here (${last || r.error?.message || `exit ${r.status}`})`
  } finally {
    target?.kill()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Starts perf record on every CPU (or on the given processes), switched off until enable().
 * @param {{ file: string, logFd: number|string, frequency?: number, scope?: 'cpus'|'processes'|'user', pids?: number[] }} what
 *   logFd: perf's stderr; pids: the processes of a processes or user scope
 * @returns {Promise<{ enable(): Promise<void>, disable(): Promise<void>, stop(): Promise<void> }>}
 */
async function startPerf ({ file, logFd, frequency = FREQUENCY_HZ, scope = 'cpus', pids = [] }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-perf-'))
  const [ctl, ack] = [path.join(dir, 'ctl'), path.join(dir, 'ack')]
  const made = spawnSync('mkfifo', [ctl, ack], { encoding: 'utf8' })
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr.trim()}`)
  const child = spawn(perfPath(), [...recordArgs(scope, pids, frequency), '-D', '-1', '--control', `fifo:${ctl},${ack}`, '-o', file],
    { stdio: ['ignore', 'ignore', logFd] })
  const exited = once(child, 'exit')
  // Read-write opens of a fifo never wait for the other end: a perf that failed to start cannot hang us.
  const [toPerf, fromPerf] = await Promise.all([ctl, ack].map((f) => fs.promises.open(f, fs.constants.O_RDWR)))
  const command = async (word) => {
    await toPerf.write(`${word}\n`)
    let timer
    const late = new Promise((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`perf did not acknowledge "${word}" within ${ACK_TIMEOUT_MS / 1000} s`)), ACK_TIMEOUT_MS)
    })
    const gone = exited.then(([code, signal]) => { throw new Error(`perf record ended (${signal ?? `exit ${code}`}); see the log`) })
    try {
      await Promise.race([fromPerf.read(Buffer.alloc(16), 0, 16), late, gone])
    } finally {
      clearTimeout(timer)
    }
  }
  return {
    enable: () => command('enable'),
    disable: () => command('disable'),
    async stop () {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT')
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
      await exited
      clearTimeout(timer)
      await fromPerf.write('\n').catch(() => {}) // ends a read still waiting on the fifo
      await Promise.all([toPerf.close(), fromPerf.close()])
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

/**
 * The samples of a recording as `perf script` prints them (the format profile/perf-script.js reads).
 * @param {string} file perf.data
 * @returns {Promise<string>}
 */
async function perfScript (file) {
  const out = `${file}.txt`
  const fd = fs.openSync(out, 'w')
  try {
    const child = spawn(perfPath(), ['script', '-i', file, '-F', 'comm,pid,tid,time,period,ip,sym,dso', '--ns'], { stdio: ['ignore', fd, 'ignore'] })
    const [code] = await once(child, 'exit')
    if (code !== 0) throw new Error(`perf script -i ${file} failed (exit ${code})`)
    return fs.readFileSync(out, 'utf8')
  } finally {
    fs.closeSync(fd)
    fs.rmSync(out, { force: true })
  }
}

module.exports = { V8_ONLY, perfAccess, perfProblem, recordArgs, startPerf, perfScript, FREQUENCY_HZ }
