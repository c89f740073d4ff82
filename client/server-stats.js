'use strict'
// The server's telemetry window (GET /_stats, POST /_stats/reset, servers/lib/telemetry.js): the
// primary resets it as the measured phase starts and reads it as it ends. Asked only of a server
// that announced it (X-Bench-Stats) unless --serverStats=true: a foreign server is never sent a
// request outside the experiment's interface. Without it: no figures and a reason, never a failure.

const http = require('node:http')

// One request on its own connection, outside the client processes' records. Resolves with
// { status, body }; rejects with an Error whose message says what went wrong.
function send ({ serverHostname, serverPort, timeout }, method, path) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: serverHostname, port: serverPort, method, path, agent: false }, (res) => {
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
 * @returns {Promise<string|null>} null when the server reset it, else why not
 */
async function resetServerStats (config, path = DEFAULT_PATH) {
  try {
    const { status } = await send(config, 'POST', `${path}/reset`)
    return status === 200 ? null : `server stats: POST ${path}/reset answered ${status} (a server without telemetry?)`
  } catch (err) {
    return `server stats: POST ${path}/reset failed: ${err.message}`
  }
}

/**
 * Reads the telemetry window (GET PATH).
 * @param {object} config a validated config
 * @param {string} [path] where the telemetry is
 * @returns {Promise<{ stats: object|null, problem: string|null }>} stats: the server's document as is
 */
async function readServerStats (config, path = DEFAULT_PATH) {
  let res
  try {
    res = await send(config, 'GET', path)
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

module.exports = { planServerStats, resetServerStats, readServerStats, formatServerStats }
