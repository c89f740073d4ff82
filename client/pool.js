'use strict'
// A pool of client processes kept alive for a sweep round (client/pool-worker.js): the sweep opens
// a load generator per cell in the first nClients processes of the pool and drives the cells in
// windows of measured operations, all of a cell's processes starting together.

const { spawn } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { onGone } = require('../lib/machine/child-gone')
const { mergeRecords, deserializeRecord } = require('./stats')
const { OPEN_LOOP_LEAD_NS } = require('./load')
const { forkRemote } = require('../lib/machine/remote-fork')

const WORKER = path.join(__dirname, 'pool-worker.js')

class PoolError extends Error {}

// When the last of the processes' replies says it ended (hrtime), or t0 if none is later.
const lastEnd = (replies, t0) => replies.reduce((last, r) => (BigInt(r.endedAt) > last ? BigInt(r.endedAt) : last), t0)

/**
 * Starts the pool's processes.
 * @param {{ size: number, execPath?: string, prefix?: string[], logFd: number, label?: string,
 *   remote?: { hosts: object[], ssh: string[], dir: string, node: string }|null }} how
 *   execPath: the node binary; prefix: a command that execs node where it should run (taskset ...);
 *   logFd: where the processes' stdout and stderr go, after a line naming each; label: an argument
 *   that names the run on their command lines (a sweep passes its data folder); remote: the client
 *   hosts, process k on the ((k - 1) mod n)th of them, through ssh (lib/machine/remote-fork.js), on Node `node`
 * @returns {object} the pool: open, phase, window, probe, settle, take, drop, close, pids, alive
 */
function openPool ({ size, execPath = process.execPath, prefix = [], logFd, label, remote = null }) {
  const workers = Array.from({ length: size }, (_, k) => (remote
    ? startRemote(remote.hosts[k % remote.hosts.length], remote, logFd, label)
    : startWorker(execPath, prefix, logFd, label)))
  const each = (n, msg) => Promise.all(workers.slice(0, n).map((w, k) => ask(w, typeof msg === 'function' ? msg(k + 1) : msg)))
  return {
    pids: () => workers.map((w) => w.child.pid),
    /** Whether every process is still there. */
    alive: () => workers.every((w) => w.gone === null),
    /** A load generator for the cell in processes 1..config.nClients. */
    open: (cell, config, runId) => each(config.nClients, (index) => ({ op: 'open', cell, task: { config, index, runId } })),
    /** Runs create or warm; resolves with the failed operations and what the server announced (X-Bench-Stats), or null. */
    phase: async (cell, n, phase) => {
      const replies = await each(n, { op: 'phase', cell, phase })
      return { failed: replies.reduce((a, r) => a + r.failed, 0), announced: replies.find((r) => r.announced !== null)?.announced ?? null }
    },
    /** What the cell's GETs must answer from now on (client/get-check.js): its files' sizes, and whether to compare bytes. */
    expect: (cell, n, expected) => each(n, { op: 'expect', cell, expected }),
    /**
     * One window: operations from..to-1 of each of the cell's n processes, started together.
     * @returns {Promise<{ wallUs: number, wallsUs: number[], failed: number, failures: object, cpuUs: Array<{ user: number, system: number }> }>}
     *   wall time to the last process's end, and to each one's; the operations that failed, and how many of each kind; each process's CPU time
     */
    window: async (cell, n, from, to) => {
      const t0 = process.hrtime.bigint()
      const replies = await each(n, { op: 'window', cell, from, to, t0: String(t0) })
      return {
        wallUs: Number(lastEnd(replies, t0) - t0) / 1000,
        wallsUs: replies.map((r) => Number(BigInt(r.endedAt) - t0) / 1000),
        failed: replies.reduce((a, r) => a + r.failed, 0),
        failures: replies.reduce((all, r) => {
          for (const [kind, n] of Object.entries(r.failures ?? {})) all[kind] = (all[kind] ?? 0) + n
          return all
        }, {}),
        cpuUs: replies.map((r) => r.cpuUs)
      }
    },
    /**
     * A capacity probe: the cell's n processes together send `rate` requests a second for `seconds`,
     * open loop, from 50 ms after the call (so that every process has the message first); lateMs: how
     * late a release counts as late (client/load.js probe).
     * @returns {Promise<{ failed: number, late: number, sent: number, wallS: number, lagS: number, cpu: number, delayUs: object,
     *   slices: Array<{ GET: object, PUT: object }> }>} wallS: from the first due time to the last answer; lagS, cpu, delayUs: the
     *   generator's own figures, each the worst process's (client/pool-worker.js); slices: per second, the records of the processes
     *   merged (client/stats.js)
     */
    probe: async (cell, n, rate, seconds, lateMs) => {
      const t0 = String(process.hrtime.bigint() + OPEN_LOOP_LEAD_NS)
      // Process k sends operations i whose due time ((i * n + k - 1) / rate s) is within the probe.
      const replies = await each(n, (k) => ({ op: 'probe', cell, rate, seconds, t0, lateMs, to: Math.max(0, Math.ceil((seconds * rate - (k - 1)) / n)) }))
      const slices = Array.from({ length: seconds }, (_, s) => Object.fromEntries(['GET', 'PUT'].map((type) =>
        [type, mergeRecords(replies.map((r) => deserializeRecord(r.slices[s][type])))])))
      const sum = (key) => replies.reduce((a, r) => a + r[key], 0)
      const worst = (values) => Math.max(0, ...values)
      return { failed: sum('failed'), late: sum('late'), sent: sum('sent'), wallS: Number(lastEnd(replies, BigInt(t0)) - BigInt(t0)) / 1e9, slices,
        lagS: worst(replies.map((r) => r.lagS)), cpu: worst(replies.map((r) => r.cpu)),
        delayUs: Object.fromEntries(Object.keys(replies[0]?.delayUs ?? {}).map((name) => [name, worst(replies.map((r) => r.delayUs[name]))])) }
    },
    /** Keeps or drops the pending windows of every cell. */
    settle: (keep) => each(size, { op: 'settle', keep }),
    /** Forgets a cell in every process, closing its connections. */
    drop: (cell) => each(size, { op: 'drop', cell }),
    /** Each process's result for the cell since the last take (client/load.js take()), in process order. */
    take: async (cell, n) => (await each(n, { op: 'take', cell })).map((r, k) => ({
      index: k + 1, pid: workers[k].child.pid, host: workers[k].child.host ?? null, result: r.result
    })),
    /** Ends the processes (they exit when their channel closes). */
    close: () => Promise.all(workers.map(async (w) => {
      if (w.child.connected) w.child.disconnect()
      await w.closed
    }))
  }
}

