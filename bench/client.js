'use strict'
// The client's own ceiling: `node bench/client.js [--connections=10] [--requests=50000] [--seconds=5]
// [--rounds=5]` runs `node client` (1 process, `connections` in flight, GETs only, `requests` of
// them), autocannon and, if installed, wrk (as many connections, `seconds` long) against
// bench/minimal-server.js, interleaved, each after a warm-up, and prints the median rates and ratios.

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

/**
 * Runs the bench.
 * @param {string[]} argv flags
 * @returns {Promise<object>} the result printed as JSON; wrk and its ratio null when wrk is not installed
 */
async function run (argv) {
  const opts = parseFlags(argv, { connections: 10, requests: 50000, seconds: 5, rounds: 5 })
  const tools = fs.existsSync(WRK) ? ['autocannon', 'client', 'wrk'] : ['autocannon', 'client']
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-client-'))
  const server = await startChild([path.join(__dirname, 'minimal-server.js')], /(\d+)/)
  const rates = Object.fromEntries(tools.map((tool) => [tool, []]))
  try {
    for (let round = 1; round <= opts.rounds; round++) {
      // Each tool takes each place in the order in turn: none always runs first or last.
      const order = tools.map((_, k) => tools[(k + round - 1) % tools.length])
      for (const tool of order) {
        rates[tool].push(await TOOLS[tool](server.port, opts, dir))
        process.stderr.write(`round ${round} ${tool}: ${rates[tool].at(-1).toFixed(0)} req/s\n`)
      }
    }
  } finally {
    server.child.kill('SIGTERM')
    await server.exited
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const client = median(rates.client)
  const ratio = (tool) => rates[tool] ? Number((client / median(rates[tool])).toFixed(3)) : null
  return {
    bench: 'client',
    cores: os.availableParallelism(),
    node: process.version,
    ...opts,
    client: Math.round(client),
    autocannon: Math.round(median(rates.autocannon)),
    ratio: ratio('autocannon'),
    wrk: rates.wrk ? Math.round(median(rates.wrk)) : null,
    ratioWrk: ratio('wrk'),
    samples: Object.fromEntries(Object.entries(rates).map(([tool, r]) => [tool, r.map(Math.round)]))
  }
}

if (require.main === module) {
  run(process.argv.slice(2))
    .then((result) => process.stdout.write(JSON.stringify(result, null, 2) + '\n'))
    .catch((err) => { process.stderr.write(`${err.stack}\n`); process.exit(1) })
}

module.exports = { run }
