'use strict'
// How much a slowloris attack slows a normal client: for each of the four base kinds, a fresh server
// (2 workers for the clusters) is timed by one client doing GETs one after another on a keep-alive
// connection (test/fixtures/latency-probe.js, in its own process), alone and then while --connections
// sockets trickle their headers (test/fixtures/raw-http.js trickle) until the server's headersTimeout
// (2 s) answers them 408. test/servers/slowloris.test.js asserts the behaviour; this measures the cost.
// `node bench/slowloris.js [--connections=1000] [--gets=200] [--repeats=3]`; one JSON line per kind.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parseFlags, serveKind } = require('./lib/util')
const { createRecord, recordLatency, summarize } = require('../client/stats')
const { openConnections, openFileLimit, trickle } = require('../test/fixtures/raw-http')
const { startProbe } = require('../test/fixtures/latency-probe')

const KINDS = ['sync', 'async', 'sync-cluster', 'async-cluster']
const HEADERS_TIMEOUT = 2000

// p50, p99 and max (µs) of some latencies, from the client's own histogram (client/stats.js).
function figures (latencies) {
  const rec = createRecord()
  for (const us of latencies) recordLatency(rec, Math.round(us))
  const { p50, p99, max } = summarize(rec)
  return { p50Us: p50, p99Us: p99, maxUs: max }
}

// One server of the kind on a fresh folder with a file to GET.
async function serve (kind) {
  const server = await serveKind(kind, [`--headersTimeout=${HEADERS_TIMEOUT}`, '--requestTimeout=4000'])
  fs.writeFileSync(path.join(server.dataPath, 'k'), 'some text to sort and send back\n'.repeat(50))
  return server
}

// The probe's latencies alone, then under attack, on one fresh server.
async function once (kind, probe, { connections, gets }) {
  const server = await serve(kind)
  try {
    await probe.run(server.port, 'k', gets) // warm: the first GETs pay for the JIT
    const alone = await probe.run(server.port, 'k', gets)
    const slow = await openConnections(server.port, connections, 'GET /get?key=k HTTP/1.1\r\nHost: x\r\n')
    const stop = trickle(slow)
    try {
      const attacked = await probe.run(server.port, 'k', gets)
      return { alone: figures(alone), attacked: figures(attacked) }
    } finally {
      stop()
      slow.forEach((s) => s.destroy())
    }
  } finally {
    await server.stop()
  }
}

async function main (argv) {
  const opts = parseFlags(argv, {
    usage: 'node bench/slowloris.js [--connections=N] [--gets=N] [--repeats=N]',
    about: 'A normal client\'s GET latency (p50, p99, max, µs) on each base kind, alone and during a slowloris attack.',
    flags: { connections: [1000, 'slowloris connections (at most what ulimit -n allows)'], gets: [200, 'GETs the normal client times'],
      repeats: [3, 'fresh servers per kind'] }
  })
  const connections = Math.min(opts.connections, Math.floor((openFileLimit() - 200) / 2))
  const cleanups = []
  const probe = startProbe({ teardown: (fn) => cleanups.push(fn) })
  try {
    for (const kind of KINDS) {
      const runs = []
      for (let r = 0; r < opts.repeats; r++) runs.push(await once(kind, probe, { connections, gets: opts.gets }))
      const ratio = (f) => Number((f(runs.map((x) => x.attacked.p99Us / x.alone.p99Us))).toFixed(2))
      process.stdout.write(`${JSON.stringify({
        kind, connections, gets: opts.gets, cpus: os.availableParallelism(), node: process.version, load: os.loadavg()[0].toFixed(2),
        alone: runs.map((x) => x.alone),
        attacked: runs.map((x) => x.attacked),
        p99Ratio: { min: ratio((v) => Math.min(...v)), max: ratio((v) => Math.max(...v)) }
      })}\n`)
    }
  } finally {
    for (const fn of cleanups) fn()
  }
}

if (require.main === module) main(process.argv.slice(2)).catch((err) => { process.stderr.write(`bench/slowloris.js: ${err.message}\n`); process.exitCode = 1 })
