'use strict'
// Does a server run slower right after the machine was idle? servers/sync.js in one process answers bursts of --burst GETs
// (4 keep-alive connections from this process, one small file), each burst after an idle gap of 0, 20, 100, 300 or 1,000 ms,
// the gaps shuffled in every rep; per gap, the medians of the burst's time, the server's CPU per request and the times it
// was switched out against its will (/proc/PID/stat and status). With --pin the server runs on CPU 0 and this process on
// CPU 1, so the scheduler cannot put them on one core. Why an interleaved run measures its page-cache cells apart from the
// cells that wait (bench/RESULTS.md, "The cells around a cell").
// `node bench/idle-gap.js [--burst=1000] [--reps=40] [--pin]` (Linux: /proc, and taskset for --pin); a table on stdout.

const fs = require('node:fs')
const http = require('node:http')
const { execFileSync } = require('node:child_process')
const { setTimeout: sleep } = require('node:timers/promises')
const { shuffle, mulberry32 } = require('../lib/random')
const { median } = require('../lib/median')
const { processCpuUs } = require('../lib/machine/proc')
const { findOnPath } = require('../lib/find-on-path')
const { parseFlags, serveKind } = require('./lib/util')

const GAPS_MS = [0, 20, 100, 300, 1000]
const CONNECTIONS = 4

const argv = process.argv.slice(2)
const pin = argv.includes('--pin')
const opts = parseFlags(argv.filter((a) => a !== '--pin'), {
  usage: 'node bench/idle-gap.js [--burst=1000] [--reps=40] [--pin]',
  about: 'servers/sync.js answering bursts of GETs after idle gaps of 0 to 1,000 ms: time, CPU per request, involuntary switches.\n' +
    '--pin: the server on CPU 0, this client on CPU 1.',
  flags: { burst: [1000, 'GETs per burst, 4 in flight'], reps: [40, 'bursts per gap'] }
})

// The server process's involuntary context switches so far.
const switchedOut = (pid) => Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1])

function request (agent, port, method, path, body = '') {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent }, (res) => {
      res.resume()
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${method} ${path}: ${res.statusCode}`))))
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function main () {
  const taskset = pin ? findOnPath('taskset', process.env.PATH) : null
  if (pin && !taskset) throw new Error('--pin needs taskset (util-linux)')
  if (taskset) execFileSync(taskset, ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
  const server = await serveKind('sync')
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  try {
    if (taskset) execFileSync(taskset, ['-a', '-p', '-c', '0', String(server.pid)], { stdio: 'ignore' })
    for (let i = 0; i < 5; i++) await request(agent, server.port, 'POST', '/put?key=idle', 'This is text that is appended to the file')
    const burst = async () => {
      let left = opts.burst
      const cpu = processCpuUs(server.pid)
      const out = switchedOut(server.pid)
      const t0 = performance.now()
      await Promise.all(Array.from({ length: CONNECTIONS }, async () => { while (left-- > 0) await request(agent, server.port, 'GET', '/get?key=idle') }))
      return { ms: performance.now() - t0, cpuPerReqUs: (processCpuUs(server.pid) - cpu) / opts.burst, switchedOut: switchedOut(server.pid) - out }
    }
    for (let k = 0; k < 30; k++) await burst() // warm-up: the JIT's tiers
    const random = mulberry32(20261129)
    const by = new Map(GAPS_MS.map((g) => [g, []]))
    for (let rep = 0; rep < opts.reps; rep++) {
      for (const gap of shuffle(GAPS_MS, random)) {
        await sleep(gap)
        by.get(gap).push(await burst())
      }
    }
    const where = taskset ? '; server on CPU 0, client on CPU 1' : ''
    process.stdout.write(`servers/sync.js on ${process.version}; bursts of ${opts.burst} GETs, ${opts.reps} per gap${where}\n`)
    process.stdout.write('| idle gap before | burst ms | server µs/request | switched out against its will |\n|---|---|---|---|\n')
    for (const [gap, bursts] of by) {
      const m = (key) => median(bursts.map((b) => b[key]))
      process.stdout.write(`| ${gap} ms | ${m('ms').toFixed(1)} | ${m('cpuPerReqUs').toFixed(1)} | ${m('switchedOut')} |\n`)
    }
  } finally {
    agent.destroy()
    await server.stop()
  }
}

main().catch((err) => {
  process.stderr.write(`bench/idle-gap.js: ${err.message}\n`)
  process.exitCode = 1
})
