'use strict'
// The client's memory against the op count: `node bench/memory.js [--small=10000] [--large=1000000]
// [--connections=10]` runs `node client` (1 process) small and large against bench/minimal-server.js,
// GETs only unverified, then PUTs only verified, and prints each process's peak RSS and the ratios.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parseFlags, startChild, runNode } = require('./lib/util')

const ROOT = path.resolve(__dirname, '..')
const GOAL = 1.1 // peak RSS at the large op count over the small one

// GET: the load loop alone. PUT: every operation a record in one file, the worst case for the
// verification, which reads that file back and keeps a bit per operation.
const VARIANTS = {
  GET: ['--readsPerWrite=inf', '--verify=false'],
  PUT: ['--readsPerWrite=0', '--nFiles=1', '--verify=true']
}

async function measure (variant, operations, { connections }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-memory-'))
  const server = await startChild([path.join(__dirname, 'minimal-server.js'), dir], /(\d+)/)
  try {
    const json = path.join(dir, 'client.json')
    await runNode([path.join(ROOT, 'client'), `--serverPort=${server.port}`, `--dataPath=${dir}`, '--nClients=1',
      `--concurrency=${connections}`, `--nOperations=${operations}`, `--json=${json}`, ...VARIANTS[variant]])
    const report = JSON.parse(fs.readFileSync(json, 'utf8'))
    return {
      variant,
      operations,
      seconds: Number((report.wallTimeMs / 1000).toFixed(1)),
      throughput: Math.round(report.throughput),
      verifiedRecords: report.verification.checked ? report.verification.records : null,
      primaryMaxRssKb: report.primaryMaxRssKb,
      workerMaxRssKb: report.processes[0].maxRssKb
    }
  } finally {
    server.child.kill('SIGTERM')
    await server.exited
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Runs the bench.
 * @param {string[]} argv flags
 * @returns {Promise<object>} the result printed as JSON
 */
async function run (argv) {
  const opts = parseFlags(argv, {
    usage: 'node bench/memory.js [--small=N] [--large=N] [--connections=N]',
    about: 'Runs node client (1 process, GETs unverified, then PUTs verified) small and large against\n' +
      'bench/minimal-server.js and prints each process\'s peak RSS and the ratios, as JSON on stdout.',
    flags: {
      small: [10000, 'operations of the small run'],
      large: [1000000, 'operations of the large run'],
      connections: [10, 'connections (requests in flight) of the client process']
    }
  })
  const rows = []
  const ratios = []
  for (const variant of Object.keys(VARIANTS)) {
    const [a, b] = [await measure(variant, opts.small, opts), await measure(variant, opts.large, opts)]
    for (const r of [a, b]) {
      process.stderr.write(`${variant} ${r.operations}: primary ${r.primaryMaxRssKb} KiB, worker ${r.workerMaxRssKb} KiB (${r.seconds} s)\n`)
    }
    rows.push(a, b)
    ratios.push({
      variant,
      primary: Number((b.primaryMaxRssKb / a.primaryMaxRssKb).toFixed(3)),
      worker: Number((b.workerMaxRssKb / a.workerMaxRssKb).toFixed(3))
    })
  }
  const met = ratios.every((r) => r.primary <= GOAL && r.worker <= GOAL)
  return { bench: 'memory', cores: os.availableParallelism(), node: process.version, ...opts, rows, ratios, goal: GOAL, met }
}

if (require.main === module) {
  run(process.argv.slice(2))
    .then((result) => process.stdout.write(JSON.stringify(result, null, 2) + '\n'))
    .catch((err) => { process.stderr.write(`${err.stack}\n`); process.exit(1) })
}

module.exports = { run }
