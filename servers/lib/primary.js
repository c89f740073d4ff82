'use strict'
// The multi-process models, run by servers/lib/launch.js: a primary forks nServers workers with
// node:cluster, prints one ready line once all listen, re-forks one that dies by accident (gives up
// after too many), tells the workers' storage faults once, and stops them all on a signal or when
// its own parent is gone. 'cluster' workers share the primary's listening socket; 'reuseport'
// workers each bind their own on one port (SO_REUSEPORT), so the kernel spreads connections and
// the primary never touches one. A runtime's cluster may be either (Bun's binds a socket per worker):
// the first worker binds the port, then the others are forked to bind the same one.

const cluster = require('node:cluster')
const { KINDS } = require('../../lib/kinds')
const { watchParent } = require('../../lib/machine/parent-watch')
const { createServer, stopServer } = require('./serve')
const { createFaultLog } = require('../../lib/serving/faults')
const { createMonitor, workerStats, primaryStats } = require('../../lib/serving/process-telemetry')
const { log, loggedFaults, portInUse, readyLine, STOP_GRACE_MS, EXIT_LISTEN_FAILED, PARENT_GONE } = require('../../lib/serving/process-io')

const MAX_DEATHS = 5
const DEATH_WINDOW_MS = 10000
const WORKER_FAULT_WINDOW_MS = 1000 // a worker sends its fault counts to the primary this often
const PORT_VAR = 'CBENCH_WORKER_PORT' // the port every worker binds, from its primary
const SOCKET_PER_WORKER = Boolean(process.versions.bun) // Bun's cluster binds in each worker (Deno's shares, as Node's)

/**
 * A worker: serves until the primary asks it to stop, a signal arrives, or the primary is gone.
 * @param {string} kind a cluster or reuseport kind
 * @param {object} config a validated config
 */
function runWorker (kind, config) {
  // Faults are counted here and told by the primary, so that the server's log says each once.
  const faults = createFaultLog({
    windowMs: WORKER_FAULT_WINDOW_MS,
    emit: (e) => { if (process.connected) process.send({ type: 'fault', ...e }) }
  })
  const server = createServer(kind, config, workerStats(kind, createMonitor('worker')), faults)
  const reuse = KINDS[kind].model === 'reuseport'
  const port = Number(process.env[PORT_VAR] ?? config.serverPort)
  server.on('error', (err) => {
    process.send({ type: 'listen-failed', message: portInUse(err, { ...config, serverPort: port }) })
    process.exit(EXIT_LISTEN_FAILED)
  })
  if (reuse) {
    // exclusive: bind a socket of our own rather than ask the primary for its shared one.
    server.listen({ port, host: config.serverHostname, reusePort: true, exclusive: true },
      () => process.send({ type: 'reuseport-listening', port: server.address().port }))
  } else {
    server.listen(port, config.serverHostname)
  }
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
 * Runs the primary of a cluster or reuseport kind.
 * @param {string} kind a multi-process kind of lib/kinds.js
 * @param {object} config a validated config
 */
function runPrimary (kind, config) {
  const reuse = KINDS[kind].model === 'reuseport'
  const live = new Set()
  const deaths = []
  let port = config.serverPort
  let listening = 0
  let ready = false
  let stopping = false
  const onStats = primaryStats(live, createMonitor('primary'))
  const faults = loggedFaults()

  const onListening = (at) => {
    listening++
    // The first worker bound the port (any free one for serverPort 0) and holds it while the others
    // bind it too: no moment in which the port is free for another process to take. Node's cluster
    // shares one socket per listen arguments, so its workers keep asking for the first one's.
    if (listening === 1) {
      if (reuse || SOCKET_PER_WORKER) port = at
      for (let i = 1; i < config.nServers; i++) fork()
    }
    if (!ready && listening === config.nServers) {
      ready = true
      process.stdout.write(readyLine(kind, config, at, config.nServers))
    }
  }
  const fork = () => {
    const worker = cluster.fork({ [PORT_VAR]: String(port) })
    live.add(worker)
    // EPIPE: a message to a worker that is already exiting; its 'exit' is handled below.
    worker.on('error', (err) => { if (err.code !== 'EPIPE') log(`worker ${worker.process.pid}: ${err.message}`) })
    worker.on('message', (msg) => {
      if (msg?.type === 'listen-failed') return shutdown(1, `${kind}: ${msg.message}`)
      if (msg?.type === 'fault') return faults.note(msg.key, msg.message, msg.count)
      if (msg?.type !== 'reuseport-listening') return onStats(worker, msg)
      onListening(msg.port)
    })
    return worker
  }
  const shutdown = (code, message) => {
    if (stopping) return
    if (message) process.stderr.write(message + '\n')
    stopping = true
    process.exitCode = code
    if (live.size === 0) process.exit(code)
    for (const w of live) if (w.isConnected()) w.send('stop')
    setTimeout(() => {
      for (const w of live) w.process.kill('SIGKILL')
      process.exit(code)
    }, STOP_GRACE_MS + 500).unref()
  }

  if (!reuse) cluster.on('listening', (worker, address) => onListening(address.port))
  cluster.on('exit', (worker, code, signal) => {
    live.delete(worker)
    if (stopping) {
      if (live.size === 0) process.exit(process.exitCode)
      return
    }
    if (code === EXIT_LISTEN_FAILED) return shutdown(1)
    const now = Date.now()
    deaths.push(now)
    while (deaths[0] < now - DEATH_WINDOW_MS) deaths.shift()
    log(`worker ${worker.process.pid} died (code ${code}, signal ${signal}); re-forking`)
    if (deaths.length > MAX_DEATHS) {
      return shutdown(1, `${kind}: more than ${MAX_DEATHS} worker deaths in ${DEATH_WINDOW_MS / 1000} s; giving up`)
    }
    fork()
  })
  for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => shutdown(0))
  watchParent(() => shutdown(0, `${kind}: ${PARENT_GONE}; stopping`))
  fork()
}

module.exports = { runPrimary, runWorker }
