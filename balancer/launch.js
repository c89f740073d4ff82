'use strict'
// The balanced kinds (sync-lb, async-lb): nServers single-process servers behind HAProxy, started
// and stopped as one unit with one ready line. The launcher answers /_stats for all of them
// (HAProxy routes it here) and adds HAProxy's own figures. Run through servers/<kind>.js.

const fs = require('node:fs')
const http = require('node:http')
const net = require('node:net')
const { runMain, ConfigError } = require('../lib/config')
const { loadServerConfig } = require('../lib/serving/server-config')
const { wantsHelp, entryHelp, helpSection } = require('../lib/entry-help')
const { watchParent } = require('../lib/machine/parent-watch')
const { log, readyLine, STOP_GRACE_MS, PARENT_GONE } = require('../lib/serving/process-io')
const { haproxyConfig } = require('./haproxy-config')
const { DIMENSIONS } = require('../lib/results/dimensions')
const { startHaproxy, waitHaproxyReady } = require('./haproxy')
const { startBackends, HOST } = require('./backends')
const { telemetryHandler } = require('./telemetry')
const { runDir, cleanStaleRunDirs } = require('./run-dir')

/** The balanced kinds' own flag (beside every config key). */
const LB_OPTIONS = { balance: DIMENSIONS.balance.validate }
const LB_HELP = { balance: 'how HAProxy picks a backend for each request: roundrobin, or leastconn (the one with the fewest requests in flight)' }
const LB_DEFAULTS = { balance: DIMENSIONS.balance.first() }
const READY_TIMEOUT_MS = 10000
const PORT_TRIES = 3

/** A port free on host just now (the OS picks it; it may be taken again before it is used). */
function freePort (host) {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().once('error', reject)
    srv.listen(0, host, () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

function listenTelemetry (handler) {
  return new Promise((resolve) => {
    const srv = http.createServer(handler).listen(0, HOST, () => resolve(srv))
  })
}

// HAProxy on the frontend port; with serverPort 0 a free port, tried again if taken meanwhile.
async function startBalancer (config, files, write) {
  for (let k = 1; ; k++) {
    const port = config.serverPort || await freePort(config.serverHostname)
    write(port)
    const haproxy = startHaproxy({ file: files.config, socket: files.socket, log })
    try {
      await waitHaproxyReady({ socket: files.socket, exited: haproxy.exited, timeoutMs: READY_TIMEOUT_MS })
      return { haproxy, port }
    } catch (err) {
      await haproxy.stop()
      const taken = /Address already in use/.test(err.message)
      if (taken && config.serverPort) throw new ConfigError(`port ${port} on ${config.serverHostname} is already in use`)
      if (!taken || k === PORT_TRIES) throw err
    }
  }
}

async function runBalanced (kind, config, argv, balance) {
  cleanStaleRunDirs(log)
  const files = runDir()
  const state = { balance, socket: files.socket, backends: null, haproxy: null, cpuStart: { user: 0, system: 0 } }
  let stopping = false
  const shutdown = async (code, message) => {
    if (stopping) return
    stopping = true
    if (message) process.stderr.write(`${message}\n`)
    setTimeout(() => process.exit(code), STOP_GRACE_MS).unref()
    await state.haproxy?.stop() // first: no new requests reach a backend that is stopping
    await state.backends?.stop()
    process.exit(code)
  }
  process.on('exit', () => files.remove())
  for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => shutdown(0))
  watchParent(() => shutdown(0, `${kind}: ${PARENT_GONE}; stopping`))
  try {
    const telemetry = await listenTelemetry(telemetryHandler(kind, state))
    telemetry.unref()
    const args = argv.filter((a) => !a.startsWith('--balance='))
    state.backends = await startBackends({ kind, count: config.nServers, args, log, onGiveUp: (why) => shutdown(1, `${kind}: ${why}`) })
    const { haproxy, port } = await startBalancer(config, files, (listenPort) => fs.writeFileSync(files.config, haproxyConfig({
      listen: { host: config.serverHostname, port: listenPort },
      backends: state.backends.list.map((b) => ({ host: HOST, port: b.port })),
      telemetry: { host: HOST, port: telemetry.address().port },
      statsSocket: files.socket,
      balance,
      config
    })))
    state.haproxy = haproxy
    haproxy.exited.then(({ code, signal }) => shutdown(1, `${kind}: haproxy exited (${signal || `code ${code}`}) while serving`))
    log(`haproxy pid ${haproxy.pid} (${balance}) on port ${port}; backends ${state.backends.list.map((b) => `pid ${b.pid} port ${b.port}`).join(', ')}`)
    process.stdout.write(readyLine(kind, config, port, config.nServers))
  } catch (err) {
    const line = err instanceof ConfigError ? err.message : err.message.split('\n')[0]
    await shutdown(1, `${kind}: ${line}`)
  }
}

/**
 * Entry point of servers/sync-lb.js and servers/async-lb.js.
 * @param {'sync-lb'|'async-lb'} kind
 * @param {string[]} argv the process's arguments after the script
 */
function launchBalanced (kind, argv = process.argv.slice(2)) {
  if (wantsHelp(argv)) {
    return process.stdout.write(entryHelp({
      usage: `node servers/${kind}.js [--config=FILE] [--balance=roundrobin|leastconn] [--KEY=VALUE ...]`,
      about: `nServers ${kind.replace(/-lb$/, '')} servers, each on its own port on ${HOST}, behind HAProxy (HTTP, keep-alive to the\n` +
        'backends, each request balanced on its own). When HAProxy and every backend are ready it prints\n' +
        `\`listening http://HOST:PORT kind=${kind} workers=N pid=PID\` on stdout; SIGTERM stops them all.\n` +
        '/_stats adds HAProxy\'s figures per backend. Without HAProxy: one line saying what to install, exit 2.',
      sections: [helpSection(`${kind} flags`, LB_OPTIONS, LB_HELP, LB_DEFAULTS)]
    }))
  }
  const { config, options } = runMain(kind, () => loadServerConfig(kind, argv, { extra: LB_OPTIONS }))
  return runBalanced(kind, config, argv, options.balance ?? LB_DEFAULTS.balance)
}

module.exports = { launchBalanced, freePort }
