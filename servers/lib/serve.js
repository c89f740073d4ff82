'use strict'
// One serving process's http.Server, built with every HTTP limit set, and stopped gracefully; the
// ready line and the listen-error line every process model prints. Used by launch and supervisor.

const http = require('node:http')
const { createApp } = require('./app')
const { createSyncStore, createAsyncStore } = require('./store')
const { KINDS } = require('../../lib/kinds')

const STORES = { sync: createSyncStore, async: createAsyncStore }
const STOP_GRACE_MS = 4000 // SIGTERM to exit stays under 5 s

const log = (line) => process.stderr.write(`[${process.pid}] ${line}\n`)

/**
 * Builds the http.Server for one process, with every HTTP limit set explicitly.
 * @param {string} kind a name in lib/kinds.js
 * @param {object} config a validated config
 * @param {object} stats this process's telemetry (servers/lib/telemetry.js)
 * @returns {http.Server}
 */
function createServer (kind, config, stats) {
  const app = createApp({ config, store: STORES[KINDS[kind].store](config), stats, log })
  const server = http.createServer({
    headersTimeout: config.headersTimeout,
    requestTimeout: config.requestTimeout,
    keepAliveTimeout: config.keepAliveTimeout,
    maxHeaderSize: config.maxHeaderSize,
    // Node checks the two timeouts above only this often (30 s by default).
    connectionsCheckingInterval: Math.max(100, Math.min(1000, config.headersTimeout / 4))
  }, app)
  // Counted outside express so that the count costs no middleware layer.
  server.on('request', (req) => { if (!req.url.startsWith('/_stats')) stats.count() })
  return server
}

/**
 * @param {Error} err the server's 'error'
 * @param {object} config
 * @returns {string} one line naming the port and why it cannot be listened on
 */
function portInUse (err, config) {
  return err.code === 'EADDRINUSE'
    ? `port ${config.serverPort} on ${config.serverHostname} is already in use`
    : `cannot listen on ${config.serverHostname}:${config.serverPort}: ${err.code || err.message}`
}

/**
 * @returns {string} the line on stdout once every serving process listens
 */
function readyLine (kind, config, port, workers) {
  return `listening http://${config.serverHostname}:${port} kind=${kind} workers=${workers} pid=${process.pid}\n`
}

/**
 * Stops accepting, lets in-flight requests finish, then exits 0; force-closes at the grace limit.
 * @param {http.Server} server
 */
function stopServer (server) {
  if (server.stopping) return
  server.stopping = true
  if (!server.listening) process.exit(0)
  server.close(() => process.exit(0))
  // A keep-alive connection becomes idle when its last response is sent: close it then.
  setInterval(() => server.closeIdleConnections(), 50).unref()
  setTimeout(() => {
    server.closeAllConnections()
    process.exit(0)
  }, STOP_GRACE_MS).unref()
}

module.exports = { createServer, portInUse, readyLine, stopServer, log, STOP_GRACE_MS }
