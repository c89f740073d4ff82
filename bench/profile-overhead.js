'use strict'
// What --profile's samplers cost the server they watch: a sync and an async server in one process, driven
// by autocannon in windows of fixed length, each window sampled by perf (every CPU, at --hz), by V8's
// profiler (in the server, its default interval), by neither with the fs calls timed (waits: what every
// profiled window adds) or by nothing, in a shuffled order, repeated. Prints the median throughput of
// each and the cost: 1 - sampled / unsampled.
// node bench/profile-overhead.js [--seconds=2] [--repeats=6] [--hz=277 (--profile's)]

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const autocannon = require('autocannon')
const { profileEnv, ON } = require('../lib/serving/profiler')
const { resetServerStats, readServerStats } = require('../client/server-stats')
const { perfProblem, startPerf, FREQUENCY_HZ } = require('../profile/perf')
const { median } = require('../lib/median')
const { mulberry32, shuffle } = require('../lib/random')
const { parseFlags } = require('./lib/util')

const KEY = 'file-0'
const FLAGS = {
  usage: 'node bench/profile-overhead.js [--seconds=N] [--repeats=N] [--hz=N]',
  about: 'Drives a sync and an async server with autocannon in windows sampled by perf, by V8\'s profiler, by neither with\n' +
    'the fs calls timed, or by nothing, shuffled; prints the median throughput of each and its cost.',
  flags: { seconds: [2, 'seconds of each window'], repeats: [6, 'windows of each'], hz: [FREQUENCY_HZ, 'perf\'s sampling rate (--profile\'s)'] }
}
const { value: VALUE } = require('../config.json')

async function start (kind, dir) {
  const spool = path.join(dir, `${kind}-v8`)
  const data = path.join(dir, `${kind}-data`)
  fs.mkdirSync(spool)
  fs.mkdirSync(data)
  fs.writeFileSync(path.join(data, KEY), VALUE.repeat(100)) // a file after 100 of the workload's appends
  const script = path.join(__dirname, '..', 'servers', `${kind}.js`)
  const env = { ...process.env, ...profileEnv(spool, process.env) }
  const child = spawn(process.execPath, [script, `--dataPath=${data}`, '--serverPort=0'], { env, cwd: spool, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  for await (const chunk of child.stdout) {
    out += chunk
    const m = /listening http:\/\/\S+:(\d+) /.exec(out)
    if (m) return { kind, child, spool, port: Number(m[1]) }
  }
  throw new Error(`${kind} did not start`)
}

async function window (server, by, perf, seconds) {
  const client = { serverHostname: '127.0.0.1', serverPort: server.port, timeout: 10000 }
  if (by) fs.writeFileSync(path.join(server.spool, ON), by === 'v8' ? 'v8' : 'waits') // perf's windows and 'waits' time the fs calls alone
  if (by === 'perf') await perf.enable()
  await resetServerStats(client)
  const result = await autocannon({ url: `http://127.0.0.1:${server.port}/get?key=${KEY}`, connections: 4, duration: seconds })
  await readServerStats(client)
  if (by === 'perf') await perf.disable()
  fs.rmSync(path.join(server.spool, ON), { force: true })
  for (const f of fs.readdirSync(server.spool)) fs.rmSync(path.join(server.spool, f))
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${server.kind}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return result.requests.average
}

async function main () {
  const { seconds: SECONDS, repeats: REPEATS, hz: HZ } = parseFlags(process.argv.slice(2), FLAGS)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-profile-'))
  const servers = [await start('sync', dir), await start('async', dir)]
  const noPerf = perfProblem()
  const perf = noPerf ? null : await startPerf({ file: path.join(dir, 'perf.data'), logFd: 'ignore', frequency: HZ })
  const modes = [null, 'waits', 'v8', ...(perf ? ['perf'] : [])]
  const random = mulberry32(1)
  const got = new Map()
  try {
    for (const s of servers) await window(s, null, perf, SECONDS) // warm-up
    for (let r = 0; r < REPEATS; r++) {
      for (const [s, by] of shuffle(servers.flatMap((s) => modes.map((by) => [s, by])), random)) {
        const key = `${s.kind} ${by ?? 'none'}`
        got.set(key, [...(got.get(key) ?? []), await window(s, by, perf, SECONDS)])
      }
    }
  } finally {
    await perf?.stop()
    for (const s of servers) s.child.kill()
    fs.rmSync(dir, { recursive: true, force: true })
    for (const s of servers) fs.rmSync(`/tmp/perf-${s.child.pid}.map`, { force: true })
  }
  const load = os.loadavg()[0].toFixed(2)
  const perfLine = noPerf ?? `${HZ} Hz, every CPU`
  console.log(`# ${os.cpus().length} cores, Node ${process.version}, load ${load}; ${REPEATS} windows of ${SECONDS} s each; perf ${perfLine}`)
  console.log('server  sampled by  req/s (median)  cost')
  for (const s of servers) {
    const base = median(got.get(`${s.kind} none`))
    for (const by of modes) {
      const rate = median(got.get(`${s.kind} ${by ?? 'none'}`))
      const cost = by ? `${((1 - rate / base) * 100).toFixed(1)}%` : ''
      console.log(`${s.kind.padEnd(7)} ${(by ?? 'none').padEnd(11)} ${String(Math.round(rate)).padStart(14)}  ${cost}`)
    }
  }
}

if (require.main === module) main().catch((err) => { process.stderr.write(`${err.message}\n`); process.exit(1) })
