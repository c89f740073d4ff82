'use strict'
// The one reader of /proc/PID/stat (Linux): a process's name, state, parent, group, CPU time and
// start time; whether it is alive; its CPU time in µs; to the ns, its threads' (schedstat); its pool threads at work and
// whether its event loop waits.

const fs = require('node:fs')
const { hasProc, procPath } = require('../platform')

const USER_HZ = 100 // /proc/PID/stat counts CPU time in USER_HZ ticks, 100 on Linux

/**
 * The fields of /proc/PID/stat this project uses.
 * @param {number|string} pid
 * @returns {{ comm: string, state: string, ppid: number, pgrp: number, ticks: number, cpuUs: number, startTime: string } | null}
 *   ticks: user + system CPU time in USER_HZ ticks; cpuUs: the same in µs; startTime: the kernel's start time
 *   (ticks since boot, as text: with the pid it names one process for good); null when there is no such process
 */
function readStat (pid) {
  if (!hasProc()) return null
  let stat
  try {
    stat = fs.readFileSync(procPath(pid, 'stat'), 'latin1')
  } catch {
    return null
  }
  // The name may hold spaces and parentheses: the fields start after the last ')'.
  const close = stat.lastIndexOf(')')
  const f = stat.slice(close + 2).split(' ')
  const ticks = Number(f[11]) + Number(f[12]) // utime (14th field), stime (15th)
  return {
    comm: stat.slice(stat.indexOf('(') + 1, close),
    state: f[0],
    ppid: Number(f[1]),
    pgrp: Number(f[2]),
    ticks,
    cpuUs: ticks * (1e6 / USER_HZ),
    startTime: f[19]
  }
}

/** Whether a process runs: it exists and is not a zombie (which serves and owns nothing); without /proc, whether a signal reaches it. */
function isAlive (pid) {
  if (!hasProc()) return signalReaches(pid)
  const stat = readStat(pid)
  return stat !== null && stat.state !== 'Z' && stat.state !== 'X'
}

/** Whether a signal reaches a process (a negative pid: a process group), as process.kill(pid, 0) tells anywhere. */
function signalReaches (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM' // it exists, owned by another user
  }
}

/**
 * @param {number} pid
 * @returns {number} CPU time (user + system) of one process so far, in µs
 * @throws {Error} when there is no such process
 */
function processCpuUs (pid) {
  const stat = readStat(pid)
  if (stat === null) throw new Error(`no process ${pid}`)
  return stat.cpuUs
}

// The sum over a process's threads of a number read from each one's /proc file (0 for a thread that
// ended while we looked, or for a process that is gone).
function overThreads (pid, file, read) {
  let tasks
  try {
    tasks = fs.readdirSync(procPath(pid, 'task'))
  } catch {
    return 0
  }
  return tasks.reduce((sum, tid) => sum + threadFigure(pid, tid, file, read), 0)
}

function threadFigure (pid, tid, file, read) {
  try {
    return read(fs.readFileSync(procPath(pid, 'task', tid, file), 'latin1'))
  } catch {
    return 0
  }
}

const schedstatNs = (text) => Number(text.split(' ')[0])
const voluntarySwitches = (text) => Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(text)?.[1] ?? 0)

/**
 * The CPU time of every thread of a process so far, to the ns (/proc/PID/task/TID/schedstat's first
 * field): precise enough for a window of milliseconds, where /proc/PID/stat counts 10 ms ticks.
 * @param {number} pid
 * @returns {number} ns; 0 for a process that is gone
 */
const threadsCpuNs = (pid) => overThreads(pid, 'schedstat', schedstatNs)

/**
 * The CPU time of one thread so far, to the ns (its schedstat).
 * @param {number} pid
 * @param {number|string} tid
 * @returns {number} ns; 0 for a thread that is gone
 */
const threadCpuNs = (pid, tid) => threadFigure(pid, tid, 'schedstat', schedstatNs)

/**
 * How many times the threads of a process have gone to sleep so far (their voluntary context
 * switches): each such switch runs with interrupts off, where no sampling profiler can land.
 * @param {number} pid
 * @returns {number} 0 for a process that is gone
 */
const threadsSleeps = (pid) => overThreads(pid, 'status', voluntarySwitches)

/**
 * libuv's pool threads of a process: the `size` threads it started last, by start time, then id (libuv starts them
 * together at the first call into the pool, after node's own threads).
 * @param {number} pid
 * @param {number} size the pool's size
 * @returns {string[]} thread ids; [] for a process that is gone
 */
function poolThreads (pid, size) {
  let tasks
  try {
    tasks = fs.readdirSync(procPath(pid, 'task'))
  } catch {
    return []
  }
  const started = (tid) => threadFigure(pid, tid, 'stat', (text) => Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[19]))
  return tasks.filter((tid) => tid !== String(pid)).map((tid) => ({ tid, at: started(tid) }))
    .sort((a, b) => a.at - b.at || a.tid - b.tid).slice(-size).map((t) => t.tid)
}

/**
 * How many of the given threads hold work now: running or waiting for a core (R), in uninterruptible sleep (D: the
 * disk), or asleep in the kernel anywhere but on a futex, where an idle pool thread waits for work (a file call on FUSE
 * sleeps interruptibly; a kernel that names no wchan, 0, counts such a sleep as idle).
 * @param {number} pid
 * @param {string[]} tids
 * @returns {number} a thread that is gone counts 0
 */
function busyThreads (pid, tids) {
  const state = (text) => text[text.lastIndexOf(')') + 2]
  const working = (tid) => {
    const s = threadFigure(pid, tid, 'stat', state)
    if (s === 'R' || s === 'D') return 1
    return s === 'S' ? threadFigure(pid, tid, 'wchan', (w) => (w === '0' || w.startsWith('futex') ? 0 : 1)) : 0
  }
  return tids.reduce((n, tid) => n + working(tid), 0)
}

/**
 * Whether a process's event loop waits for work now: its main thread asleep in epoll (wchan ep_poll or do_epoll_wait).
 * @param {number} pid
 * @returns {boolean} false for a process that is gone
 */
function loopWaits (pid) {
  if (threadFigure(pid, pid, 'stat', (text) => text[text.lastIndexOf(')') + 2]) !== 'S') return false
  return threadFigure(pid, pid, 'wchan', (w) => w === 'ep_poll' || w.includes('epoll_wait'))
}

module.exports = { readStat, isAlive, signalReaches, processCpuUs, threadsCpuNs, threadCpuNs, threadsSleeps, poolThreads, busyThreads, loopWaits }
