'use strict'
// Starts a server of one kind (lib/kinds.js): a single process that listens (with a pool of
// UV_THREADPOOL_SIZE threads for the pool kind), or a primary that forks nServers workers
// (servers/lib/primary.js). Prints one ready line on stdout; logs go to stderr.

const cluster = require('node:cluster')
const { runMain } = require('../../lib/config')
const { loadServerConfig } = require('../../lib/serving/server-config')
const { wantsHelp, entryHelp } = require('../../lib/entry-help')
const { KINDS } = require('../../lib/kinds')
const { uvThreadpoolSize } = require('../../lib/results/environment')
const { watchParent } = require('../../lib/machine/parent-watch')
const { createServer, stopServer } = require('./serve')
const { runPrimary, runWorker } = require('./primary')
const { createMonitor, localStats } = require('../../lib/serving/process-telemetry')
const { log, loggedFaults, portInUse, readyLine, PARENT_GONE } = require('../../lib/serving/process-io')

const ONE_PROCESS = new Set(['single', 'pool'])

function runSingle (kind, config) {
  const server = createServer(kind, config, localStats(kind, createMonitor('single')), loggedFaults())
  server.on('error', (err) => {
    process.stderr.write(`${kind}: ${portInUse(err, config)}\n`)
    process.exit(1)
  })
  server.listen(config.serverPort, config.serverHostname, () => {
    // The pool kind's workers are its threads.
    const workers = KINDS[kind].model === 'pool' ? uvThreadpoolSize() : 1
    process.stdout.write(readyLine(kind, config, server.address().port, workers))
  })
  for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => stopServer(server))
  watchParent(() => {
    log(`${PARENT_GONE}; stopping`)
    stopServer(server)
  })
}

/**
 * Entry point of servers/<kind>.js. A kind this Node or kernel cannot run exits 2 saying why.
 * @param {string} kind a name in lib/kinds.js
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
  const { config } = runMain(kind, () => loadServerConfig(kind, argv, { checkKind: cluster.isPrimary }))
  if (ONE_PROCESS.has(KINDS[kind].model)) return runSingle(kind, config)
  if (cluster.isPrimary) return runPrimary(kind, config)
  return runWorker(kind, config)
}

module.exports = { launch, runSingle }
