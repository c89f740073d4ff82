'use strict'
// Entry of ./run_benchmark.sh: `node sweep/index.js COMMAND [--KEY=VALUE ...]` runs one command of the
// table in sweep/commands.js (parse its arguments, then run it); --help lists commands and flags.

const { runMain, ConfigError } = require('../lib/config')
const { wantsHelp } = require('../lib/entry-help')
const { COMMANDS } = require('./commands')
const { sweepHelp } = require('./help')

/**
 * Turns the command line into what to do.
 * @param {string[]} argv arguments after the script
 * @returns {{ help: string|null } | { command: string, todo: any }} help: the command whose help is asked for, null
 *   for all; todo: what the command's parse gave, for its run
 * @throws {ConfigError} for an unknown command or a bad flag
 */
function parseCommand (argv) {
  const [command, ...rest] = argv
  const known = Object.hasOwn(COMMANDS, command ?? '')
  if (wantsHelp(argv)) return { help: known ? command : null }
  if (!known) {
    const what = command === undefined ? 'no command' : `unknown command ${JSON.stringify(command)}`
    throw new ConfigError(`${what}; use ${Object.values(COMMANDS).map((c) => c.name).join(', ')} (--help lists the flags)`)
  }
  return { command, todo: COMMANDS[command].parse(rest) }
}

/**
 * Runs the command line.
 * @param {string[]} argv
 * @returns {Promise<number>} the exit status
 */
async function main (argv) {
  const parsed = runMain('run_benchmark.sh', () => parseCommand(argv))
  if (parsed.help !== undefined) {
    process.stdout.write(sweepHelp(parsed.help))
    return 0
  }
  return COMMANDS[parsed.command].run(parsed.todo)
}

if (require.main === module) {
  main(process.argv.slice(2)).then((status) => { process.exitCode = status }, (err) => {
    // Expected failures (a full disk, an unwritable folder) carry a code and need no stack.
    process.stderr.write(`run_benchmark.sh: ${err.code ? err.message : err.stack}\n`)
    process.exitCode = 1
  })
}

module.exports = { main }
