'use strict'
// The client's own ceiling: `node bench/client.js [--connections=10] [--requests=50000] [--seconds=5]
// [--rounds=5]` runs `node client` (1 process, `connections` in flight, GETs only, `requests` of
// them) and autocannon (as many connections, `seconds` long) against bench/minimal-server.js,
// interleaved, each after a warm-up, and prints the median request rates and their ratio.

const { execFile } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { median } = require('../lib/bootstrap')
const { parseFlags, startChild } = require('./lib/util')

const ROOT = path.resolve(__dirname, '..')
const AUTOCANNON = path.join(ROOT, 'node_modules', 'autocannon', 'autocannon.js')

function node (args) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, (err, stdout, stderr) => err ? reject(new Error(`${args[0]}: ${err.message}${stderr}`)) : resolve(stdout))
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
  }
}

async function main () {
  const opts = parseFlags(process.argv.slice(2), { connections: 10, requests: 50000, seconds: 5, rounds: 5 })
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-client-'))
  const server = await startChild([path.join(__dirname, 'minimal-server.js')], /(\d+)/)
  const rates = { client: [], autocannon: [] }
  try {
    for (let round = 1; round <= opts.rounds; round++) {
      for (const tool of round % 2 ? ['autocannon', 'client'] : ['client', 'autocannon']) {
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
  const autocannon = median(rates.autocannon)
  process.stdout.write(JSON.stringify({
    bench: 'client', cores: os.availableParallelism(), node: process.version, ...opts,
    client: Math.round(client), autocannon: Math.round(autocannon), ratio: Number((client / autocannon).toFixed(3))
  }, null, 2) + '\n')
}

if (require.main === module) main().catch((err) => { process.stderr.write(`${err.stack}\n`); process.exit(1) })
