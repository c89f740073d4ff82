'use strict'
// Soak: `node bench/soak.js [--minutes=30] [--seconds=N] [--rate=200] [--interval=10]
// [--kinds=sync,async,...] [--chart=FILE.svg]` drives every kind at once, each at a fixed open-loop
// rate, and every interval records the server's RSS, open descriptors and p99; JSON on stdout.

const { spawn } = require('node:child_process')
const { once } = require('node:events')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { WATCHED } = require('../lib/machine/parent-watch')
const { wantsHelp, entryHelp } = require('../lib/entry-help')
const { serverFigures, verdict } = require('./lib/soak-figures')

const ROOT = path.resolve(__dirname, '..')
const KINDS = ['sync', 'async', 'sync-cluster', 'async-cluster']
const DEFAULTS = { minutes: 30, seconds: 0, rate: 200, interval: 10 }
const READY = /^listening http:\/\/\S+:(\d+) /m
const EXIT_GRACE_S = 30 // beyond its interval, for a client to finish and exit
const KEEP_ALIVE_MS = 120000

function parseArgs (argv) {
  const opts = { ...DEFAULTS, kinds: KINDS, chart: null }
  for (const arg of argv) {
    const m = /^--(\w+)=(.+)$/.exec(arg)
    if (m && m[1] === 'kinds' && m[2].split(',').every((k) => KINDS.includes(k))) opts.kinds = m[2].split(',')
    else if (m && m[1] === 'chart') opts.chart = m[2]
    else if (m && m[1] in DEFAULTS && /^\d+$/.test(m[2])) opts[m[1]] = Number(m[2])
    else throw new Error(`bad argument ${arg}; flags: --minutes=N --seconds=N --rate=N --interval=N --kinds=${KINDS.join(',')} --chart=FILE`)
  }
  opts.totalSeconds = opts.seconds || opts.minutes * 60
  if (opts.interval < 1 || opts.rate < 1 || opts.totalSeconds < opts.interval) throw new Error('need rate >= 1 and seconds >= interval >= 1')
  return opts
}

// A child node process that stops when this one dies (lib/machine/parent-watch.js).
function node (args, stdout = 'ignore', stderr = 'inherit') {
  return spawn(process.execPath, args, { stdio: [WATCHED.stdin, stdout, stderr], env: { ...process.env, ...WATCHED.env } })
}

async function startServer (kind, dir) {
  // Idle keep-alive connections outlive an interval: the client's, never closed under a request.
  const child = node([path.join(ROOT, 'servers', `${kind}.js`), '--serverPort=0', '--nServers=2', `--dataPath=${dir}`,
    `--keepAliveTimeout=${KEEP_ALIVE_MS}`], 'pipe')
  let out = ''
  const port = await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d) => { out += d; if (READY.test(out)) resolve(Number(READY.exec(out)[1])) })
    child.once('exit', (code) => reject(new Error(`${kind} exited ${code} before it was ready`)))
  })
  return { child, port }
}

// One interval of open-loop load by `node client`, which also verifies what it wrote. A client
// that has written its JSON but does not exit is Node 20's deadlock at shutdown (nodejs/node#54918,
// seen once in ~700 runs here): it is killed after a grace period and its JSON counts.
async function segment (kind, { port, dir, opts, first }) {
  const json = path.join(dir, '..', `${kind}-segment.json`)
  fs.rmSync(json, { force: true })
  const client = node([path.join(ROOT, 'client'), `--serverPort=${port}`, `--dataPath=${dir}`, `--json=${json}`,
    `--rate=${opts.rate}`, `--nOperations=${opts.rate * opts.interval}`, `--warmup=${first ? 50 : 0}`,
    '--nClients=1', '--concurrency=8', '--readsPerWrite=10', '--nFiles=30'], 'ignore', 'pipe')
  let stderr = ''
  client.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const grace = setTimeout(() => client.kill('SIGKILL'), (opts.interval + EXIT_GRACE_S) * 1000)
  const [code, signal] = await once(client, 'close')
  clearTimeout(grace)
  const hungAtExit = signal === 'SIGKILL' && fs.existsSync(json)
  if (code !== 0 && code !== 1 && !hungAtExit) throw new Error(`${kind}: the client exited ${signal || code}: ${stderr}`)
  if (!fs.existsSync(json)) {
    // A client that died without its report: the interval counts as failed, with the reason, and the soak goes on.
    const why = stderr.trim().split('\n').slice(-3).join(' / ') || `exit ${signal || code}`
    return {
      getP99Us: null, putP99Us: null, p99Us: null, failures: opts.rate * opts.interval, errors: { 'client died': 1 },
      verified: false, achievedRate: 0, hungAtExit, clientError: why
    }
  }
  const report = JSON.parse(fs.readFileSync(json, 'utf8'))
  return {
    getP99Us: report.latency.GET.p99,
    putP99Us: report.latency.PUT.p99,
    p99Us: Math.max(report.latency.GET.p99 ?? 0, report.latency.PUT.p99 ?? 0),
    failures: report.errorCount + report.warmup.failed,
    errors: { ...report.errors.GET, ...Object.fromEntries(Object.entries(report.errors.PUT).map(([k, n]) => [`PUT ${k}`, n])) },
    verified: report.verification.ok,
    achievedRate: report.achievedRate,
    hungAtExit
  }
}

