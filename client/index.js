'use strict'
// `node client [--config=FILE] [--KEY=VALUE ...] [--out=FILE] [--json=FILE]`: loads the server,
// verifies what it wrote, prints CSV on stdout (or --out), a summary on stderr, JSON to --json;
// --help lists the flags.

const fs = require('node:fs')
const path = require('node:path')
const { loadConfig, runMain, ConfigError, refuse } = require('../lib/config')
const { wantsHelp, helpSection, entryHelp } = require('../lib/help')
const { describeEnv } = require('../lib/env')
const { watchParent } = require('../lib/parent-watch')
const { newRunId, decodeBitset } = require('./ledger')
const { runClients, UnreachableError } = require('./run')
const { fileSizes, verifyFiles } = require('./verify')
const { buildReport, formatSummary } = require('./report')
const { formatCsv } = require('./csv')

// A file to write at the end: its folder must be writable now, not after the run.
const outputFile = Object.assign((v) => {
  if (typeof v !== 'string' || v === '') refuse('must be a file name')
  try {
    fs.accessSync(path.dirname(path.resolve(v)), fs.constants.W_OK)
  } catch (err) {
    refuse(`must be in a writable folder (${err.code})`)
  }
  return v
}, { takes: 'a file name in a writable folder' })

const FLAGS = { out: outputFile, json: outputFile }
const FLAGS_HELP = { out: 'write the CSV to this file instead of stdout', json: 'write the whole report as JSON to this file' }

function help () {
  return entryHelp({
    usage: 'node client [--config=FILE] [--KEY=VALUE ...] [--out=FILE] [--json=FILE]',
    about: 'Loads a server that speaks the experiment\'s interface (GET /get?key=K, POST /put?key=K) from nClients\n' +
      'processes, verifies what it wrote, prints CSV on stdout (or --out) and a summary on stderr.\n' +
      'Exit status: 0 every operation succeeded and verification passed, 1 otherwise, 2 a bad flag.',
    sections: [helpSection('Client flags', FLAGS, FLAGS_HELP, { out: 'stdout', json: 'none' })]
  })
}

/**
 * Runs the client: exit status 0 when every operation succeeded and verification passed, else 1
 * (the CSV and JSON still say what failed).
 * @param {string[]} argv arguments after the script name
 * @returns {Promise<number>} the exit status
 * @throws {ConfigError} at once, for a bad config or flag, or an unreadable dataPath
 */
function main (argv) {
  if (wantsHelp(argv)) {
    process.stdout.write(help())
    return Promise.resolve(0)
  }
  const { config, options } = loadConfig(argv, FLAGS)
  let sizesBefore = null
  if (config.verify) {
    try {
      sizesBefore = fileSizes(config)
    } catch (err) {
      throw new ConfigError(`dataPath ${config.dataPath} is not a readable folder (${err.code}): ` +
        'verification reads the server\'s files; use --verify=false for a remote server')
    }
  }
  return runClient(config, options, sizesBefore)
}

// Why the files are not checked, or null. A server that did not announce itself as one of this
// project's (X-Bench-Stats) writes somewhere else than the project's own data folder: its files
// are checked where the user says they are, never in a folder it does not write to.
function unverifiable (config, announced) {
  if (!config.verify) return 'skipped (--verify=false)'
  if (announced !== null || config.dataPath !== loadConfig([]).config.dataPath) return null
  return `not done: the server did not announce itself as one of this project's, and dataPath is this project's own folder (${config.dataPath}); ` +
    '--dataPath=ITS_DATA_FOLDER checks its files'
}

async function runClient (config, options, sizesBefore) {
  const runId = newRunId()
  let run
  try {
    run = await runClients(config, { runId, progress: process.stderr.isTTY === true })
  } catch (err) {
    if (!(err instanceof UnreachableError)) throw err
    process.stderr.write(`client: ${err.message}\n`)
    return 1
  }
  const acks = run.processes.map(({ result }) => result && { w: decodeBitset(result.acks.w), c: decodeBitset(result.acks.c) })
  const notChecked = unverifiable(config, run.announced)
  const verification = notChecked === null ? verifyFiles({ config, runId, sizesBefore, acks }) : { checked: false, reason: notChecked }
  const primaryMaxRssKb = process.resourceUsage().maxRSS // after verification, its biggest cost
  const report = buildReport({ config, runId, env: describeEnv(), run, verification, primaryMaxRssKb })
  const csv = formatCsv(report)
  if (options.out) fs.writeFileSync(options.out, csv)
  else process.stdout.write(csv)
  if (options.json) fs.writeFileSync(options.json, JSON.stringify(report, null, 2) + '\n')
  process.stderr.write(formatSummary(report))
  return report.ok ? 0 : 1
}

if (require.main === module) {
  // Its client processes follow it out through their IPC channels.
  watchParent(() => {
    process.stderr.write('client: the process that started it is gone; stopping\n')
    process.exit(1)
  })
  runMain('client', () => main(process.argv.slice(2))).then((code) => { process.exitCode = code })
}

module.exports = { main }
