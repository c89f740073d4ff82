'use strict'
// What a quick costs and how sure it is: runs `./run_benchmark.sh quick [FLAGS]` (or reads a results
// folder it made, --dir=DIR) and prints its wall time, the share of it that was measurement, the
// A/A interval, the client's CPU per request and the verdicts, with the machine's cores, Node and
// load average. `node bench/quick.js [--dir=DIR] [-- QUICK FLAGS]`; one JSON line on stdout.

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { readResults } = require('../report/data/read')
const { groupCells } = require('../report/data/cells')
const { comparisons } = require('../report/stats/comparisons')
const { runFigures } = require('../report/stats/run-figures')
const { median } = require('../report/stats/intervals')
const { wantsHelp, entryHelp } = require('../lib/entry-help')

const ROOT = path.resolve(__dirname, '..')

// The run's time: an interleaved folder's phases, or an older folder's client runs (each run's measured phase).
function timeOf (results, wallMs) {
  const f = runFigures(results)
  if (f) return { measuringMs: f.measuringMs, keptMs: f.keptMs, rounds: f.rounds, dropped: f.dropped, passes: f.passes }
  const measured = results.rows.reduce((a, r) => a + (r.wallTimeMs ?? 0), 0)
  return { measuringMs: Math.round(measured), keptMs: Math.round(measured), rounds: Math.max(...results.rows.map((r) => r.repeat)) }
}

/**
 * The figures of a quick's results folder.
 * @param {string} dir
 * @param {number|null} wallMs the command's wall time, when it was run here
 * @returns {object}
 */
function quickFigures (dir, wallMs) {
  const results = readResults(dir)
  const wall = wallMs ?? Date.parse(results.env.finishedAt) - Date.parse(results.env.startedAt)
  const verdicts = comparisons(groupCells(results)).filter((v) => v.metric === 'opsPerSec')
  const aa = verdicts.find((v) => v.aa)
  const cpu = results.rows.filter((r) => r.valid).map((r) => r.clientCpuPerReqUs).filter(Number.isFinite)
  const time = timeOf(results, wall)
  const round = (x) => (Number.isFinite(x) ? Number(x.toFixed(3)) : null)
  return {
    dir: path.relative(ROOT, dir),
    cpus: results.env.cpus,
    node: results.env.serverNodes.join(','),
    wallS: round(wall / 1000),
    measuringShare: round(time.measuringMs / wall),
    ...time,
    aa: aa && { estimate: round(aa.ratio?.estimate), low: round(aa.ratio?.low), high: round(aa.ratio?.high), n: aa.ratio?.n, verdict: aa.verdict },
    clientCpuPerReqUs: { min: Math.min(...cpu), median: median(cpu), max: Math.max(...cpu) },
    verdicts: verdicts.filter((v) => !v.aa).map((v) => `${v.label}: ${v.verdict} ${round(v.ratio?.estimate)} [${round(v.ratio?.low)}-${round(v.ratio?.high)}]`),
    undecided: verdicts.filter((v) => v.verdict === 'undecided').length
  }
}

function main (argv) {
  if (wantsHelp(argv)) {
    process.stdout.write(entryHelp({ usage: 'node bench/quick.js [--dir=DIR] [-- QUICK FLAGS]',
      about: 'Runs ./run_benchmark.sh quick (or reads DIR) and prints one JSON line: wall time, measured share, the A/A\n' +
        'interval, the client\'s CPU per request and the verdicts, with cores, Node and load average.', config: false }))
    return 0
  }
  const split = argv.indexOf('--')
  const own = split === -1 ? argv : argv.slice(0, split)
  const flags = split === -1 ? [] : argv.slice(split + 1)
  const given = own.find((a) => a.startsWith('--dir='))?.slice(6)
  const load = os.loadavg().map((x) => Number(x.toFixed(2)))
  let dir = given
  let wallMs = null
  if (!dir) {
    const results = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-quick-'))
    const start = performance.now()
    const run = spawnSync(path.join(ROOT, 'run_benchmark.sh'), ['quick', `--results=${results}`, ...flags],
      { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' })
    wallMs = performance.now() - start
    if (run.status !== 0) process.stderr.write(`bench/quick.js: quick exited ${run.status}\n`)
    dir = path.dirname(run.stdout.trim())
  }
  const command = `./run_benchmark.sh quick ${flags.join(' ')}`.trim()
  const loadAfter = os.loadavg().map((x) => Number(x.toFixed(2)))
  process.stdout.write(JSON.stringify({ command, loadBefore: load, loadAfter, ...quickFigures(dir, wallMs) }) + '\n')
  return 0
}

if (require.main === module) process.exitCode = main(process.argv.slice(2))

module.exports = { quickFigures }
