'use strict'
// Linux perf for --profile: whether it samples here, a recording of every CPU (the serving processes'
// samples are picked out by pid later) switched on and off around the profiled passes through its
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

/**
 * Why perf cannot profile here, or null: it must be installed and record a cpu-clock sample with stacks.
 * @param {object} [env] whose PATH is searched
 * @returns {string|null}
 */
function perfProblem (env = process.env) {
  const perf = perfPath(env)
  if (!perf) return 'perf is not installed (./run_benchmark.sh setup installs linux-perf)'
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-perf-check-'))
  try {
    const r = spawnSync(perf, ['record', '-q', '-e', 'cpu-clock', '-F', '99', '-g', '-a', '-o', path.join(dir, 'check.data'), '--', 'true'],
      { encoding: 'utf8', timeout: 15000 })
    const last = `${r.stderr ?? ''}`.trim().split('\n').pop()
    return r.status === 0 ? null : `perf record does not work here (${last || r.error?.message || `exit ${r.status}`})`
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Starts perf record on every CPU, switched off until enable().
 * @param {{ file: string, logFd: number|string, frequency?: number }} what logFd: perf's stderr
 * @returns {Promise<{ enable(): Promise<void>, disable(): Promise<void>, stop(): Promise<void> }>}
 */
async function startPerf ({ file, logFd, frequency = FREQUENCY_HZ }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-perf-'))
  const [ctl, ack] = [path.join(dir, 'ctl'), path.join(dir, 'ack')]
  const made = spawnSync('mkfifo', [ctl, ack], { encoding: 'utf8' })
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr.trim()}`)
  const child = spawn(perfPath(), ['record', '-q', '-e', 'cpu-clock', '-F', String(frequency), '-g', '-k', 'CLOCK_MONOTONIC',
    '-D', '-1', '--control', `fifo:${ctl},${ack}`, '-a', '--mmap-pages=8M', '-o', file], { stdio: ['ignore', 'ignore', logFd] })
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

module.exports = { perfProblem, startPerf, perfScript, FREQUENCY_HZ }
