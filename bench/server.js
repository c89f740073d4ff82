'use strict'
// Server overhead: `node bench/server.js [--seconds=5] [--rounds=3] [--connections=10]` drives
// servers/sync.js (express) and bench/plain-server.js (node:http, same store) with autocannon,
// GET-only and POST-only, interleaved, and prints the median request rates, the server's CPU time
// per request, and their ratios.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const autocannon = require('autocannon')
const { median } = require('../lib/bootstrap')
const { parseFlags, startChild } = require('./lib/util')
const { processCpuUs } = require('../sweep/process-group')

const ROOT = path.resolve(__dirname, '..')
const VARIANTS = {
  express: (dir) => [path.join(ROOT, 'servers', 'sync.js'), '--serverPort=0', `--dataPath=${dir}`],
  plain: (dir) => [path.join(__dirname, 'plain-server.js'), dir]
}
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
    about: 'Drives servers/sync.js (express) and bench/plain-server.js (node:http, same store) with autocannon,\n' +
      'GET-only and POST-only, interleaved, and prints rates, server CPU per request and ratios as JSON on stdout.',
    flags: {
      seconds: [5, 'seconds of each autocannon run'],
      rounds: [3, 'rounds, the order alternated'],
      connections: [10, 'autocannon\'s connections']
    }
  })
  const runs = { GET: { express: [], plain: [] }, PUT: { express: [], plain: [] } }
  for (let round = 1; round <= opts.rounds; round++) {
    for (const op of ['GET', 'PUT']) {
      for (const variant of round % 2 ? ['express', 'plain'] : ['plain', 'express']) {
        const run = await measure(variant, op, opts)
        runs[op][variant].push(run)
        process.stderr.write(`round ${round} ${op} ${variant}: ${run.rate.toFixed(0)} req/s, ${run.cpuPerReqUs.toFixed(0)} µs CPU/request\n`)
      }
    }
  }
  const rows = Object.entries(runs).map(([op, r]) => {
    const rate = (v) => median(r[v].map((run) => run.rate))
    const cpu = (v) => median(r[v].map((run) => run.cpuPerReqUs))
    return {
      op,
      expressRate: Math.round(rate('express')),
      plainRate: Math.round(rate('plain')),
      rateRatio: Number((rate('express') / rate('plain')).toFixed(3)),
      expressCpuPerReqUs: Math.round(cpu('express')),
      plainCpuPerReqUs: Math.round(cpu('plain')),
      // plain's CPU per request over express's: 1 = no overhead, comparable with rateRatio
      cpuRatio: Number((cpu('plain') / cpu('express')).toFixed(3))
    }
  })
  process.stdout.write(JSON.stringify({ bench: 'server', cores: os.availableParallelism(), node: process.version, ...opts, rows }, null, 2) + '\n')
}

if (require.main === module) main().catch((err) => { process.stderr.write(`${err.stack}\n`); process.exit(1) })

module.exports = { measure }
