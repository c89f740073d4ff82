'use strict'
// The server's telemetry window (GET /_stats, POST /_stats/reset, lib/serving/process-telemetry.js): the
// primary resets it as the measured phase starts and reads it as it ends. Asked only of a server
// that announced it (X-Bench-Stats) unless --serverStats=true: a foreign server is never sent a
// request outside the experiment's interface. Without it: no figures and a reason, never a failure.

const http = require('node:http')
const { median, fairness, meanUtilization } = require('../lib/median')

// One request outside the client processes' records, on its own connection (or the caller's
// keep-alive agent: a sweep asks a cell's server twice a window). Resolves with { status, body };
// rejects with an Error whose message says what went wrong.
function send ({ serverHostname, serverPort, timeout }, method, path, agent = false) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: serverHostname, port: serverPort, method, path, agent }, (res) => {
      const chunks = []
      res.on('data', (chunk) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', (err) => reject(new Error(err.code || err.message)))
    })
    req.setTimeout(timeout, () => req.destroy(new Error(`no answer in ${timeout} ms`)))
    req.on('error', (err) => reject(new Error(err.code || err.message)))
    req.end()
  })
}

// What a telemetry document must hold for the report and its summary line.
function isTelemetry (doc) {
  return doc !== null && typeof doc === 'object' && Array.isArray(doc.processes) &&
    doc.totals !== null && typeof doc.totals === 'object' && Number.isInteger(doc.totals.requests)
}

const DEFAULT_PATH = '/_stats'
const PATH = /^\/[!-~]{0,200}$/ // what an announced path may be: it goes into a request line

/**
 * Whether to ask the server for its telemetry, and where.
 * @param {{ serverStats: 'auto'|boolean, warmup: number }} config
 * @param {string|null} announced the X-Bench-Stats value the warm-up answers carried, if any
 * @returns {{ path: string|null, problem: string|null }} path null: not asked, and why (null if told to)
 */
function planServerStats ({ serverStats, warmup }, announced) {
  const valid = announced !== null && PATH.test(announced)
  if (serverStats === true) return { path: valid ? announced : DEFAULT_PATH, problem: null }
  if (serverStats === false) return { path: null, problem: null }
  if (valid) return { path: announced, problem: null }
  const why = warmup === 0 ? 'there was no warm-up (--warmup=0) to see' : 'its warm-up answers did not carry'
  return { path: null, problem: `server stats: not asked: ${why} an X-Bench-Stats field (--serverStats=true asks anyway)` }
}

/**
 * Starts a new telemetry window on the server (POST PATH/reset).
 * @param {object} config a validated config (server address, timeout)
 * @param {string} [path] where the telemetry is
 * @param {import('node:http').Agent|false} [agent] a keep-alive agent, or false for a connection of its own
 * @returns {Promise<string|null>} null when the server reset it, else why not
 */
async function resetServerStats (config, path = DEFAULT_PATH, agent = false) {
  try {
    const { status } = await send(config, 'POST', `${path}/reset`, agent)
    return status === 200 ? null : `server stats: POST ${path}/reset answered ${status} (a server without telemetry?)`
  } catch (err) {
    return `server stats: POST ${path}/reset failed: ${err.message}`
  }
}

/**
 * Reads the telemetry window (GET PATH).
 * @param {object} config a validated config
 * @param {string} [path] where the telemetry is
 * @param {import('node:http').Agent|false} [agent] as for resetServerStats
 * @returns {Promise<{ stats: object|null, problem: string|null }>} stats: the server's document as is
 */
async function readServerStats (config, path = DEFAULT_PATH, agent = false) {
  let res
  try {
    res = await send(config, 'GET', path, agent)
  } catch (err) {
    return { stats: null, problem: `server stats: GET ${path} failed: ${err.message}` }
  }
  if (res.status !== 200) return { stats: null, problem: `server stats: GET ${path} answered ${res.status}` }
  let doc = null
  try { doc = JSON.parse(res.body) } catch {}
  return isTelemetry(doc)
    ? { stats: doc, problem: null }
    : { stats: null, problem: `server stats: GET ${path} answered something other than telemetry JSON` }
}

/**
 * The line of the stderr summary about the server's window.
 * @param {object} stats a telemetry document
 * @returns {string}
 */