// The data files cut back to their size after the first interval: a GET does the same work all along.
function cutBack (dir, sizes) {
  for (const [file, size] of Object.entries(sizes)) fs.truncateSync(path.join(dir, file), size)
}

async function soakKind (kind, opts) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `soak-${kind}-`))
  const dir = path.join(root, 'data')
  fs.mkdirSync(dir)
  const server = await startServer(kind, dir)
  const start = Date.now() // the soak's time runs from when this server is ready
  const samples = []
  let sizes = null
  try {
    // Intervals until the time is up (each also pays a client's start, ~0.5 s).
    for (let i = 0; i === 0 || Date.now() - start + opts.interval * 1000 <= opts.totalSeconds * 1000; i++) {
      const figures = await segment(kind, { port: server.port, dir, opts, first: i === 0 })
      if (sizes === null) sizes = Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.statSync(path.join(dir, f)).size]))
      else cutBack(dir, sizes)
      const sample = { seconds: Math.round((Date.now() - start) / 1000), ...serverFigures(server.child.pid), load1: os.loadavg()[0], ...figures }
      samples.push(sample)
      const errors = Object.entries(sample.errors).map(([k, n]) => `${k} ${n}`).join(', ')
      process.stderr.write(`${kind.padEnd(13)} ${String(sample.seconds).padStart(5)} s  rss ${(sample.rssBytes / 2 ** 20).toFixed(1)} MiB  ` +
        `fds ${sample.fds}  p99 ${sample.p99Us} µs  load ${sample.load1.toFixed(1)}  failures ${sample.failures}${errors ? ` (${errors})` : ''}` +
        `${sample.verified ? '' : '  VERIFICATION FAILED'}${sample.hungAtExit ? '  (client hung at exit, killed)' : ''}` +
        `${sample.clientError ? `  client died: ${sample.clientError}` : ''}\n`)
    }
  } finally {
    server.child.kill('SIGTERM')
    await once(server.child, 'exit')
    fs.rmSync(root, { recursive: true, force: true })
  }
  return { kind, samples, verdict: verdict(samples, opts) }
}

async function main () {
  if (wantsHelp(process.argv.slice(2))) {
    process.stdout.write(entryHelp({ usage: `node bench/soak.js [--minutes=${DEFAULTS.minutes}] [--seconds=N] [--rate=${DEFAULTS.rate}] ` +
      `[--interval=${DEFAULTS.interval}] [--kinds=${KINDS.join(',')}] [--chart=FILE]`, config: false,
    about: 'Drives every kind at once, each at a fixed open-loop rate, for minutes (or seconds); every interval s records each\n' +
      'server\'s RSS, open descriptors and p99, and prints them with a verdict as JSON on stdout; --chart writes an SVG of them.' }))
    return 0
  }
  const opts = parseArgs(process.argv.slice(2))
  process.stderr.write(`soak: ${opts.kinds.join(', ')} at once, ${opts.rate} ops/s each, ${opts.totalSeconds} s, a sample every ${opts.interval} s\n`)
  const t0 = Date.now()
  const kinds = await Promise.all(opts.kinds.map((kind) => soakKind(kind, opts)))
  const result = {
    bench: 'soak', cores: os.availableParallelism(), node: process.version, startedAt: new Date(t0).toISOString(),
    rate: opts.rate, seconds: opts.totalSeconds, interval: opts.interval, kinds, ok: kinds.every((k) => k.verdict.ok)
  }
  if (opts.chart) fs.writeFileSync(opts.chart, require('./lib/soak-chart').soakChart(result))
  process.stdout.write(JSON.stringify(result, null, 2) + '\n')
  for (const { kind, verdict: v } of kinds) {
    process.stderr.write(`${kind.padEnd(13)} RSS end/ref ${v.rssRatio.toFixed(2)} (<= 1.1), fds ${v.fdsRef} -> ${v.fdsEnd} (flat: ${v.fdsFlat}), ` +
      `p99 end/ref ${v.p99Ratio.toFixed(2)} (<= ${v.p99Limit}; machine load ${v.loadRef.toFixed(1)} -> ${v.loadEnd.toFixed(1)}), ` +
      `failures ${v.failures}, verified ${v.verified}: ${v.ok ? 'OK' : 'FAILED'}\n`)
  }
  return result.ok ? 0 : 1
}

if (require.main === module) {
  main().then((code) => { process.exitCode = code }, (err) => { process.stderr.write(`soak: ${err.message}\n`); process.exitCode = 2 })
}

module.exports = { parseArgs }
