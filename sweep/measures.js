'use strict'
// How the commands that run cells measure them (the runners sweep/commands.js names by its presets'
// `measure`), storage-check's two steps: the device measured, then the cells planned at its latencies, and
// threadpool's: the probes (sweep/threadpool/probes.js), then the cells.

const fs = require('node:fs')
const { runPlan, runSequence } = require('./runner')
const { runRounds } = require('./interleaved/rounds')
const cell = require('./cell/cell')
const { runProfiledRuns } = require('./cell/profiled')
const capacity = require('./capacity/run')
const peak = require('./peak/peak')
const { planCells } = require('./plan/grid')
const { delayFlags } = require('./plan/storage')
const { probeDevice } = require('../storage/device')
const { probeRuntimes, dropUnusedIoUring } = require('./threadpool/probes')

const cellRunner = { columns: cell.COLUMNS, table: cell.TABLE, marks: cell.MARKS }
const runsOf = (plan) => `${plan.runs.length} runs`

// run's runs (on servers as without --profile), then its profiled runs under --profile.
async function measureRuns (plan, ctx, add) {
  await runSequence(plan.runs, cell.runClientCell, { ...ctx, options: { ...ctx.options, profile: false } }, add)
  if (!plan.options.profile || ctx.signal.aborted) return null
  await runProfiledRuns(plan.runs, ctx, (line) => process.stderr.write(`${plan.command}: ${line}\n`)).catch((err) => {
    if (!ctx.signal.aborted) throw err
  })
  return null
}

/** How each command's cells are measured (sweep/runner.js runPlan), and the run in words. */
const RUNNERS = {
  rounds: { ...cellRunner, measure: runRounds, describe: (plan) => `${plan.cells.length} cells, interleaved` },
  capacity: { columns: capacity.COLUMNS, table: capacity.TABLE, measure: capacity.runCapacity,
    describe: (plan) => `${plan.cells.length} cells, each searched on a fresh server every round` },
  sequence: { ...cellRunner, measure: measureRuns, describe: runsOf },
  peak: { columns: peak.COLUMNS, table: peak.TABLE, measure: (plan, ctx, add) => runSequence(plan.runs, peak.runPeakCell, ctx, add), describe: runsOf }
}

/**
 * storage-check's arguments: checked whole first, at a stand-in latency until the device is measured, unless
 * --ioDelay names one.
 * @param {object} preset its preset (sweep/commands.js)
 * @param {string[]} rest the flags
 * @returns {{ plan: object, rest: string[], delay: string[] }}
 */
function parseStorageCheck (preset, rest) {
  const delay = rest.some((a) => a.startsWith('--ioDelay=')) ? [] : ['--ioDelay=1000']
  return { plan: planCells(preset, [...delay, ...rest]), rest, delay }
}

/**
 * storage-check: fio measures the device where the data will be, then the cells run with the delay layer at
 * its mean read latencies at queue depths 1 and 4 (unless --ioDelay was given).
 * @param {object} preset
 * @param {{ plan: object, rest: string[], delay: string[] }} parsed from parseStorageCheck
 * @returns {Promise<number>} the exit status
 */
async function runStorageCheck (preset, { plan, rest, delay }) {
  if (delay.length === 0) return runPlan(plan, RUNNERS.rounds)
  fs.mkdirSync(plan.config.dataPath, { recursive: true })
  const device = probeDevice(plan.config.dataPath, { fileBytes: plan.config.fileBytes, log: (line) => process.stderr.write(`storage-check: ${line}\n`) })
  const flags = delayFlags(device)
  process.stderr.write(`storage-check: the delay layer at ${flags.join(' ')}: the device's mean read latencies (µs) at queue depths 1 and 4\n`)
  const measured = planCells(preset, [...flags, ...rest])
  return runPlan({ ...measured, envExtra: { ...measured.envExtra, device } }, RUNNERS.rounds)
}

/**
 * threadpool: the probes, then the cells (less the io_uring ones where libuv keeps these calls in its pool).
 * @param {{ plan: object }} parsed from parseThreadpool
 * @returns {Promise<number>} the exit status
 */
async function runThreadpool ({ plan }) {
  const probes = await probeRuntimes(plan.cells, plan.config.dataPath, (line) => process.stderr.write(`threadpool: ${line}\n`))
  const { cells, notes } = dropUnusedIoUring(plan.cells, probes.ioUring)
  const threadpool = { ...probes, notes }
  return runPlan({ ...plan, cells, notes: [...plan.notes, ...notes], envExtra: { ...plan.envExtra, threadpool } }, RUNNERS.rounds)
}

module.exports = { RUNNERS, parseStorageCheck, runStorageCheck, runThreadpool }
