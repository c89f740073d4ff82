'use strict'
// The server's telemetry window (GET /_stats, POST /_stats/reset, servers/lib/telemetry.js): the
// primary resets it as the measured phase starts and reads it as it ends. A server without these
// routes gets no figures and a reason, never a failed run.

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

/**
 * Starts a new telemetry window on the server (POST /_stats/reset).
 * @param {object} config a validated config (server address, timeout)
 * @returns {Promise<string|null>} null when the server reset it, else why not
 */
async function resetServerStats (config) {
  try {
    const { status } = await send(config, 'POST', '/_stats/reset')
    return status === 200 ? null : `server stats: POST /_stats/reset answered ${status} (a server without telemetry?)`
  } catch (err) {
    return `server stats: POST /_stats/reset failed: ${err.message}`
  }
}

/**
 * Reads the telemetry window (GET /_stats).
 * @param {object} config a validated config
 * @returns {Promise<{ stats: object|null, problem: string|null }>} stats: the server's document as is
 */
async function readServerStats (config) {
  let res
  try {
    res = await send(config, 'GET', '/_stats')
  } catch (err) {
    return { stats: null, problem: `server stats: GET /_stats failed: ${err.message}` }
  }
  if (res.status !== 200) return { stats: null, problem: `server stats: GET /_stats answered ${res.status}` }
  let doc = null
  try { doc = JSON.parse(res.body) } catch {}
  return isTelemetry(doc)
    ? { stats: doc, problem: null }
    : { stats: null, problem: 'server stats: GET /_stats answered something other than telemetry JSON' }
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

module.exports = { resetServerStats, readServerStats, formatServerStats }
