'use strict'
// The client's own ceiling: `node bench/client.js [--connections=10] [--requests=50000] [--seconds=5]
// [--rounds=5]` runs `node client` (1 process, `connections` in flight, GETs only, `requests` of
// them), autocannon and, if installed, wrk (as many connections, `seconds` long) against
// bench/minimal-server.js answering with a Content-Length and, a second server, chunked; all
// interleaved, each after a warm-up; prints the median rates and ratios per framing.

const { execFile } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { median } = require('../lib/bootstrap')
const { parseFlags, startChild, runNode: node } = require('./lib/util')

const ROOT = path.resolve(__dirname, '..')
const AUTOCANNON = path.join(ROOT, 'node_modules', 'autocannon', 'autocannon.js')
const WRK = '/usr/bin/wrk'

function wrk (args) {
  return new Promise((resolve, reject) => {
    execFile(WRK, args, (err, stdout, stderr) => err ? reject(new Error(`wrk: ${err.message}${stderr}`)) : resolve(stdout))
  })
}

const TOOLS = {
  // `node client`'s throughput over its measured phase, after 1000 warm-up requests.
  async client (port, { connections, requests }, dir) {
    const json = path.join(dir, 'client.json')
    await node([path.join(ROOT, 'client'), `--serverPort=${port}`, `--dataPath=${dir}`, '--verify=false',
      '--readsPerWrite=inf', '--nClients=1', `--concurrency=${connections}`, `--nOperations=${requests}`,
      '--warmup=1000', `--json=${json}`])
    return JSON.parse(fs.readFileSync(json, 'utf8')).throughput
  },
  // autocannon's total over its duration, after a 1 s warm-up (its -a mode rounds the duration up to a second).
  async autocannon (port, { connections, seconds }) {
    const c = String(connections)
    const lines = (await node([AUTOCANNON, '-j', '-c', c, '-d', String(seconds), '--warmup', '[', '-c', c, '-d', '1', ']',
      `http://127.0.0.1:${port}/get?key=file-0`])).trim().split('\n')
    const out = JSON.parse(lines.at(-1)) // the warm-up's own result comes first
    if (out.errors + out.timeouts + out.non2xx > 0) throw new Error(`autocannon saw failures: ${JSON.stringify(out)}`)
    return out.requests.total / out.duration
  },
  // wrk's Requests/sec (one thread, as many connections), after a 1 s run of its own as warm-up.
  async wrk (port, { connections, seconds }) {
    const args = (s) => ['-t1', `-c${connections}`, `-d${s}s`, `http://127.0.0.1:${port}/get?key=file-0`]
    await wrk(args(1))
    const out = await wrk(args(seconds))
    if (/Non-2xx|Socket errors/.test(out)) throw new Error(`wrk saw failures:\n${out}`)
    const m = /^Requests\/sec:\s+([\d.]+)/m.exec(out)
    if (m === null) throw new Error(`wrk printed no Requests/sec:\n${out}`)
    return Number(m[1])
  }
}

const FRAMINGS = { length: [], chunked: ['--chunked'] }

/**
 * Runs the bench.
 * @param {string[]} argv flags
 * @returns {Promise<object>} the result printed as JSON: per framing the median rates and the
 *   ratios client / autocannon and client / wrk (null when wrk is not installed)
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
  try {
    for (const [framing, args] of Object.entries(FRAMINGS)) {
      servers[framing] = await startChild([path.join(__dirname, 'minimal-server.js'), ...args], /(\d+)/)
      rates[framing] = Object.fromEntries(tools.map((tool) => [tool, []]))
    }
    for (let round = 1; round <= opts.rounds; round++) {
      // Each tool takes each place in the order in turn: none always runs first or last.
      const order = tools.map((_, k) => tools[(k + round - 1) % tools.length])
      for (const framing of round % 2 ? ['length', 'chunked'] : ['chunked', 'length']) {
        for (const tool of order) {
          rates[framing][tool].push(await TOOLS[tool](servers[framing].port, opts, dir))
          process.stderr.write(`round ${round} ${framing} ${tool}: ${rates[framing][tool].at(-1).toFixed(0)} req/s\n`)
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
  const summary = (r) => {
    const client = median(r.client)
    const ratio = (tool) => r[tool] ? Number((client / median(r[tool])).toFixed(3)) : null
    return {
      client: Math.round(client),
      autocannon: Math.round(median(r.autocannon)),
      ratio: ratio('autocannon'),
      wrk: r.wrk ? Math.round(median(r.wrk)) : null,
      ratioWrk: ratio('wrk'),
      samples: Object.fromEntries(Object.entries(r).map(([tool, values]) => [tool, values.map(Math.round)]))
    }
  }
  return {
    bench: 'client',
    cores: os.availableParallelism(),
    node: process.version,
    ...opts,
    length: summary(rates.length),
    chunked: summary(rates.chunked)
  }
}

if (require.main === module) {
  run(process.argv.slice(2))
    .then((result) => process.stdout.write(JSON.stringify(result, null, 2) + '\n'))
    .catch((err) => { process.stderr.write(`${err.stack}\n`); process.exit(1) })
}

module.exports = { run }
