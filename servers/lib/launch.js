'use strict'
// Starts a server of one kind: a single process that listens, or a node:cluster primary that
// forks nServers workers. Prints one ready line on stdout; logs go to stderr.

const cluster = require('node:cluster')
const fs = require('node:fs')
const http = require('node:http')
const { loadConfig, runMain, ConfigError } = require('../../lib/config')
const { wantsHelp, entryHelp } = require('../../lib/help')
const { watchParent } = require('../../lib/parent-watch')
const { createApp } = require('./app')
const { createSyncStore, createAsyncStore } = require('./store')
const { createMonitor, localStats, workerStats, STATS_FIELD, STATS_PATH } = require('./telemetry')
const { createFaultLog } = require('./faults')
const { log, loggedFaults, portInUse, readyLine, STOP_GRACE_MS, EXIT_LISTEN_FAILED, PARENT_GONE } = require('./process-io')
const { runPrimary } = require('./primary')
const { limitPipelining } = require('./pipeline')

const KINDS = {
  sync: { store: createSyncStore, cluster: false },
  async: { store: createAsyncStore, cluster: false },
  'sync-cluster': { store: createSyncStore, cluster: true },
  'async-cluster': { store: createAsyncStore, cluster: true }
}
const WORKER_FAULT_WINDOW_MS = 1000 // a worker sends its fault counts to the primary this often
const PIPELINE_LIMIT = 16 // requests of one connection in the app at once (servers/lib/pipeline.js)

/**
 * Builds the http.Server for one process, with every HTTP limit set explicitly.
 * @param {string} kind one of KINDS
 * @param {object} config a validated config
 * @param {object} stats this process's telemetry (servers/lib/telemetry.js)
 * @param {object} [faults] where storage faults go (servers/lib/faults.js)
 * @returns {http.Server}
 */
function createServer (kind, config, stats, faults) {
  const store = KINDS[kind].store(config, { shared: KINDS[kind].cluster })
  const app = createApp({ config, store, stats, log, faults })
  const server = http.createServer({
    headersTimeout: config.headersTimeout,
    requestTimeout: config.requestTimeout,
    keepAliveTimeout: config.keepAliveTimeout,
    maxHeaderSize: config.maxHeaderSize,
    // Node checks the two timeouts above only this often (30 s by default).
    connectionsCheckingInterval: Math.max(100, Math.min(1000, config.headersTimeout / 4))
  }, limitPipelining(app, PIPELINE_LIMIT))
  // Counted outside express so that the count costs no middleware layer. Every answer announces
  // the telemetry routes: the client asks for them only of a server that does (client/server-stats.js).
  // Before express, which may answer at once.
  server.prependListener('request', (req, res) => {
    res.setHeader(STATS_FIELD, STATS_PATH)
    if (!req.url.startsWith(STATS_PATH)) stats.count()
  })
  return server
}

/** Stops accepting, lets in-flight requests finish, then exits 0; force-closes at the grace limit. */
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

function runSingle (kind, config) {
  const server = createServer(kind, config, localStats(kind, createMonitor('single')), loggedFaults())
  server.on('error', (err) => {
    process.stderr.write(`${kind}: ${portInUse(err, config)}\n`)
    process.exit(1)
  })
  server.listen(config.serverPort, config.serverHostname, () => {
    process.stdout.write(readyLine(kind, config, server.address().port, 1))
  })
  for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => stopServer(server))
  watchParent(() => {
    log(`${PARENT_GONE}; stopping`)
    stopServer(server)
  })
}

function runWorker (kind, config) {
  // Faults are counted here and told by the primary, so that a cluster's log says each once.
  const faults = createFaultLog({
    windowMs: WORKER_FAULT_WINDOW_MS,
    emit: (e) => { if (process.connected) process.send({ type: 'fault', ...e }) }
  })
  const server = createServer(kind, config, workerStats(kind, createMonitor('worker')), faults)
  server.on('error', (err) => {
    process.send({ type: 'listen-failed', message: portInUse(err, config) })
    process.exit(EXIT_LISTEN_FAILED)
  })
  server.listen(config.serverPort, config.serverHostname)
  // The primary asks us to stop; a signal to the whole group does too; and if the primary is
  // gone (even by SIGKILL) the IPC channel closes and we must not outlive it.
  const stop = () => {
    faults.flush()
    stopServer(server)
  }
  for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, stop)
  process.on('message', (msg) => { if (msg === 'stop') stop() })
  process.on('disconnect', stop)
}

/**
 * Entry point of servers/<kind>.js.
 * @param {string} kind sync, async, sync-cluster or async-cluster
 * @param {string[]} argv the process's arguments after the script
 */
function launch (kind, argv = process.argv.slice(2)) {
  if (wantsHelp(argv)) {
    return process.stdout.write(entryHelp({
      usage: `node servers/${kind}.js [--config=FILE] [--KEY=VALUE ...]`,
      about: `The ${kind} server: GET /get?key=K, POST /put?key=K, its telemetry at /_stats. When it listens it prints\n` +
        `\`listening http://HOST:PORT kind=${kind} workers=N pid=PID\` on stdout; SIGTERM stops it.`
    }))
  }
  const { config } = runMain(kind, () => {
    const loaded = loadConfig(argv)
    if (loaded.config.fsync === 'group' && KINDS[kind].store === createSyncStore) {
      throw new ConfigError(`fsync=group needs an async kind: a ${kind} server handles one request at a time per process, so no two PUTs can share a flush`)
    }
    try {
      fs.mkdirSync(loaded.config.dataPath, { recursive: true })
    } catch (err) {
      throw new ConfigError(`dataPath ${loaded.config.dataPath} is not a usable folder: ${err.code}`)
    }
    return loaded
  })
  if (!KINDS[kind].cluster) return runSingle(kind, config)
  if (cluster.isPrimary) return runPrimary(kind, config)
  return runWorker(kind, config)
}

module.exports = { launch, createServer, KINDS }
