'use strict'
// What else used the machine while a run measured: samples of every thread's run time
// (/proc/PID/task/TID/schedstat, in ns), of /proc/stat (steal and iowait, runnable threads) and
// /proc/loadavg; the run's own processes are this one and its descendants (servers, clients,
// storage daemons, HAProxy). The difference of two samples says which share of the machine's CPU
// other processes and the hypervisor (steal) took. Linux only.

const fs = require('node:fs')
const os = require('node:os')
const { readStat } = require('./proc')

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
  for (const name of fs.readdirSync('/proc')) {
    if (name.charCodeAt(0) > 57) continue // not a pid
    try {
      const stat = readStat(name)
      if (stat === null) continue // it ended while we looked
      let ns = 0
      for (const tid of fs.readdirSync(`/proc/${name}/task`)) {
        const text = fs.readFileSync(`/proc/${name}/task/${tid}/schedstat`, 'latin1')
        ns += Number(text.slice(0, text.indexOf(' ')))
      }
      const labelled = label !== null && fs.readFileSync(`/proc/${name}/cmdline`, 'latin1').includes(label)
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
  const stat = fs.readFileSync('/proc/stat', 'latin1')
  const table = processTable(label)
  const own = processTree(table, root, ...[...table].filter(([, p]) => p.labelled).map(([pid]) => pid))
  const processes = new Map([...table].map(([pid, { ns }]) => [pid, { ns, own: own.has(pid) }]))
  const runnable = Number(/^procs_running (\d+)/m.exec(stat)?.[1] ?? 0)
  const load1 = Number(fs.readFileSync('/proc/loadavg', 'latin1').split(' ')[0])
  return { at: performance.now(), cpu: readCpuLine(stat), processes, runnable, load1 }
}

/**
 * What happened between two samples, as shares of the machine's CPU time (all cores): the run's own
 * processes, other processes (every thread's run time outside the run's process tree; a process
 * that began after a counts from its start, one that ended before b is not seen), steal and iowait
 * (from /proc/stat's ticks); interference is other + steal, the share the run could not have. The
 * runnable threads and load average are b's.
 * @param {object} a sampleMachine's
 * @param {object} b a later one
 * @returns {{ seconds: number, own: number, other: number, steal: number, iowait: number, interference: number,
 *   runnable: number, load1: number }}
 */
function interferenceBetween (a, b) {
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
