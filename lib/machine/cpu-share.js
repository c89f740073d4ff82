'use strict'
// What else used the machine while a run measured: samples of every thread's run time
// (/proc/PID/task/TID/schedstat, in ns), of /proc/stat (steal and iowait, runnable threads) and
// /proc/loadavg; the run's own processes are this one and its descendants (servers, clients,
// storage daemons, HAProxy). The difference of two samples says which share of the machine's CPU
// other processes and the hypervisor (steal) took. Without Linux's /proc, the machine's CPU times (os.cpus()) less the run's
// own (this process's, and its servers' and clients' as they report it) say what others took; steal and iowait are not measured.

const fs = require('node:fs')
const os = require('node:os')
const { readStat } = require('./proc')
const { hasProc, procPath } = require('../platform')

// Fields of /proc/stat's cpu line, in order (guest time is already inside user and nice).
const STATES = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal']
const CPUS = os.availableParallelism()

/** The default of --maxInterference: the share of the machine's CPU others may take in a pass. */
const MAX_INTERFERENCE = 0.1

function readCpuLine (text) {
  const fields = text.slice(0, text.indexOf('\n')).trim().split(/\s+/).slice(1).map(Number)
  return Object.fromEntries(STATES.map((state, i) => [state, fields[i] || 0]))
}

// Every process's parent and CPU time in ns: the sum of its threads' run time from
// /proc/PID/task/TID/schedstat (exact, where /proc/PID/stat counts whole 10 ms ticks); with a label,
// whether its command line holds it.
function processTable (label = null) {
  const table = new Map()
  if (!hasProc()) return table
  for (const name of fs.readdirSync(procPath())) {
    if (name.charCodeAt(0) > 57) continue // not a pid
    try {
      const stat = readStat(name)
      if (stat === null) continue // it ended while we looked
      let ns = 0
      for (const tid of fs.readdirSync(procPath(name, 'task'))) {
        try {
          const text = fs.readFileSync(procPath(name, 'task', tid, 'schedstat'), 'latin1')
          ns += Number(text.slice(0, text.indexOf(' ')))
        } catch {} // a thread that ended while we looked: the process is still there
      }
      const labelled = label !== null && fs.readFileSync(procPath(name, 'cmdline'), 'latin1').includes(label)
      table.set(Number(name), { ppid: stat.ppid, ns, labelled })
    } catch {} // it ended while we looked
  }
  return table
}

/**
 * The pids of a process and all its descendants.
 * @param {Map<number, { ppid: number }>} table from processTable
 * @param {...number} roots
 * @returns {Set<number>} the processes of every root's tree
 */
function processTree (table, ...roots) {
  const children = new Map()
  for (const [pid, { ppid }] of table) children.set(ppid, [...(children.get(ppid) ?? []), pid])
  const tree = new Set()
  const todo = [...roots]
  while (todo.length > 0) {
    const pid = todo.pop()
    tree.add(pid)
    todo.push(...(children.get(pid) ?? []))
  }
  return tree
}

/**
 * One sample of the machine.
 * @param {number} [root] the run's own process tree (default: this process)
 * @param {string|null} [label] with other hosts: a word in the command lines of the run's processes there
 *   (its data folder's name), which are the run's own too when a host is this machine (a local sshd, a namespace)
 * @returns {{ at: number, cpu: object, processes: Map<number, { ns: number, own: boolean }>, runnable: number, load1: number }}
 *   at: ms (performance clock)
 */
function sampleMachine (root = process.pid, label = null) {
  if (!hasProc()) return portableSample()
  const stat = fs.readFileSync(procPath('stat'), 'latin1')
  const table = processTable(label)
  const own = processTree(table, root, ...[...table].filter(([, p]) => p.labelled).map(([pid]) => pid))
  const processes = new Map([...table].map(([pid, { ns }]) => [pid, { ns, own: own.has(pid) }]))
  const runnable = Number(/^procs_running (\d+)/m.exec(stat)?.[1] ?? 0)
  const load1 = Number(fs.readFileSync(procPath('loadavg'), 'latin1').split(' ')[0])
  return { at: performance.now(), cpu: readCpuLine(stat), processes, runnable, load1 }
}

