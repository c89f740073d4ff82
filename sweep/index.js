'use strict'
// Entry of ./run_benchmark.sh: `node sweep/index.js COMMAND [--KEY=VALUE ...]` runs the sweep,
// quick, run KIND, peak or report DIR command; --help lists commands and flags.

const fs = require('node:fs')
const path = require('node:path')
const { runMain, ConfigError } = require('../lib/config')
const { planSweep } = require('./grid')
const cell = require('./cell')
const peak = require('./peak')
const { runPlan, report } = require('./runner')

const HELP = `Usage: ./run_benchmark.sh COMMAND [--KEY=VALUE ...]

Commands
  quick          a small grid: all kinds, nServers 2, nClients 1,4, 2 repeats, nOperations 3000
                 (about 1 min on 2 cores)
  sweep          the full grid: all kinds, nServers 1,2,4, nClients 1,2,4,8, 3 repeats, nOperations
                 10000, plus the A/A cell (11-16 min on 2 cores)
  run KIND       one cell of KIND (sync, async, sync-cluster, async-cluster) with config.json's values
  peak           saturation throughput of each kind (nServers 1,2,4 for the cluster kinds), GET-only
                 and POST-only, driven by autocannon
  report DIR     render DIR/report.html and DIR/charts/*.svg again from a results folder

Grid flags (comma-separated lists; sweep, quick, run)
  --kinds=sync,async,sync-cluster,async-cluster   --nServers=1,2,4 (cluster kinds only)
  --nClients=1,2,4,8   --uvThreadpoolSize=4,16   --schedPolicy=rr,none   --readsPerWrite=0,10,inf
  --valueBytes=64,4096   --fsync=none,each,group (group: async kinds only)
  (uvThreadpoolSize and schedPolicy reach the server as UV_THREADPOOL_SIZE and
  NODE_CLUSTER_SCHED_POLICY; not given, each cell gets and records this shell's effective value)
  --aa=KIND:nServers:nClients   the A/A cell, run as variants A and B to show the noise floor
                 (sweep default async-cluster:min(2,cores):4; off for none; quick and run: off)
Peak flags
  --kinds=...  --nServers=...  --connections=10  --duration=10 (s)  --pipelining=1
Run flags
  --repeats=N       runs of each cell, shuffled in rounds (sweep 3, quick 2, run and peak 1)
  --seed=N          seed of the shuffle (default random; recorded in env.json)
  --results=DIR     parent folder of the results folder (default results/)
  --cellTimeout=MS  time limit of one client run (default 300000; not for peak)
  --readyTimeout=MS time a server gets to listen (default 15000)
  --keepData=true   keep each cell's data folder (default: removed after the client verified it)
Any config key (e.g. --nOperations=5000 --warmup=100 --config=FILE) passes through to every cell;
servers get a free port unless --serverPort is given. See config.json for the keys.

Writes results/<UTC time>-<command>/: env.json, summary.csv, cells.csv, cells/, charts/, report.html.
Prints the report's path on stdout. Exit status: 0 all runs valid, 1 some invalid (e.g. "disk full")
or no report, 2 bad flag, 130 interrupted (Ctrl-C stops the current cell and keeps the finished
ones). Whatever ends the sweep, even SIGKILL, every server and client it started ends within 5 s.
`

/**
 * Turns the command line into what to do.
 * @param {string[]} argv arguments after the script
 * @returns {{ help: true } | { reportDir: string } | { plan: object, kind: object }}
 * @throws {ConfigError} for an unknown command or a bad flag
 */
function parseCommand (argv) {
  const [command, ...rest] = argv
  if (command === '--help' || command === '-h' || rest.includes('--help')) return { help: true }
  const sweep = { columns: cell.COLUMNS, runCell: cell.runClientCell, table: cell.TABLE, marks: cell.MARKS }
  switch (command) {
    case 'sweep':
    case 'quick':
      return { plan: planSweep(command, rest), kind: sweep }
    case 'run':
      if (rest[0] === undefined || rest[0].startsWith('--')) throw new ConfigError('run needs a KIND: sync, async, sync-cluster or async-cluster')
      return { plan: planSweep('run', rest.slice(1), rest[0]), kind: sweep }
    case 'peak':
      return { plan: peak.planPeak(rest), kind: { columns: peak.COLUMNS, runCell: peak.runPeakCell, table: peak.TABLE } }
    case 'report':
      if (rest.length !== 1 || !fs.existsSync(path.join(rest[0], 'summary.csv'))) {
        throw new ConfigError(`report needs one results folder (holding summary.csv), got ${JSON.stringify(rest.join(' '))}`)
      }
      return { reportDir: path.resolve(rest[0]) }
    default:
      throw new ConfigError(`${command === undefined ? 'no command' : `unknown command ${JSON.stringify(command)}`}; use sweep, quick, run KIND, peak or report DIR (--help lists the flags)`)
  }
}

/**
 * Runs the command line.
 * @param {string[]} argv
 * @returns {Promise<number>} the exit status
 */
async function main (argv) {
  const todo = runMain('run_benchmark.sh', () => parseCommand(argv))
  if (todo.help) {
    process.stdout.write(HELP)
    return 0
  }
  if (todo.reportDir) return report(todo.reportDir)
  return runPlan(todo.plan, todo.kind)
}

if (require.main === module) {
  main(process.argv.slice(2)).then((status) => { process.exitCode = status }, (err) => {
    // Expected failures (a full disk, an unwritable folder) carry a code and need no stack.
    process.stderr.write(`run_benchmark.sh: ${err.code ? err.message : err.stack}\n`)
    process.exitCode = 1
  })
}

module.exports = { main }
