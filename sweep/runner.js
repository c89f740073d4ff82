'use strict'
// Runs a plan's schedule into a fresh results folder: env.json, summary.csv row by row, a progress
// bar on a terminal, Ctrl-C (stop the current cell, keep what finished, exit 130), a median table,
// the report and its verdict lines (answer.txt) at the end; --quiet: only those lines.

const fs = require('node:fs')
const os = require('node:os')
const { setMaxListeners } = require('node:events')
const path = require('node:path')
const { ROOT, ConfigError } = require('../lib/config')
const { progressBar, holdStderr } = require('../lib/progress')
const { planEnv, finishEnv } = require('./results/env')
const { measureFingerprint, fingerprintLine } = require('../lib/machine/fingerprint')
const { renderReport } = require('../report')
const { createResultsDir, writeJson, createSummary } = require('./results/folder')
const { createDataRoot, removeLeftovers } = require('./results/data-root')
const { formatTable } = require('./results/table')
const { cleanStaleMounts } = require('../storage')
const { cleanStaleCgroups } = require('../storage/cgroup')
const { probeDevice } = require('../storage/device')
const { openHosts } = require('./cell/placement')
const { cleanStaleRunDirs } = require('../balancer/run-dir')
const { remotePath } = require('./hosts/hosts')
const { openData } = require('../client/data-host')
const { gateFolder } = require('./rev-gate')
const { fileFigures, filesSentence } = require('../report/stats/run-figures')

// The ANSI colours of a verdict line: an A/A pair that is not the same red, undecided yellow, a difference
// bold, the same plain, a profile's line dim.
const COLOURS = [[/^A\/A: .*(faster|undecided)$/, 31], [/^why /, 2], [/undecided$/, 33], [/(faster|cheaper)$/, 1]]

/**
 * The verdict lines, coloured on a terminal unless NO_COLOR is set (no-color.org).
 * @param {string} text answer.txt
 * @param {{ isTTY?: boolean }} stream
 * @param {object} [env]
 * @returns {string}
 */
function colourLines (text, stream, env = process.env) {
  if (!stream.isTTY || env.NO_COLOR) return text
  return text.split('\n').map((line) => {
    const code = line && COLOURS.find(([pattern]) => pattern.test(line))?.[1]
    return code ? `\x1b[${code}m${line}\x1b[0m` : line
  }).join('\n')
}

/**
 * Renders a results folder's report, prints the path of report.html on stdout, then its verdict
 * lines (answer.txt), if it has any.
 * @param {string} dir
 * @param {{ quiet?: boolean }} [how] quiet: the verdict lines only
 * @returns {number} exit status: 0, or 1 with a line on stderr if the report failed
 */
function report (dir, { quiet = false } = {}) {
  try {
    renderReport(dir)
  } catch (err) {
    process.stderr.write(`run_benchmark.sh: the report failed: ${err.message}\n`)
    return 1
  }
  if (!quiet) process.stdout.write(`${path.join(dir, 'report.html')}\n`)
  const answer = path.join(dir, 'answer.txt')
  if (fs.existsSync(answer)) process.stdout.write(colourLines(fs.readFileSync(answer, 'utf8'), process.stdout))
  return 0
}

/**
 * Measures a plan's cells and writes the results folder.
 * @param {{ command: string, config: object, options: object, grid: object, cells?: object[], runs?: object[], envExtra?: object }} plan
 * @param {{ columns: string[], table: object[], marks?: object[], describe(plan): string,
 *   measure(plan, ctx, add): Promise<object|null> }} runner summary columns, figures and marks for the table (sweep/results/table.js),
 *   the run in words, and how its cells are measured (sweep/commands.js): rows go to add(row); an outcome of rounds, if any
 * @returns {Promise<number>} exit status: 0 all valid or measured again, 1 a fault (rowsStatus) or no report (or, with --fail-on=slower, this tree slower
 *   than a --rev revision: sweep/rev-gate.js), 2 the server's namespace
 *   cannot be made (--hosts=netns), 128 + signal if interrupted
 */
