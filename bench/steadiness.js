'use strict'
// Does this machine run the same work at the same speed from one moment to the next? One process per CPU (pinned with
// taskset where there is one), all at once, repeats a fixed piece of work for --seconds and counts how many pieces each
// --slice ms holds: first plain JS (arithmetic), then system calls (64-byte reads of a cached file). Per work and CPU: how
// much the slices' speed varies (coefficient of variation), the 5th and 95th percentiles against the median, the share of
// slices slower than 0.8 of the median and the longest run of them; and how often both CPUs were slow in the same slice,
// against what chance gives. Where an interleaved run's windows vary from one to the next (bench/RESULTS.md, "Where the
// windows' noise comes from").
// `node bench/steadiness.js [--seconds=20] [--slice=50]` (Linux; taskset for the pinning); a table on stdout.

const fs = require('node:fs')
const os = require('node:os')
const { execFile } = require('node:child_process')
const { median } = require('../lib/median')
const { findOnPath } = require('../lib/find-on-path')
const { parseFlags } = require('./lib/util')

const SLOW = 0.8
const WORKS = {
  'plain JS': () => {
    let x = 0
    for (let i = 0; i < 20000; i++) x += Math.sqrt(i ^ x)
    return x
  },
  'system calls': (() => {
    const buffer = Buffer.alloc(64)
    let fd = null
    return () => {
      fd ??= fs.openSync(__filename, 'r')
      for (let i = 0; i < 20; i++) fs.readSync(fd, buffer, 0, 64, 0)
      return buffer[0]
    }
  })()
}

// In a child: WORK's pieces per slice, for SECONDS, on stdout as JSON.
function measure (work, seconds, sliceMs) {
  const run = WORKS[work]
  const slices = []
  let sink = 0
  const end = performance.now() + seconds * 1000
  while (performance.now() < end) {
    const start = performance.now()
    let pieces = 0
    while (performance.now() - start < sliceMs) {
      sink += run()
      pieces++
    }
    slices.push(pieces / (performance.now() - start))
  }
  process.stdout.write(JSON.stringify({ slices, sink: Number.isFinite(sink) }))
}

function runChild (work, cpu, opts, taskset) {
  const args = [__filename, '--child', work, String(opts.seconds), String(opts.slice)]
  const [file, argv] = taskset ? [taskset, ['-c', String(cpu), process.execPath, ...args]] : [process.execPath, args]
  return new Promise((resolve, reject) => {
    execFile(file, argv, { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${work} on CPU ${cpu}: ${err.message}${stderr}`))
      else resolve(JSON.parse(stdout).slices)
    })
  })
}

function describe (slices) {
  const mid = median(slices)
  const mean = slices.reduce((s, x) => s + x, 0) / slices.length
  const cv = Math.sqrt(slices.reduce((s, x) => s + (x - mean) ** 2, 0) / slices.length) / mean
  const sorted = [...slices].sort((a, b) => a - b)
  const at = (q) => sorted[Math.floor(q * (sorted.length - 1))] / mid
  const slow = slices.map((x) => x < SLOW * mid)
  let longest = 0
  let run = 0
  for (const s of slow) longest = Math.max(longest, (run = s ? run + 1 : 0))
  return { cv, p5: at(0.05), p95: at(0.95), slow, share: slow.filter(Boolean).length / slow.length, longest }
}

async function main () {
  const opts = parseFlags(process.argv.slice(2), {
    usage: 'node bench/steadiness.js [--seconds=20] [--slice=50]',
    about: 'Plain JS and system calls, one process per CPU at once: how much their speed varies from slice to slice.',
    flags: { seconds: [20, 'seconds of each work'], slice: [50, 'ms a slice'] }
  })
  const taskset = findOnPath('taskset', process.env.PATH)
  const cpus = os.availableParallelism()
  process.stdout.write(`${os.cpus()[0].model}, ${cpus} CPUs, ${process.version}; ${opts.slice} ms slices for ${opts.seconds} s; ` +
    `${taskset ? 'one process pinned to each CPU' : 'one process per CPU, not pinned (no taskset)'}\n`)
  process.stdout.write('| work | CPU | slices | CV | 5th / median | 95th / median | slower than 0.8× | longest slow run |\n|---|---|---|---|---|---|---|---|\n')
  for (const work of Object.keys(WORKS)) {
    const runs = await Promise.all(Array.from({ length: cpus }, (_, cpu) => runChild(work, cpu, opts, taskset)))
    const described = runs.map(describe)
    described.forEach((d, cpu) => {
      process.stdout.write(`| ${work} | ${cpu} | ${runs[cpu].length} | ${d.cv.toFixed(3)} | ${d.p5.toFixed(2)} | ${d.p95.toFixed(2)} | ` +
        `${(d.share * 100).toFixed(1)}% | ${d.longest * opts.slice} ms |\n`)
    })
    if (cpus > 1) {
      const n = Math.min(...described.map((d) => d.slow.length))
      const together = Array.from({ length: n }, (_, i) => described.every((d) => d.slow[i])).filter(Boolean).length / n
      const chance = described.reduce((p, d) => p * d.share, 1)
      process.stdout.write(`${work}: every CPU slow in the same slice ${(together * 100).toFixed(1)}% of the time; by chance ${(chance * 100).toFixed(1)}%\n`)
    }
  }
}

if (process.argv[2] === '--child') {
  measure(process.argv[3], Number(process.argv[4]), Number(process.argv[5]))
} else {
  main().catch((err) => {
    process.stderr.write(`bench/steadiness.js: ${err.message}\n`)
    process.exitCode = 1
  })
}
