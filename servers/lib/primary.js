'use strict'
// The node:cluster primary of the cluster kinds: forks nServers workers, prints the ready line
// once all listen, re-forks a worker that dies by accident (gives up after too many), tells the
// workers' storage faults, and stops them all on a signal or when its own parent is gone.

const cluster = require('node:cluster')
const { watchParent } = require('../../lib/parent-watch')
const { primaryStats, createMonitor } = require('./telemetry')
const { log, loggedFaults, readyLine, STOP_GRACE_MS, EXIT_LISTEN_FAILED, PARENT_GONE } = require('./process-io')

const MAX_DEATHS = 5
const DEATH_WINDOW_MS = 10000

/**
 * Runs the primary of a cluster kind.
 * @param {string} kind sync-cluster or async-cluster
 * @param {object} config a validated config
 */
function runPrimary (kind, config) {
  const live = new Set()
  const deaths = []
  let listening = 0
  let ready = false
  let stopping = false
  const onStats = primaryStats(live, createMonitor('primary'))
  const faults = loggedFaults()

  const fork = () => {
    const worker = cluster.fork()
    live.add(worker)
    // EPIPE: a message to a worker that is already exiting; its 'exit' is handled below.
    worker.on('error', (err) => { if (err.code !== 'EPIPE') log(`worker ${worker.process.pid}: ${err.message}`) })
    worker.on('message', (msg) => {
      if (msg?.type === 'listen-failed') shutdown(1, `${kind}: ${msg.message}`)
      else if (msg?.type === 'fault') faults.note(msg.key, msg.message, msg.count)
      else onStats(worker, msg)
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

  cluster.on('listening', (worker, address) => {
    listening++
    if (!ready && listening === config.nServers) {
      ready = true
      process.stdout.write(readyLine(kind, config, address.port, config.nServers))
    }
  })
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
  for (let i = 0; i < config.nServers; i++) fork()
}

module.exports = { runPrimary }