async function runPlan (plan, runner) {
  const release = plan.options.quiet ? holdStderr() : () => {}
  let status = 1
  try {
    status = await runOnHosts(plan, runner)
    return status
  } finally {
    release(status !== 0)
  }
}

async function runOnHosts (plan, runner) {
  const { command, options } = plan
  const say = (line) => process.stderr.write(`${command}: ${line}\n`)
  // What a killed run left (namespaces, HAProxy folders) goes first; then this run's namespace.
  cleanStaleRunDirs(say)
  let hosts
  try {
    hosts = openHosts(options.hosts ?? 'local', say)
  } catch (err) {
    process.stderr.write(`run_benchmark.sh: ${err.message}\n`)
    return 2
  }
  if (hosts) {
    const link = hosts.netem ? 'netem' : `no netem here (${hosts.netemProblem}): a relay adds the round trip`
    say(`server side in namespace ${hosts.name} at ${hosts.server}, client at ${hosts.client} (${link})`)
  }
  try {
    return await runHosted(plan, runner, hosts)
  } finally {
    for (const failed of hosts?.remove() ?? []) say(`could not remove: ${failed}`)
  }
}

// The run's data root: a folder of this run on the server host (through ssh), or here, after what killed runs
// left in dataPath is cleaned up. { root, release() }; remote.data is set for the server host's.
function openDataRoot (plan, dir, remote) {
  const { command, config, options } = plan
  if (remote?.server) {
    // The data on the server host: a folder of this run there, made and removed by a data worker that
    // ends with its ssh session (client/data-host.js).
    const root = path.join(remotePath(remote.dir, config.dataPath), `cbench-remote-${path.basename(dir)}`)
    remote.data = openData({ host: remote.server.host, root, ssh: remote.ssh, dir: remote.dir, keep: options.keepData })
    return { root, release: () => remote.data.close() }
  }
  fs.mkdirSync(config.dataPath, { recursive: true })
  // A mount an earlier, killed run left in dataPath would break or slow this one (and its folder's removal).
  cleanStaleMounts((line) => process.stderr.write(`${command}: ${line}\n`), config.dataPath)
  for (const root of removeLeftovers(config.dataPath)) process.stderr.write(`${command}: removed ${root}, left by a sweep that is gone\n`)
  cleanStaleCgroups((line) => process.stderr.write(`${command}: ${line}\n`))
  return createDataRoot(config.dataPath, path.basename(dir), options.keepData)
}