function startWorker (execPath, prefix, logFd, label) {
  const [command, ...args] = [...prefix, execPath, WORKER, ...(label ? [label] : [])]
  const child = spawn(command, args, { stdio: ['ignore', logFd, logFd, 'ipc'] })
  const shown = [...prefix, execPath === process.execPath ? 'node' : execPath, path.relative(path.dirname(__dirname), WORKER), ...(label ? [label] : [])]
  fs.writeSync(logFd, `# ${new Date().toISOString()} started pid ${child.pid} (client pool): ${shown.join(' ')}\n`)
  return watch(child)
}

function startRemote (host, { ssh, dir, node }, logFd, label) {
  const child = forkRemote(host, 'client/pool-worker.js', label ? [label] : [], { ssh, dir, node, stderr: logFd })
  fs.writeSync(logFd, `# ${new Date().toISOString()} started pid ${child.pid} (client pool): ssh ${host.text} client/pool-worker.js on Node ${node}\n`)
  return watch(child)
}

// The pool's side of a process: its replies matched to the requests, and its end.
function watch (child) {
  const worker = { child, next: 0, waiting: new Map(), gone: null }
  child.on('message', (msg) => {
    const pending = worker.waiting.get(msg.id)
    worker.waiting.delete(msg.id)
    pending?.resolve(msg)
  })
  worker.closed = new Promise((resolve) => onGone(child, (code, signal) => {
    worker.gone = new PoolError(`client process ${child.pid} ended (${signal || `code ${code}`})`)
    for (const pending of worker.waiting.values()) pending.reject(worker.gone)
    worker.waiting.clear()
    resolve()
  }))
  child.on('error', () => {}) // a failed spawn also closes
  return worker
}

function ask (worker, msg) {
  if (worker.gone) return Promise.reject(worker.gone)
  return new Promise((resolve, reject) => {
    const id = worker.next++
    worker.waiting.set(id, { resolve, reject })
    worker.child.send({ ...msg, id })
  })
}

module.exports = { openPool, PoolError }
