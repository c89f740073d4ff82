'use strict'
// One serving process's http.Server, built with every HTTP limit set (the pipelining limit, the
// telemetry announcement), and stopped gracefully. Used by launch (one process) and primary (workers).

const http = require('node:http')
const { createApp } = require('./app')
const { createHttpApp } = require('./http-app')
const { createSyncStore, createAsyncStore } = require('./store')
const { createPoolStore } = require('./store-pool')
const { STATS_FIELD, STATS_PATH } = require('../../lib/serving/process-telemetry')
const { log, STOP_GRACE_MS } = require('../../lib/serving/process-io')
const { limitPipelining } = require('./pipeline')
const { KINDS, isMultiProcess } = require('../../lib/kinds')

const STORES = { sync: createSyncStore, async: createAsyncStore }
const PIPELINE_LIMIT = 16 // requests of one connection in the app at once (servers/lib/pipeline.js)

/**
 * Builds the http.Server for one process, with every HTTP limit set explicitly.
 * @param {string} kind a name in lib/kinds.js
 * @param {object} config a validated config
 * @param {object} stats this process's telemetry (lib/serving/process-telemetry.js)
 * @param {object} [faults] where storage faults go (lib/serving/faults.js)
 * @returns {http.Server}
 */
function createServer (kind, config, stats, faults) {
  // The processes of a multi-process kind (cluster or reuseport) append to shared files; the pool
  // kind's threads do too (its store makes them so).
  const store = KINDS[kind].model === 'pool' ? createPoolStore(config) : STORES[KINDS[kind].store](config, { shared: isMultiProcess(kind) })
  const build = config.framework === 'http' ? createHttpApp : createApp
  const app = build({ config, store, stats, log, faults })
  const server = http.createServer({
    headersTimeout: config.headersTimeout,
    requestTimeout: config.requestTimeout,
    keepAliveTimeout: config.keepAliveTimeout,
    maxHeaderSize: config.maxHeaderSize,
    // Node checks the two timeouts above only this often (30 s by default).
    connectionsCheckingInterval: Math.max(100, Math.min(1000, config.headersTimeout / 4))
  }, limitPipelining(app, PIPELINE_LIMIT))
  server.on('close', () => store.close?.()) // the pool's threads
  server.busyTasks = () => store.busy?.() ?? 0
  // Counted outside express so that the count costs no middleware layer. Every answer announces
  // the telemetry routes: the client asks for them only of a server that does (client/server-stats.js).
  // Before express, which may answer at once.
  server.prependListener('request', (req, res) => {
    res.setHeader(STATS_FIELD, STATS_PATH)
    if (!req.url.startsWith(STATS_PATH)) stats.count()
  })
  return server
}

/**
 * Stops accepting, lets in-flight requests finish, then exits 0; force-closes at the grace limit.
 * There, a pool thread still in a system call (a read that never returns) would keep process.exit
 * waiting for it forever: the process ends by SIGKILL instead, saying so.
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
    const busy = server.busyTasks?.() ?? 0
    if (busy > 0) {
      log(`${busy} pool task(s) still running ${STOP_GRACE_MS} ms after the stop; ending by SIGKILL`)
      process.kill(process.pid, 'SIGKILL')
    }
    process.exit(0)
  }, STOP_GRACE_MS).unref()
}

module.exports = { createServer, stopServer }
