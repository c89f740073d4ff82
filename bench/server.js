'use strict'
// Server overhead: `node bench/server.js [--seconds=5] [--rounds=3] [--connections=10]` drives
// servers/sync.js on express (the project's app), the same server on plain node:http
// (--framework=http) and bench/minimal-express.js (express with the same two handlers and no
// checks) with autocannon, GET-only and POST-only, interleaved in rounds, and prints the median
// request rates and CPU time per request, and their ratios taken within each round (median [min–max]).

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const autocannon = require('autocannon')
const { median } = require('../lib/median')
const { intervalOfMedian } = require('../report/stats/intervals')
const { parseFlags, startChild } = require('./lib/util')
const { processCpuUs } = require('../lib/machine/proc')

const ROOT = path.resolve(__dirname, '..')
const SERVER = path.join(ROOT, 'servers', 'sync.js')
const VARIANTS = {
  express: (dir) => [SERVER, '--serverPort=0', `--dataPath=${dir}`],
  http: (dir) => [SERVER, '--serverPort=0', `--dataPath=${dir}`, '--framework=http'],
  minimal: (dir) => [path.join(__dirname, 'minimal-express.js'), dir]
}
const NAMES = Object.keys(VARIANTS)
const VALUE = 'This is text that is appended to the file\n'

async function measure (variant, op, { seconds, connections }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-server-'))
  // A 16 KiB file to GET, as in the historic benchmark; POSTs append to their own file.
  fs.writeFileSync(path.join(dir, 'file-0'), VALUE.repeat(Math.ceil(16384 / VALUE.length)))
  const server = await startChild(VARIANTS[variant](dir), /(?:listening http:\/\/[^:]+:)?(\d+)/)
  try {
    const cpuBefore = processCpuUs(server.child.pid)
    const result = await autocannon({
      url: `http://127.0.0.1:${server.port}${op === 'GET' ? '/get?key=file-0' : '/put?key=file-1'}`,
      method: op === 'GET' ? 'GET' : 'POST',
      body: op === 'GET' ? undefined : VALUE,
      connections,
      duration: seconds
    })
    if (result.non2xx || result.errors) throw new Error(`${variant} ${op}: ${result.non2xx} non-2xx, ${result.errors} errors`)
    const requests = result.requests.total
    return { rate: result.requests.average, cpuPerReqUs: (processCpuUs(server.child.pid) - cpuBefore) / requests }
  } finally {
    server.child.kill('SIGTERM')
    await server.exited
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

async function main () {
  const opts = parseFlags(process.argv.slice(2), {
    usage: 'node bench/server.js [--seconds=N] [--rounds=N] [--connections=N]',
    about: 'Drives servers/sync.js on express, the same server on plain node:http (--framework=http) and\n' +
      'bench/minimal-express.js with autocannon, GET-only and POST-only, interleaved, and prints rates,\n' +
      'server CPU per request and ratios paired by round as JSON on stdout.',
    flags: {
      seconds: [5, 'seconds of each autocannon run'],
      rounds: [3, 'rounds, the order rotated'],
      connections: [10, 'autocannon\'s connections']
    }
  })
  const runs = { GET: {}, PUT: {} }
  for (let round = 1; round <= opts.rounds; round++) {
    for (const op of ['GET', 'PUT']) {
      // The order rotates each round, so that no variant always runs first.
      const order = NAMES.map((_, i) => NAMES[(i + round) % NAMES.length])
      for (const variant of order) {
        const run = await measure(variant, op, opts)
        ;(runs[op][variant] ??= []).push(run)
        process.stderr.write(`round ${round} ${op} ${variant}: ${run.rate.toFixed(0)} req/s, ${run.cpuPerReqUs.toFixed(0)} µs CPU/request\n`)
      }
    }
  }
  const rows = Object.entries(runs).map(([op, r]) => {
    const rate = (v) => median(r[v].map((run) => run.rate))
    const cpu = (v) => median(r[v].map((run) => run.cpuPerReqUs))
    // x over y within each round, where both ran back to back: the machine's drift cancels.
    const paired = (x, y, figure) => {
      const { estimate, low, high } = intervalOfMedian(r[x].map((run, i) => run[figure] / r[y][i][figure]))
      return [estimate, low, high].map((v) => Number(v.toFixed(3)))
    }
    return {
      op,
      ...Object.fromEntries(NAMES.flatMap((v) => [[`${v}Rate`, Math.round(rate(v))], [`${v}CpuPerReqUs`, Math.round(cpu(v))]])),
      // The goal: the project's express app costs at most 1.05x the minimal express app's CPU per request.
      expressOverMinimalCpu: paired('express', 'minimal', 'cpuPerReqUs'),
      // What express costs: its CPU per request over the same app's on plain node:http.
      expressOverHttpCpu: paired('express', 'http', 'cpuPerReqUs'),
      expressOverHttpRate: paired('express', 'http', 'rate')
    }
  })
  process.stdout.write(JSON.stringify({ bench: 'server', cores: os.availableParallelism(), node: process.version, ...opts, rows }, null, 2) + '\n')
}

if (require.main === module) main().catch((err) => { process.stderr.write(`${err.stack}\n`); process.exit(1) })

module.exports = { measure }
