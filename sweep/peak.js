'use strict'
// The peak command: saturation throughput of each server kind (and nServers for the cluster
// kinds), GET-only and POST-only, driven by autocannon in this process.

const fs = require('node:fs')
const path = require('node:path')
const autocannon = require('autocannon')
const { loadConfig, int, ConfigError } = require('../lib/config')
const { isMultiProcess, kindProblem } = require('../lib/kinds')
const { runOptions, KIND_NAMES, SWEEP_LISTS, RUN_OPTIONS, COMMON_FLAGS } = require('./grid')
const { takeLists, cross } = require('./lists')
const { schedule } = require('./schedule')
const { resolveNodes } = require('./nodes')
const { withServer } = require('./harness')
const { writeJson } = require('./results')

const COLUMNS = ['cell', 'repeat', 'order', 'kind', 'nServers', 'op', 'connections', 'duration', 'pipelining',
  'valid', 'reason', 'reqPerSec', 'latencyMeanMs', 'latencyP99Ms', 'errors', 'non2xx', 'node', 'v8', 'uv']
const PEAK_OPTIONS = { ...RUN_OPTIONS, connections: int(1, 10000), duration: int(1, 3600), pipelining: int(1, 1000) }
const PEAK_LISTS = { kinds: SWEEP_LISTS.kinds, nServers: SWEEP_LISTS.nServers, node: SWEEP_LISTS.node }
const PEAK_DEFAULTS = { rounds: 1, connections: 10, duration: 10, pipelining: 1 }
const PEAK_NSERVERS = [1, 2, 4]
const FILE_RECORDS = 100 // lines of `value` in each file a GET reads
const TABLE = [{ title: 'req/s', key: 'reqPerSec' }, { title: 'mean ms', key: 'latencyMeanMs', digits: 1 }, { title: 'p99 ms', key: 'latencyP99Ms' }]
const LATENCY_UNIT = 'ms: autocannon records latency in whole milliseconds (sub-ms reads as 0 or 1); use it for throughput'

/**
 * Plans the peak command.
 * @param {string[]} argv the flags
 * @returns {object} command, config, options, grid, runs and envExtra
 * @throws {ConfigError} for a bad flag or value
 */
function planPeak (argv) {
  const { lists, rest } = takeLists(argv, PEAK_LISTS)
  const { config, options: given } = loadConfig([...COMMON_FLAGS, ...rest], PEAK_OPTIONS)
  const options = runOptions(given, PEAK_DEFAULTS)
  const nodes = resolveNodes(lists.node)
  const grid = { kinds: KIND_NAMES, nServers: PEAK_NSERVERS, ...lists, node: nodes.map((n) => n.node), ops: ['GET', 'POST'], rounds: options.rounds }
  const cells = new Map()
  const skipped = new Set()
  for (const combo of cross([['kind', grid.kinds], ['nServers', grid.nServers], ['node', nodes], ['op', grid.ops]])) {
    if (!isMultiProcess(combo.kind)) combo.nServers = 1
    const problem = kindProblem(combo.kind, { version: combo.node.node })
    if (problem) {
      skipped.add(`${combo.kind} on Node ${combo.node.node}: ${problem}`)
      continue
    }
    const id = `${combo.kind}-s${combo.nServers}${lists.node ? `-node-${combo.node.node}` : ''}-${combo.op.toLowerCase()}`
    const { path: nodeBin, node, v8, uv } = combo.node
    cells.set(id, { ...combo, id, node, nodeBin, v8, uv, config: { ...config, nServers: combo.nServers } })
  }
  if (cells.size === 0) throw new ConfigError(`nothing to run: ${[...skipped].join('; ')}`)
  for (const line of skipped) process.stderr.write(`skipped ${line}\n`)
  const runs = schedule([...cells.values()], options.rounds, options.seed)
  return { command: 'peak', config, options, grid, runs, envExtra: { latencyUnit: LATENCY_UNIT, nodes, skipped: [...skipped] } }
}

async function load (opts, signal) {
  const instance = autocannon(opts)
  const stop = () => instance.stop()
  signal.addEventListener('abort', stop)
  let result
  try {
    result = await instance
  } finally {
    signal.removeEventListener('abort', stop)
  }
  if (signal.aborted) throw signal.reason
  return result
}

/**
 * Runs one repeat of a peak cell; the autocannon result goes to cells/<cell>-r<repeat>.json.
 * @param {{ cell: object, repeat: number, order: number }} run
 * @param {{ dir: string, dataRoot: string, options: object, signal: AbortSignal }} ctx
 * @returns {Promise<object>} its summary.csv row
 */
async function runPeakCell (run, ctx) {
  const { cell, repeat, order } = run
  const { connections, duration, pipelining } = ctx.options
  const { nFiles, value, serverHostname } = cell.config
  const fields = await withServer(run, ctx, async ({ server, dataPath, files }) => {
    const keys = Array.from({ length: nFiles }, (_, i) => `peak${i}`)
    if (cell.op === 'GET') for (const key of keys) fs.writeFileSync(path.join(dataPath, key), `${value}\n`.repeat(FILE_RECORDS))
    const requests = keys.map((key) => (cell.op === 'GET'
      ? { method: 'GET', path: `/get?key=${key}` }
      : { method: 'POST', path: `/put?key=${key}`, body: value }))
    const result = await load({ url: `http://${serverHostname}:${server.port}`, connections, duration, pipelining, requests }, ctx.signal)
    writeJson(path.join(ctx.dir, files.json), result)
    const failures = [
      result.errors && `${result.errors} errors`,
      result.timeouts && `${result.timeouts} timeouts`,
      result.non2xx && `${result.non2xx} non-2xx responses`
    ]
    return {
      reqPerSec: result.requests.average,
      latencyMeanMs: result.latency.mean,
      latencyP99Ms: result.latency.p99,
      errors: result.errors,
      non2xx: result.non2xx,
      reason: failures.filter(Boolean).join(', ')
    }
  })
  return {
    cell: cell.id, repeat, order, kind: cell.kind, nServers: cell.nServers, op: cell.op, connections, duration, pipelining,
    node: cell.node, v8: cell.v8, uv: cell.uv, ...fields
  }
}

module.exports = { planPeak, runPeakCell, COLUMNS, TABLE, PEAK_OPTIONS, PEAK_LISTS, PEAK_DEFAULTS, PEAK_NSERVERS }
