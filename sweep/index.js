'use strict'
// Entry of ./run_benchmark.sh: `node sweep/index.js COMMAND [--KEY=VALUE ...]` runs the sweep,
// quick, versions, capacity, run KIND, peak or node command, or hands report DIR and compare A B to report/;
// --help lists commands and flags.

const fs = require('node:fs')
const path = require('node:path')
const { runMain, ConfigError } = require('../lib/config')
const { KIND_NAMES } = require('../lib/kinds')
const { planSweep } = require('./grid')
const cell = require('./cell')
const peak = require('./peak')
const capacity = require('./capacity/run')
const { runPlan, report } = require('./runner')
const { parseNodeCommand, runNodeCommand } = require('./node-command')
const { sweepHelp } = require('./help')
const { wantsHelp } = require('../lib/help')
const { runCompare } = require('../report/compare')
const { parseHostsCommand, runHostsCommand } = require('./hosts')

const COMMANDS = ['sweep', 'quick', 'versions', 'capacity', 'run', 'peak', 'report', 'compare', 'node', 'hosts']

/**
 * Turns the command line into what to do.
 * @param {string[]} argv arguments after the script
 * @returns {{ help: string|null } | { reportDir: string } | { compare: string[] } | { node: object } | { plan: object, runner: object }}
 *   help: the command whose help is asked for, null for all
 * @throws {ConfigError} for an unknown command or a bad flag
 */
function parseCommand (argv) {
  const [command, ...rest] = argv
  if (wantsHelp(argv)) return { help: COMMANDS.includes(command) ? command : null }
  if (command === 'compare') return { compare: rest }
  const sweep = { columns: cell.COLUMNS, runCell: cell.runClientCell, table: cell.TABLE, marks: cell.MARKS }
  switch (command) {
    case 'sweep':
    case 'quick':
    case 'versions':
      return { plan: planSweep(command, rest), runner: sweep }
    case 'capacity':
      return { plan: planSweep('capacity', rest), runner: { columns: capacity.COLUMNS, table: capacity.TABLE } }
    case 'run':
      if (rest[0] === undefined || rest[0].startsWith('--')) throw new ConfigError(`run needs a KIND: ${KIND_NAMES.join(', ')}`)
      return { plan: planSweep('run', rest.slice(1), rest[0]), runner: sweep }
    case 'peak':
      return { plan: peak.planPeak(rest), runner: { columns: peak.COLUMNS, runCell: peak.runPeakCell, table: peak.TABLE } }
    case 'node':
      return { node: parseNodeCommand(rest) }
    case 'hosts':
      return { hosts: parseHostsCommand(rest) }
    case 'report':
      if (rest.length !== 1 || !fs.existsSync(path.join(rest[0], 'summary.csv'))) {
        throw new ConfigError(`report needs one results folder (holding summary.csv), got ${JSON.stringify(rest.join(' '))}`)
      }
      return { reportDir: path.resolve(rest[0]) }
    default: {
      const what = command === undefined ? 'no command' : `unknown command ${JSON.stringify(command)}`
      throw new ConfigError(`${what}; use sweep, quick, versions, capacity, run KIND, peak, report DIR, compare A B, node or hosts check|clean ` +
        '(--help lists the flags)')
    }
  }
}

/**
 * Runs the command line.
 * @param {string[]} argv
 * @returns {Promise<number>} the exit status
 */
async function main (argv) {
  const todo = runMain('run_benchmark.sh', () => parseCommand(argv))
  if (todo.help !== undefined) {
    process.stdout.write(sweepHelp(todo.help))
    return 0
  }
  if (todo.reportDir) return report(todo.reportDir)
  if (todo.compare) return runCompare(todo.compare)
  if (todo.node) return runNodeCommand(todo.node)
  if (todo.hosts) return runHostsCommand(todo.hosts)
  return runPlan(todo.plan, todo.runner)
}

if (require.main === module) {
  main(process.argv.slice(2)).then((status) => { process.exitCode = status }, (err) => {
    // Expected failures (a full disk, an unwritable folder) carry a code and need no stack.
    process.stderr.write(`run_benchmark.sh: ${err.code ? err.message : err.stack}\n`)
    process.exitCode = 1
  })
}

module.exports = { main, COMMANDS }
