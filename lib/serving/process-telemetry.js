'use strict'
// Server telemetry behind GET /_stats and POST /_stats/reset: event-loop delay and utilization,
// CPU time and requests served, per process; a cluster worker gathers its siblings via the primary.

const { monitorEventLoopDelay, performance } = require('node:perf_hooks')
const { fairness, meanUtilization } = require('../median')
const { createProfiler } = require('./profiler')
const { currentRuntime } = require('../install/runtime-specs')

const GATHER_TIMEOUT_MS = 2000
const STATS_PATH = '/_stats' // GET: the figures; POST STATS_PATH/reset: a new window
const STATS_FIELD = 'X-Bench-Stats' // every answer's announcement of STATS_PATH
// Node 20's histogram holds each sampling interval plus its delay (an idle loop reads ~10 ms):
// the interval is subtracted so that the figures are the delay alone.
const RESOLUTION_MS = 10

/**
 * The figures of this process since the last reset; begin() and finish() also start and end its
 * profile of the window when the sweep asked for one (lib/serving/profiler.js).
 */
function createMonitor (role) {
  const profiler = createProfiler()
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
  delay.enable()
  let since, sinceNs, elu, cpu, requests, rssBytes
  // The most memory resident in the window: sampled every 50 ms and at its end (a read of /proc/self/stat; the lifetime
  // maxRSS keeps the start-up's peak, the same for every cell a server serves). libuv reads it from /proc on Linux: where
  // that cannot be read, it is not measured (null).
  const rss = typeof process.memoryUsage.rss === 'function' ? process.memoryUsage.rss : () => process.memoryUsage().rss
  const sampleRss = () => {
    try {
      if (rssBytes !== null) rssBytes = Math.max(rssBytes, rss())
    } catch {
      rssBytes = null
    }
  }
  setInterval(sampleRss, 50).unref()
  const reset = () => {
    delay.reset()
    rssBytes = rssBytes === null ? null : 0
    sampleRss()
    since = performance.now()
    sinceNs = process.hrtime.bigint()
    elu = performance.eventLoopUtilization()
    cpu = process.cpuUsage()
    requests = 0
  }
  reset()
  const us = (ns) => Math.max(0, Math.round((ns - RESOLUTION_MS * 1e6) / 1000))
  const snapshot = () => {
    const { user, system } = process.cpuUsage(cpu)
    // Node's histogram holds the intervals between its timer's runs, about the resolution (9.1 ms the least seen idle, under
    // 9 on a loaded machine: a late run brings the next one closer); Bun's and Deno's hold something else (µs), and their
    // utilization stays 0/0: null there, not a figure to compare with Node's.
    const hasDelay = delay.count > 0 && !process.versions.bun && !process.versions.deno
    const loop = performance.eventLoopUtilization(elu)
    sampleRss()
    return {
      pid: process.pid,
      role,
      node: process.version,
      runtime: currentRuntime(),
      requests,
      windowMs: Math.round(performance.now() - since),
      // The window on the monotonic clock (perf's -k CLOCK_MONOTONIC), for --profile's samples.
      startNs: Number(sinceNs),
      endNs: Number(process.hrtime.bigint()),
      utilization: loop.idle + loop.active > 0 ? loop.utilization : null,
      cpuUs: { user, system },
      // The most memory the process has held since it started (KiB), where the runtime tells.
      maxRssKiB: typeof process.resourceUsage === 'function' ? process.resourceUsage().maxRSS : null,
      windowRssKiB: rssBytes === null ? null : Math.round(rssBytes / 1024),
      eventLoopDelayUs: {
        min: hasDelay ? us(delay.min) : null,
        mean: hasDelay ? us(delay.mean) : null,
        p50: hasDelay ? us(delay.percentile(50)) : null,
        p99: hasDelay ? us(delay.percentile(99)) : null,
        max: hasDelay ? us(delay.max) : null
      }
    }
  }
  return {
    count: () => { requests++ },
    reset,
    snapshot,
    // The profiler starts before the window's figures and stops after them: its own work is in neither.
    begin: async () => {
      await profiler?.start()
      reset()
    },
    finish: async () => ({ ...snapshot(), ...await profiler?.stop() })
  }
}

/** Totals over the processes, with Jain's fairness index of the requests the workers served. */
function summarize (kind, processes) {
  const servers = processes.filter((p) => p.role !== 'primary')
  const requests = servers.map((p) => p.requests)
  const total = requests.reduce((a, b) => a + b, 0)
  return {
    kind,
    processes,
    totals: {
      requests: total,
      cpuUs: processes.reduce((a, p) => a + p.cpuUs.user + p.cpuUs.system, 0),
      meanUtilization: meanUtilization(servers),
      share: requests.map((n) => (total ? n / total : 0)),
      fairness: fairness(requests)
    }
  }
}

/** Stats of a single-process server. */
function localStats (kind, monitor) {
  return {
    count: monitor.count,
    collect: async () => summarize(kind, [await monitor.finish()]),
    reset: monitor.begin
  }
}

/** Stats of a cluster worker: every question goes to the primary, which asks all workers. */
function workerStats (kind, monitor) {
  let nextId = 0
  const pending = new Map()
  process.on('message', async (msg) => {
    if (msg?.type === 'stats-ask') {
      if (msg.op === 'reset') await monitor.begin()
      process.send({ type: 'stats-answer', id: msg.id, snapshot: msg.op === 'reset' ? monitor.snapshot() : await monitor.finish() })
    } else if (msg?.type === 'stats-result' && pending.has(msg.id)) {
      pending.get(msg.id)(msg.processes)
      pending.delete(msg.id)
    }
  })
  const ask = (op) => new Promise((resolve) => {
    const id = nextId++
    pending.set(id, resolve)
    process.send({ type: 'stats-gather', id, op })
  })
  return {
    count: monitor.count,
    collect: async () => summarize(kind, await ask('collect')),
    reset: async () => { await ask('reset') }
  }
}

/**
 * Serves the workers' gather requests in a cluster primary.
 * @param {Set} live the primary's live workers
 * @param {object} monitor the primary's own monitor
 * @returns {(worker, msg) => void} to call with every worker message
 */
function primaryStats (live, monitor) {
  let nextId = 0
  const waiting = new Map()
  const askWorker = (worker, op) => new Promise((resolve) => {
    const id = nextId++
    const done = (snapshot) => { clearTimeout(timer); waiting.delete(id); resolve(snapshot) }
    const timer = setTimeout(done, GATHER_TIMEOUT_MS, null) // a worker that just died answers nothing
    waiting.set(id, done)
    worker.send({ type: 'stats-ask', id, op })
  })
  return async (from, msg) => {
    if (msg?.type === 'stats-answer') return waiting.get(msg.id)?.(msg.snapshot)
    if (msg?.type !== 'stats-gather') return
    const workers = [...live].filter((w) => w.isConnected())
    const [own, ...snapshots] = await Promise.all([
      msg.op === 'reset' ? monitor.begin().then(monitor.snapshot) : monitor.finish(),
      ...workers.map((w) => askWorker(w, msg.op))
    ])
    if (from.isConnected()) {
      from.send({ type: 'stats-result', id: msg.id, processes: [own, ...snapshots.filter(Boolean)] })
    }
  }
}

module.exports = { createMonitor, summarize, localStats, workerStats, primaryStats, STATS_PATH, STATS_FIELD }
