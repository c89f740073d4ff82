'use strict'
// The client's own ceiling: `node bench/client.js [--connections=10] [--requests=50000] [--seconds=5]
// [--rounds=5]` runs `node client` (1 process, `connections` in flight, GETs only, `requests` of
// them), autocannon and, if installed, wrk (as many connections, `seconds` long) against
// bench/minimal-server.js answering with a Content-Length and, a second server, chunked; all
// interleaved, each after a warm-up; prints the median rates, ratios and each tool's CPU per
// request, per framing.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { median } = require('../lib/median')
const { parseFlags, startChild, runNode, runSampled, steadyCpuPerRequest } = require('./lib/util')

const ROOT = path.resolve(__dirname, '..')
const AUTOCANNON = path.join(ROOT, 'node_modules', 'autocannon', 'autocannon.js')
const WRK = '/usr/bin/wrk'

// Each tool resolves with its rate (req/s) and its own CPU time per request (µs).
const TOOLS = {
  // `node client`'s throughput over its measured phase, after 1000 warm-up requests; CPU: its
  // client process over the measured phase.
  async client (port, { connections, requests }, dir) {
    const json = path.join(dir, 'client.json')
    await runNode([path.join(ROOT, 'client'), `--serverPort=${port}`, `--dataPath=${dir}`, '--verify=false',
      '--readsPerWrite=inf', '--nClients=1', `--concurrency=${connections}`, `--nOperations=${requests}`,
      '--warmup=1000', `--json=${json}`])
    const report = JSON.parse(fs.readFileSync(json, 'utf8'))
    return { rate: report.throughput, cpuUs: (report.clientCpuUs.user + report.clientCpuUs.system) / report.operations.completed }
  },
  // autocannon's total over its duration, after a 1 s warm-up (its -a mode rounds the duration up
  // to a second); CPU: over the last 80% of its run.
  async autocannon (port, { connections, seconds }) {
    const c = String(connections)
    const { stdout, samples } = await runSampled(process.execPath, [AUTOCANNON, '-j', '-c', c, '-d', String(seconds),
      '--warmup', '[', '-c', c, '-d', '1', ']', `http://127.0.0.1:${port}/get?key=file-0`])
    const out = JSON.parse(stdout.trim().split('\n').at(-1)) // the warm-up's own result comes first
    if (out.errors + out.timeouts + out.non2xx > 0) throw new Error(`autocannon saw failures: ${JSON.stringify(out)}`)
    const rate = out.requests.total / out.duration
    return { rate, cpuUs: steadyCpuPerRequest(samples, rate, seconds) }
  },
  // wrk's Requests/sec (one thread, as many connections), after a 1 s run of its own as warm-up;
  // CPU: over the last 80% of its run.
  async wrk (port, { connections, seconds }) {
    const args = (s) => ['-t1', `-c${connections}`, `-d${s}s`, `http://127.0.0.1:${port}/get?key=file-0`]
    await runSampled(WRK, args(1))
    const { stdout: out, samples } = await runSampled(WRK, args(seconds))
    if (/Non-2xx|Socket errors/.test(out)) throw new Error(`wrk saw failures:\n${out}`)
    const m = /^Requests\/sec:\s+([\d.]+)/m.exec(out)
    if (m === null) throw new Error(`wrk printed no Requests/sec:\n${out}`)
    return { rate: Number(m[1]), cpuUs: steadyCpuPerRequest(samples, Number(m[1]), seconds) }
  }
}

const FRAMINGS = { length: [], chunked: ['--chunked'] }

/**
 * Runs the bench.
 * @param {string[]} argv flags
 * @returns {Promise<object>} the result printed as JSON: per framing the median rates, the ratios
 *   client / autocannon and client / wrk (null when wrk is not installed) and each tool's median
 *   CPU per request
 */
async function run (argv) {
  const opts = parseFlags(argv, {
    usage: 'node bench/client.js [--connections=N] [--requests=N] [--seconds=N] [--rounds=N]',
    about: 'Runs node client, autocannon and wrk (if /usr/bin/wrk exists) against bench/minimal-server.js,\n' +
      'answering with a Content-Length and chunked, interleaved, and prints the median rates and the ratios\n' +
      'client / autocannon and client / wrk per framing as JSON on stdout (progress on stderr).',
    flags: {
      connections: [10, 'connections (requests in flight) of every tool'],
      requests: [50000, 'GETs of each node client run'],
      seconds: [5, 'length of each autocannon and wrk run'],
      rounds: [5, 'rounds; each tool takes each place in the order in turn']
    }
  })
  const tools = fs.existsSync(WRK) ? ['autocannon', 'client', 'wrk'] : ['autocannon', 'client']
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-client-'))
  const servers = {}
  const rates = {}
  const cpus = {} // each tool's own CPU µs per request
  try {
    for (const [framing, args] of Object.entries(FRAMINGS)) {
      servers[framing] = await startChild([path.join(__dirname, 'minimal-server.js'), ...args], /(\d+)/)
      rates[framing] = Object.fromEntries(tools.map((tool) => [tool, []]))
      cpus[framing] = Object.fromEntries(tools.map((tool) => [tool, []]))
    }
    for (let round = 1; round <= opts.rounds; round++) {
      // Each tool takes each place in the order in turn: none always runs first or last.
      const order = tools.map((_, k) => tools[(k + round - 1) % tools.length])
      for (const framing of round % 2 ? ['length', 'chunked'] : ['chunked', 'length']) {
        for (const tool of order) {
          const { rate, cpuUs } = await TOOLS[tool](servers[framing].port, opts, dir)
          rates[framing][tool].push(rate)
          cpus[framing][tool].push(cpuUs)
          process.stderr.write(`round ${round} ${framing} ${tool}: ${rate.toFixed(0)} req/s, ${cpuUs.toFixed(1)} µs CPU/request\n`)
        }
      }
    }
  } finally {
    for (const server of Object.values(servers)) {
      server.child.kill('SIGTERM')
      await server.exited
    }
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const summary = (r, c) => {
    const client = median(r.client)
    const ratio = (tool) => r[tool] ? Number((client / median(r[tool])).toFixed(3)) : null
    return {
      client: Math.round(client),
      autocannon: Math.round(median(r.autocannon)),
      ratio: ratio('autocannon'),
      wrk: r.wrk ? Math.round(median(r.wrk)) : null,
      ratioWrk: ratio('wrk'),
      cpuPerRequestUs: Object.fromEntries(Object.entries(c).map(([tool, values]) => [tool, Number(median(values).toFixed(1))])),
      samples: Object.fromEntries(Object.entries(r).map(([tool, values]) => [tool, values.map(Math.round)]))
    }
  }
  return {
    bench: 'client',
    cores: os.availableParallelism(),
    node: process.version,
    ...opts,
    length: summary(rates.length, cpus.length),
    chunked: summary(rates.chunked, cpus.chunked)
  }
}

if (require.main === module) {
  run(process.argv.slice(2))
    .then((result) => process.stdout.write(JSON.stringify(result, null, 2) + '\n'))
    .catch((err) => { process.stderr.write(`${err.stack}\n`); process.exit(1) })
}

module.exports = { run }
