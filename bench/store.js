'use strict'
// Per-operation cost of the stores in-process, without HTTP: `node bench/store.js [--ms=2000]`.
// Rows for sync and each async store (--asyncApi: callback, promises, promisify, filehandle, handle, stream, read), each with libuv's thread pool and
// with io_uring (UV_USE_IO_URING is read at start, so each setting runs in a child process of its own).

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Bench } = require('tinybench')
const { loadConfig } = require('../lib/config')
const { createSyncStore, ASYNC_STORES } = require('../servers/lib/store')
const { parseFlags, runNode } = require('./lib/util')

const VALUE = 'This is text that is appended to the file\n'
const CPU_OPS = 2000 // operations one after another, for CPU time per operation

// CPU (user + system, every thread of the process) per operation over CPU_OPS sequential runs.
async function cpuPerOp (fn) {
  const start = process.cpuUsage()
  for (let i = 0; i < CPU_OPS; i++) await fn()
  const { user, system } = process.cpuUsage(start)
  return (user + system) / CPU_OPS
}

/** This process's rows: each store's read and append, latency by tinybench and CPU per op. */
async function measure (ms) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-store-'))
  try {
    const { config } = loadConfig([`--dataPath=${dir}`])
    fs.writeFileSync(path.join(dir, 'read'), VALUE.repeat(Math.ceil(16384 / VALUE.length)))
    const body = Buffer.from(VALUE)
    const bench = new Bench({ time: ms, warmupTime: 200 })
    const tasks = []
    for (const store of [createSyncStore(config), ...Object.values(ASYNC_STORES).map((create) => create(config))]) {
      const name = store.api ?? store.kind
      tasks.push([`${name} read 16 KiB + sort`, () => store.read('read')], [`${name} append ${body.length} B`, () => store.append(name, body)])
    }
    for (const [name, fn] of tasks) bench.add(name, fn)
    await bench.run()
    const rows = []
    for (const [k, task] of bench.tasks.entries()) {
      rows.push({
        task: task.name,
        meanUs: Number((task.result.latency.mean * 1000).toFixed(1)),
        p50Us: Number((task.result.latency.p50 * 1000).toFixed(1)),
        p99Us: Number((task.result.latency.p99 * 1000).toFixed(1)),
        cpuUs: Number((await cpuPerOp(tasks[k][1])).toFixed(1))
      })
    }
    return rows
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

async function main () {
  const argv = process.argv.slice(2)
  if (argv[0] === '--child') return process.stdout.write(JSON.stringify(await measure(Number(argv[1]))))
  const { ms } = parseFlags(argv, {
    usage: 'node bench/store.js [--ms=N]',
    about: 'Times the stores\' read and append in-process with tinybench (thread pool and io_uring, each in a\n' +
      'child process), and prints the rows as JSON on stdout.',
    flags: { ms: [2000, 'ms of each task after a 200 ms warm-up'] }
  })
  const rows = []
  for (const ioUring of [0, 1]) {
    const out = await runNode([__filename, '--child', String(ms)], { ...process.env, UV_USE_IO_URING: String(ioUring) })
    rows.push(...JSON.parse(out).map((row) => ({ ...row, task: `${row.task}${ioUring ? ', io_uring' : ''}`, ioUring })))
  }
  process.stdout.write(JSON.stringify({ bench: 'store', cores: os.availableParallelism(), node: process.version, ms, rows }, null, 2) + '\n')
}

if (require.main === module) main().catch((err) => { process.stderr.write(`${err.stack}\n`); process.exit(1) })
