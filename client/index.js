'use strict'
// `node client [--config=FILE] [--KEY=VALUE ...] [--out=FILE] [--json=FILE]`: loads the server,
// verifies what it wrote, prints CSV on stdout (or --out), a summary on stderr, JSON to --json;
// --help lists the flags.

const fs = require('node:fs')
const path = require('node:path')
const { loadConfig, runMain, ConfigError, refuse, ROOT } = require('../lib/config')
const { wantsHelp, helpSection, entryHelp } = require('../lib/entry-help')
const { describeEnv } = require('../lib/results/environment')
const { watchParent } = require('../lib/machine/parent-watch')
const { newRunId } = require('./ledger')
const { runClients, UnreachableError } = require('./run')
const { openData } = require('./data-host')
const { HOST_OPTIONS, parseHost } = require('../lib/machine/ssh')
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

const { clientHosts, ssh, remoteDir } = HOST_OPTIONS
const FLAGS = { out: outputFile, json: outputFile, clientHosts, dataHost: parseHost, ssh, remoteDir }
const FLAGS_HELP = {
  out: 'write the CSV to this file instead of stdout',
  json: 'write the whole report as JSON to this file',
  clientHosts: 'run the client processes on these hosts over ssh, in turn (each needs this checkout and this Node)',
  dataHost: 'the host over ssh where dataPath is (the server host): verification runs there',
  ssh: 'options for ssh, e.g. "-i KEY"',
  remoteDir: 'the checkout on the other hosts'
}
const FLAG_DEFAULTS = { out: 'stdout', json: 'none', clientHosts: 'this host', dataHost: 'this host', ssh: 'none', remoteDir: 'this checkout\'s path' }

function help () {
  return entryHelp({
    usage: 'node client [--config=FILE] [--KEY=VALUE ...] [--out=FILE] [--json=FILE]',
    about: 'Loads a server that speaks the experiment\'s interface (GET /get?key=K or /file?key=K, POST /put?key=K) from nClients\n' +
      'processes, verifies what it wrote, prints CSV on stdout (or --out) and a summary on stderr.\n' +
      'Exit status: 0 every operation succeeded and verification passed, 1 otherwise, 2 a bad flag.',
    sections: [helpSection('Client flags', FLAGS, FLAGS_HELP, FLAG_DEFAULTS)]
  })
}

/**
 * Runs the client: exit status 0 when every operation succeeded and verification passed, else 1
 * (the CSV and JSON still say what failed).
 * @param {string[]} argv arguments after the script name
 * @returns {Promise<number>} the exit status
 * @throws {ConfigError} at once, for a bad config or flag
 */
function main (argv) {
  if (wantsHelp(argv)) {
    process.stdout.write(help())
    return Promise.resolve(0)
  }
  const { config, options } = loadConfig(argv, FLAGS)
  if (options.clientHosts && options.clientHosts.length > config.nClients) {
    throw new ConfigError(`--clientHosts names ${options.clientHosts.length} hosts for nClients=${config.nClients} processes: each host needs one at least`)
  }
  return runClient(config, options)
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

// What the measured GETs of a read-only run must answer (client/get-check.js), or null: nothing checked.
// Taken once the warm-up is over: its creations have appended to the files, and nothing appends after.
// Only where the files are verified: elsewhere they may not be the ones the server reads.
async function expectedAnswers (config, options, data, announced) {
  if (config.readsPerWrite !== 'inf' || unverifiable(config, announced) !== null) return null
  return { sizes: await data.call('sizes', { config }), dataHere: !options.dataHost }
}

async function runClient (config, options) {
  const runId = newRunId()
  const dir = options.remoteDir ?? ROOT
  // The data files, here or on --dataHost (a worker there, through ssh; it keeps the folder).
  const data = openData(options.dataHost ? { host: options.dataHost, root: config.dataPath, keep: true, ssh: options.ssh, dir } : null)
  try {
    let sizesBefore = null
    if (config.verify) {
      try {
        sizesBefore = await data.call('sizes', { config })
      } catch (err) {
        process.stderr.write(`client: dataPath ${config.dataPath}${options.dataHost ? ` on ${options.dataHost.text}` : ''} is not a readable folder ` +
          `(${err.code ?? err.message}): verification reads the server's files; --dataHost=HOST reads them on the server's host, --verify=false skips it\n`)
        return 2
      }
    }
    let run
    try {
      const remote = options.clientHosts ? { hosts: options.clientHosts, ssh: options.ssh, dir } : null
      const expected = (announced) => expectedAnswers(config, options, data, announced)
      run = await runClients(config, { runId, progress: process.stderr.isTTY === true, remote, expectedAnswers: expected })
    } catch (err) {
      if (!(err instanceof UnreachableError)) throw err
      process.stderr.write(`client: ${err.message}\n`)
      return 1
    }
    const acks = run.processes.map(({ result }) => result && result.acks)
    const notChecked = unverifiable(config, run.announced)
    const verification = notChecked === null ? await data.call('verify', { config, runId, sizesBefore, acks }) : { checked: false, reason: notChecked }
    return finish(config, options, { runId, run, verification })
  } finally {
    await data.close()
  }
}

function finish (config, options, { runId, run, verification }) {
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