function formatServerStats ({ processes, totals }) {
  const p99s = processes.map((p) => p.eventLoopDelayUs?.p99).filter(Number.isFinite)
  const fixed = (x, digits) => Number.isFinite(x) ? x.toFixed(digits) : '-'
  return `  server: ${totals.requests} requests, event-loop utilization ${fixed(totals.meanUtilization, 3)} (mean), ` +
    `delay p99 ${p99s.length > 0 ? Math.max(...p99s) : '-'} µs (max over ${processes.length} processes), fairness ${fixed(totals.fairness, 3)}`
}

/**
 * Several telemetry windows of one server (a sweep round's windows of a cell) as one: per process,
 * requests, CPU and window time add up, utilization is weighted by window time, and the event-loop
 * delay figures are the median of the windows' (min the least, max the most); the totals and
 * HAProxy's part are made again from the sums.
 * @param {object[]} docs telemetry documents (GET /_stats)
 * @returns {object|null} null without a document
 */
function mergeServerStats (docs) {
  if (docs.length === 0) return null
  const byPid = new Map()
  for (const doc of docs) {
    for (const p of doc.processes) {
      const m = byPid.get(p.pid) ?? { pid: p.pid, role: p.role, node: p.node, runtime: p.runtime, requests: 0, windowMs: 0, busyMs: 0,
        cpuUs: { user: 0, system: 0 }, delays: [], maxRssKiB: 0, windowRssKiB: 0 }
      m.requests += p.requests
      m.maxRssKiB = Number.isFinite(p.maxRssKiB) && m.maxRssKiB !== null ? Math.max(m.maxRssKiB, p.maxRssKiB) : null // null: not told
      m.windowRssKiB = Number.isFinite(p.windowRssKiB) && m.windowRssKiB !== null ? Math.max(m.windowRssKiB, p.windowRssKiB) : null
      m.windowMs += p.windowMs
      m.busyMs += p.utilization === null ? NaN : p.utilization * p.windowMs // null: a runtime without the figure
      m.cpuUs.user += p.cpuUs.user
      m.cpuUs.system += p.cpuUs.system
      m.delays.push(p.eventLoopDelayUs ?? {})
      byPid.set(p.pid, m)
    }
  }
  const processes = [...byPid.values()].map(({ busyMs, delays, ...p }) => {
    const of = (key) => delays.map((d) => d[key]).filter(Number.isFinite)
    return {
      ...p,
      utilization: Number.isNaN(busyMs) ? null : p.windowMs > 0 ? busyMs / p.windowMs : 0,
      eventLoopDelayUs: {
        min: of('min').length > 0 ? Math.min(...of('min')) : null,
        mean: median(of('mean')),
        p50: median(of('p50')),
        p99: median(of('p99')),
        max: of('max').length > 0 ? Math.max(...of('max')) : null
      }
    }
  })
  const serving = processes.filter((p) => p.role !== 'primary')
  const requests = serving.map((p) => p.requests)
  const total = requests.reduce((a, b) => a + b, 0)
  const balancers = docs.map((d) => d.balancer).filter(Boolean)
  const merged = {
    kind: docs[0].kind,
    processes,
    totals: {
      requests: total,
      cpuUs: docs.reduce((a, d) => a + d.totals.cpuUs, 0),
      meanUtilization: meanUtilization(serving),
      share: requests.map((n) => (total ? n / total : 0)),
      fairness: fairness(requests)
    }
  }
  if (balancers.length > 0) merged.balancer = mergeBalancer(balancers)
  return merged
}

// HAProxy's figures of several windows (balancer/stats.js balancerFigures) as one.
function mergeBalancer (parts) {
  const backends = new Map()
  for (const part of parts) {
    for (const b of part.backends ?? []) {
      const m = backends.get(b.name)
      if (!m) backends.set(b.name, { ...b })
      else for (const [key, value] of Object.entries(b)) if (typeof value === 'number') m[key] += value
    }
  }
  const requests = parts.reduce((a, p) => a + p.requests, 0)
  const cpuUs = parts.reduce((a, p) => a + p.cpuUs, 0)
  return {
    ...parts[parts.length - 1],
    cpuUs,
    requests,
    cpuPerRequestUs: requests > 0 ? Math.round((cpuUs / requests) * 10) / 10 : null,
    fairness: fairness([...backends.values()].map((b) => b.requests)),
    backends: [...backends.values()],
    failed: parts.reduce((a, p) => a + (p.failed ?? 0), 0)
  }
}

module.exports = { planServerStats, resetServerStats, readServerStats, formatServerStats, mergeServerStats }
