'use strict'
// Entry of ./run_benchmark.sh: `node sweep/index.js COMMAND [--KEY=VALUE ...]` runs the sweep,
// quick, versions, run KIND, peak, report DIR or node command; --help lists commands and flags.

const fs = require('node:fs')
const path = require('node:path')
const { runMain, ConfigError } = require('../lib/config')
const { KIND_NAMES } = require('../lib/kinds')
const { planSweep } = require('./grid')
const cell = require('./cell')
const peak = require('./peak')
const { runPlan, report } = require('./runner')
const { parseNodeCommand, runNodeCommand } = require('./node-command')

const HELP = `Usage: ./run_benchmark.sh COMMAND [--KEY=VALUE ...]

Commands
  quick          a small grid: all kinds, nServers 2, nClients 1,4, 2 repeats, nOperations 3000
                 (1-2 min on 2 cores)
  sweep          the full grid: all kinds, nServers 1,2,4, nClients 1,2,4,8, 3 repeats, nOperations
                 10000, plus the A/A cell (11-16 min on 2 cores; ~18-27 min with the reuseport kinds)
  versions       the version table: sync and async in one process, nClients 4, 5 repeats, nOperations
                 3000, on the system node and every supported LTS line (--node=system,22,24,26 on
                 2026-11-23; missing ones are installed); writes versions.md beside the report
  run KIND       one cell of KIND (sync, async, sync-cluster, async-cluster, sync-reuseport,
                 async-reuseport) with config.json's values
  peak           saturation throughput of each kind (nServers 1,2,4 for the multi-process kinds),
                 GET-only and POST-only, driven by autocannon
  report DIR     render DIR/report.html and DIR/charts/*.svg again from a results folder
  node install VERSION...   official Node binaries from the npm registry into .node-cache/ (24, 26,
                 24.21.0, or lts for the newest LTS line); prints each binary's path
  node list      the Node versions in .node-cache/ and the system node, with their release lines

Grid flags (comma-separated lists; sweep, quick, versions, run)
  --kinds=sync,async,sync-cluster,async-cluster,sync-reuseport,async-reuseport
  --nServers=1,2,4 (multi-process kinds only)
  --nClients=1,2,4,8   --uvThreadpoolSize=4,16   --schedPolicy=rr,none   --readsPerWrite=0,10,inf
  --valueBytes=64,4096   (uvThreadpoolSize and schedPolicy reach the server as UV_THREADPOOL_SIZE and
  NODE_CLUSTER_SCHED_POLICY; not given, each cell gets and records this shell's effective value)
  --aa=KIND:nServers:nClients   the A/A cell, run as variants A and B to show the noise floor
                 (sweep default async-cluster:min(2,cores):4; off for none; quick and run: off)
  --node=system,22,24,26   the Node each cell's server runs on (sweep, quick, run, peak): a major
                 (the newest cached, else installed into .node-cache/ with a line saying so), a full
                 version (24.21.0), system (the node on PATH) or a path to a binary. Default: the
                 Node running this script. A kind a Node cannot run (reuseport before 22.12) is skipped.
  --clientNode=VERSION   the one Node every client runs on (default: the Node running this script)
Peak flags
  --kinds=...  --nServers=...  --node=...  --connections=10  --duration=10 (s)  --pipelining=1
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
Prints the report's path on stdout. Exit status: 0 all runs valid, 1 some invalid or no report,
2 bad flag, 130 interrupted (Ctrl-C stops the current cell and keeps the finished ones).
`

/**
 * Turns the command line into what to do.
 * @param {string[]} argv arguments after the script
 * @returns {{ help: true } | { reportDir: string } | { node: object } | { plan: object, kind: object }}
 * @throws {ConfigError} for an unknown command or a bad flag
 */
function parseCommand (argv) {
  const [command, ...rest] = argv
  if (command === '--help' || command === '-h' || rest.includes('--help')) return { help: true }
  const sweep = { columns: cell.COLUMNS, runCell: cell.runClientCell, table: cell.TABLE, marks: cell.MARKS }
  switch (command) {
    case 'sweep':
    case 'quick':
    case 'versions':
      return { plan: planSweep(command, rest), kind: sweep }
    case 'run':
      if (rest[0] === undefined || rest[0].startsWith('--')) throw new ConfigError(`run needs a KIND: ${KIND_NAMES.join(', ')}`)
      return { plan: planSweep('run', rest.slice(1), rest[0]), kind: sweep }
    case 'peak':
      return { plan: peak.planPeak(rest), kind: { columns: peak.COLUMNS, runCell: peak.runPeakCell, table: peak.TABLE } }
    case 'node':
      return { node: parseNodeCommand(rest) }
    case 'report':
      if (rest.length !== 1 || !fs.existsSync(path.join(rest[0], 'summary.csv'))) {
        throw new ConfigError(`report needs one results folder (holding summary.csv), got ${JSON.stringify(rest.join(' '))}`)
      }
      return { reportDir: path.resolve(rest[0]) }
    default:
      throw new ConfigError(`${command === undefined ? 'no command' : `unknown command ${JSON.stringify(command)}`}; use sweep, quick, versions, run KIND, peak, report DIR or node (--help lists the flags)`)
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
  if (todo.node) return runNodeCommand(todo.node)
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
