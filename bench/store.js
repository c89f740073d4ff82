'use strict'
// Per-operation cost of the two stores in-process, without HTTP: `node bench/store.js [--ms=2000]`.
// Separates the file-I/O cost (and the async scheduling cost) from the HTTP cost.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Bench } = require('tinybench')
const { loadConfig } = require('../lib/config')
const { createSyncStore, createAsyncStore } = require('../servers/lib/store')
const { parseFlags } = require('./lib/util')

const VALUE = 'This is text that is appended to the file\n'

async function main () {
  const { ms } = parseFlags(process.argv.slice(2), { ms: 2000 })
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-store-'))
  try {
    const { config } = loadConfig([`--dataPath=${dir}`])
    fs.writeFileSync(path.join(dir, 'read'), VALUE.repeat(Math.ceil(16384 / VALUE.length)))
    const body = Buffer.from(VALUE)
    const bench = new Bench({ time: ms, warmupTime: 200 })
    for (const store of [createSyncStore(config), createAsyncStore(config)]) {
      bench.add(`${store.kind} read 16 KiB + sort`, () => store.read('read'))
      bench.add(`${store.kind} append ${body.length} B`, () => store.append(store.kind, body))
    }
    await bench.run()
    const rows = bench.tasks.map((task) => ({
      task: task.name,
      meanUs: Number((task.result.latency.mean * 1000).toFixed(1)),
      p50Us: Number((task.result.latency.p50 * 1000).toFixed(1)),
      p99Us: Number((task.result.latency.p99 * 1000).toFixed(1)),
      samples: task.result.latency.samplesCount
    }))
    process.stdout.write(JSON.stringify({ bench: 'store', cores: os.availableParallelism(), node: process.version, ms, rows }, null, 2) + '\n')
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (require.main === module) main().catch((err) => { process.stderr.write(`${err.stack}\n`); process.exit(1) })