// A sample without /proc: the machine's busy and total CPU time in ms from os.cpus() (null where it has none, as on Linux
// without /proc), this process's own CPU in µs, the load average.
function portableSample () {
  const cpus = os.cpus()
  const busy = cpus.reduce((sum, c) => sum + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0)
  const total = busy + cpus.reduce((sum, c) => sum + c.times.idle, 0)
  const self = process.cpuUsage()
  return { at: performance.now(), busyMs: cpus.length ? busy : null, totalMs: total, selfUs: self.user + self.system, load1: os.loadavg()[0] }
}

// What others took between two portable samples: the machine's busy time less the run's own (this process's, plus ownUs:
// the CPU its servers and clients reported for the windows between them). Steal, iowait and runnable threads are not
// measured (null), and neither is anything where os.cpus() has no times.
function portableBetween (a, b, ownUs) {
  const round = (x) => (x === null ? null : Number(x.toFixed(4)))
  const none = { own: null, other: null, steal: null, iowait: null, interference: null }
  const seconds = (b.at - a.at) / 1000
  const totalMs = b.totalMs - a.totalMs
  if (a.busyMs === null || b.busyMs === null || totalMs <= 0) return { seconds: round(seconds), ...none, runnable: null, load1: b.load1 }
  const own = Math.min(1, ((b.selfUs - a.selfUs + ownUs) / 1000) / totalMs)
  const other = Math.max(0, (b.busyMs - a.busyMs) / totalMs - own)
  return { seconds: round(seconds), ...none, own: round(own), other: round(other), interference: round(other), runnable: null, load1: b.load1 }
}

/**
 * What happened between two samples, as shares of the machine's CPU time (all cores): the run's own
 * processes, other processes (every thread's run time outside the run's process tree; a process
 * that began after a counts from its start, one that ended before b is not seen), steal and iowait
 * (from /proc/stat's ticks); interference is other + steal, the share the run could not have. The
 * runnable threads and load average are b's. Without /proc: see portableBetween; a figure not measured is null.
 * @param {object} a sampleMachine's
 * @param {object} b a later one
 * @param {number} [ownUs] without /proc: the CPU the run's servers and clients reported between a and b, in µs
 * @returns {{ seconds: number, own: number|null, other: number|null, steal: number|null, iowait: number|null,
 *   interference: number|null, runnable: number|null, load1: number }}
 */
function interferenceBetween (a, b, ownUs = 0) {
  if (a.processes === undefined) return portableBetween(a, b, ownUs)
  const seconds = (b.at - a.at) / 1000
  const capacityNs = seconds * 1e9 * CPUS
  let ownNs = 0
  let otherNs = 0
  for (const [pid, p] of b.processes) {
    const delta = p.ns - (a.processes.get(pid)?.ns ?? 0)
    if (delta <= 0) continue
    if (p.own) ownNs += delta
    else otherNs += delta
  }
  const d = Object.fromEntries(STATES.map((s) => [s, b.cpu[s] - a.cpu[s]]))
  const ticks = STATES.reduce((sum, s) => sum + d[s], 0)
  const tickShare = (n) => (ticks > 0 ? Math.max(0, n) / ticks : 0)
  const share = (ns) => (capacityNs > 0 ? Math.min(1, ns / capacityNs) : 0)
  const round = (x) => Number(x.toFixed(4))
  const other = share(otherNs)
  const steal = tickShare(d.steal)
  return {
    seconds: round(seconds),
    own: round(share(ownNs)),
    other: round(other),
    steal: round(steal),
    iowait: round(tickShare(d.iowait)),
    interference: round(other + steal),
    runnable: b.runnable,
    load1: b.load1
  }
}

module.exports = { sampleMachine, interferenceBetween, processTree, processTable, MAX_INTERFERENCE }