// Ctrl-C and SIGTERM stop the current cell and keep what finished: { signal, release() }, the abort's reason
// carrying the exit status (128 + the signal's number).
function trapSignals (cells) {
  const controller = new AbortController()
  const { signal } = controller
  // Every live cell's server start and window waits on it at once: 30 cells (runtimes) are more than the default 10.
  setMaxListeners(4 * Math.max(10, cells), signal)
  const onSignal = (sig) => {
    if (signal.aborted) return
    process.stderr.write(`\n${sig}: stopping the current cell; finished cells are kept\n`)
    controller.abort(Object.assign(new Error(`interrupted by ${sig}`), { status: 128 + os.constants.signals[sig] }))
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return { signal, release: () => { process.off('SIGINT', onSignal); process.off('SIGTERM', onSignal) } }
}

async function runHosted (plan, { columns, table, marks, describe, measure }, hosts) {
  const { command, config, options, runs } = plan
  const dir = createResultsDir(options.results ?? path.join(ROOT, 'results'), command)
  const envFile = path.join(dir, 'env.json')
  const env = planEnv(plan)
  writeJson(envFile, env)
  // The machine's costs as the run starts (with hosts: this machine's, where the sweep runs).
  env.fingerprint = await measureFingerprint()
  writeJson(envFile, env)
  process.stderr.write(`${command}: ${fingerprintLine(env.fingerprint)}${hosts ? ' (this machine, where the sweep runs)' : ''}\n`)
  const append = createSummary(path.join(dir, 'summary.csv'), columns)
  const remote = plan.remote && { ...plan.remote }
  const data = openDataRoot(plan, dir, remote)
  // A cold run's device, measured where its data sets will be (storage-check measured it before planning).
  if (plan.cells?.some((c) => c.storage === 'cold') && !env.device) {
    env.device = probeDevice(data.root, { fileBytes: config.fileBytes, log: (line) => process.stderr.write(`${command}: ${line}\n`) })
    writeJson(envFile, env)
  }
  const dataRoot = data.root
  process.stderr.write(`${command}: ${describe(plan)}, into ${dir}\n`)
  for (const note of plan.notes ?? []) process.stderr.write(`${command}: ${note}\n`)

  const { signal, release } = trapSignals(plan.cells?.length ?? 0)
  const rows = []
  const ctx = { dir, dataRoot, options, signal, hosts, remote }
  const add = (row) => { append(row); rows.push(row) }
  let outcome = null
  try {
    outcome = await measure(plan, ctx, add)
  } finally {
    release()
    await data.release()
  }
  writeJson(envFile, finishEnv(env, { interrupted: signal.aborted, rounds: outcome }))
  if (outcome) {
    process.stderr.write(`${command}: ${outcome.rounds} rounds (${outcome.disturbed} disturbed); stopped: ${outcome.stop}\n`)
    const files = filesSentence(fileFigures(rows, options.freshFiles === true))
    if (files) process.stderr.write(`${command}: ${files}\n`)
  }
  process.stderr.write(formatTable(rows, table, marks))
  if (options.keepData) process.stderr.write(`data kept in ${dataRoot}${remote?.server ? ` on ${remote.server.host.text}` : ''}\n`)
  if (signal.aborted) {
    process.stderr.write(`interrupted: ${rows.length} ${plan.cells ? 'rows' : `of ${runs.length} runs`} kept in ${path.join(dir, 'summary.csv')}\n`)
    return signal.reason.status
  }
  const status = Math.max(report(dir, options), rowsStatus(rows))
  return options['fail-on'] ? Math.max(status, gateFolder(dir, options.quiet ? process.stdout : process.stderr)) : status
}

/**
 * The rows' part of the exit status: 1 when a row is invalid for a fault (a failed request, a lost acknowledgement, a server
 * gone or never started) or a cell has no valid row; a round measured again (`again`: disturbed, its cache drifted) is not one.
 * @param {{ cell: string, valid: boolean, again?: boolean }[]} rows
 * @returns {0|1}
 */
function rowsStatus (rows) {
  const measured = new Set(rows.filter((r) => r.valid).map((r) => r.cell))
  return rows.every((r) => (r.valid || r.again) && measured.has(r.cell)) ? 0 : 1
}

/**
 * Runs the runs of run and peak in the schedule's order, each on a fresh server and client.
 * @param {object[]} runs the plan's schedule
 * @param {(run: object, ctx: object) => Promise<object>} runCell one run's row
 * @param {object} ctx the run's folder, data root, options, signal, hosts
 * @param {(row: object) => void} add
 * @returns {Promise<null>} no rounds
 */
async function runSequence (runs, runCell, ctx, add) {
  const bar = progressBar(runs.length, '{bar} {value}/{total} runs | {duration_formatted} elapsed | ETA {eta_formatted} | {run}', { run: '' })
  try {
    for (const run of runs) {
      bar?.update({ run: `${run.cell.id} r${run.repeat}` })
      const row = await runCell(run, ctx).catch((err) => {
        if (!ctx.signal.aborted) throw err
      })
      if (row) {
        add(row)
        bar?.increment()
      }
      if (ctx.signal.aborted) break
    }
  } finally {
    bar?.stop()
  }
  return null
}

/**
 * The report command's argument: one results folder, holding summary.csv.
 * @param {string[]} rest
 * @returns {string} its absolute path
 * @throws {ConfigError}
 */
function parseReportDir (rest) {
  if (rest.length !== 1 || !fs.existsSync(path.join(rest[0], 'summary.csv'))) {
    throw new ConfigError(`report needs one results folder (holding summary.csv), got ${JSON.stringify(rest.join(' '))}`)
  }
  return path.resolve(rest[0])
}

module.exports = { runPlan, runSequence, report, parseReportDir, colourLines, rowsStatus }
