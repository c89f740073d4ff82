'use strict'
// The peak command: saturation throughput of each server kind (and nServers for the cluster
// kinds), GET-only and POST-only, driven by autocannon in this process.

const path = require('node:path')
const autocannon = require('autocannon')
const hdr = require('hdr-histogram-js')
const { forkRemote } = require('../../lib/machine/remote-fork')
const { planRemote } = require('../hosts/hosts')
const { loadConfig, int, ConfigError } = require('../../lib/config')
const { KIND_NAMES, isMultiProcess, kindProblem } = require('../../lib/kinds')
const { runOptions, SWEEP_LISTS, RUN_OPTIONS, COMMON_FLAGS } = require('../plan/options')
const { takeLists, cross } = require('../plan/lists')
const { schedule } = require('../plan/schedule')
const { resolveRuntimes } = require('../plan/runtimes')
const { nodeSpec } = require('../../lib/install/node-versions')
const { withServer, dataOf } = require('../cell/harness')
const { writeJson } = require('../results/folder')

const COLUMNS = ['cell', 'repeat', 'order', 'kind', 'nServers', 'op', 'connections', 'duration', 'pipelining',
  'valid', 'reason', 'reqPerSec', 'latencyMeanMs', 'latencyP99Ms', 'errors', 'non2xx', 'node', 'v8', 'uv', 'hosts', 'serverHost', 'clientHosts']
const PEAK_OPTIONS = { ...RUN_OPTIONS, connections: int(1, 10000), duration: int(1, 3600), pipelining: int(1, 1000) }
const PEAK_LISTS = { kinds: SWEEP_LISTS.kinds, nServers: SWEEP_LISTS.nServers, node: nodeSpec }
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
  if (argv.some((a) => a.startsWith('--runtime='))) throw new ConfigError('--runtime: peak runs its servers on Node, a version each (--node)')
  const { lists, rest } = takeLists(argv, PEAK_LISTS)
  const { config, options: given } = loadConfig([...COMMON_FLAGS, ...rest], PEAK_OPTIONS)
  const options = runOptions(given, PEAK_DEFAULTS)
  const nodes = resolveRuntimes(lists.node?.map((v) => `node@${v}`))
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
    const { path: runtimeBin, node, v8, uv } = combo.node
    cells.set(id, { ...combo, id, node, runtime: `node-${node}`, runtimeBin, runtimeArgs: [], v8, uv, config: { ...config, nServers: combo.nServers } })
  }
  if (cells.size === 0) throw new ConfigError(`nothing to run: ${[...skipped].join('; ')}`)
  for (const line of skipped) process.stderr.write(`skipped ${line}\n`)
  if (options.clientHosts?.length > options.connections) {
    throw new ConfigError(`--clientHosts names ${options.clientHosts.length} hosts for --connections=${options.connections}: each host needs one at least`)
  }
  const remote = planRemote(options, { cells: [...cells.values()], serverHostname: config.serverHostname, clientVersion: process.version })
  const runs = schedule([...cells.values()], options.rounds, options.seed)
  return { command: 'peak', config, options, grid, runs, remote,
    envExtra: { latencyUnit: LATENCY_UNIT, runtimes: nodes, skipped: [...skipped], ...(remote && { hosts: remote.checked }) } }
}

// The load from the client hosts: each runs a shard of the connections (sweep/peak/worker.js), all
// sent their options at once; their latency histograms are added (autocannon's aggregateResult) and
// req/s is the sum of each shard's own rate. shards: each host's req/s and p99.
async function loadShards (opts, remote, signal) {
  const n = remote.clients.length
  const shards = remote.clients.map((host) => forkRemote(host, 'sweep/peak/worker.js', [], { ssh: remote.ssh, dir: remote.dir, node: process.version }))
  const stop = () => { for (const child of shards) child.disconnect() }
  signal.addEventListener('abort', stop)
  try {
    const results = await Promise.all(shards.map((child, k) => new Promise((resolve, reject) => {
      child.once('message', ({ result }) => resolve(result))
      child.once('close', (code, sig) => reject(new Error(`client host ${child.host}: its load ended (${sig || `code ${code}`}) before its result`)))
      child.send({ opts: { ...opts, connections: Math.floor(opts.connections / n) + (k < opts.connections % n ? 1 : 0) } })
    })))
    const result = autocannon.aggregateResult(results, opts)
    const rate = (r) => r.totalCompletedRequests / r.duration
    result.requests.average = results.reduce((a, r) => a + rate(r), 0)
    const p99 = (r) => hdr.decodeFromCompressedBase64(r.latencies).getValueAtPercentile(99)
    result.shards = results.map((r, k) => ({ host: shards[k].host, reqPerSec: rate(r), latencyP99Ms: p99(r) }))
    return result
  } finally {
    signal.removeEventListener('abort', stop)
    stop()
  }
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
  const { nFiles, value } = cell.config
  const fields = await withServer(run, ctx, async ({ server, dataPath, files, placement }) => {
    const keys = Array.from({ length: nFiles }, (_, i) => `peak${i}`)
    const lines = `${value}\n`.repeat(FILE_RECORDS)
    if (cell.op === 'GET') await dataOf(ctx).call('make', { dir: dataPath, files: Object.fromEntries(keys.map((key) => [path.join(dataPath, key), lines])) })
    const serverHostname = placement.serverHostname ?? cell.config.serverHostname
    const requests = keys.map((key) => (cell.op === 'GET'
      ? { method: 'GET', path: `/get?key=${key}` }
      : { method: 'POST', path: `/put?key=${key}`, body: value }))
    const opts = { url: `http://${serverHostname}:${server.port}`, connections, duration, pipelining, requests }
    const result = ctx.remote?.clients ? await loadShards(opts, ctx.remote, ctx.signal) : await load(opts, ctx.signal)
    if (ctx.signal.aborted) throw ctx.signal.reason
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
      ...(result.shards && { clientHosts: result.shards.map((h) => `${h.host} ${Math.round(h.reqPerSec)} req/s p99 ${h.latencyP99Ms} ms`).join('; ') }),
      reason: failures.filter(Boolean).join(', ')
    }
  })
  return {
    cell: cell.id, repeat, order, kind: cell.kind, nServers: cell.nServers, op: cell.op, connections, duration, pipelining,
    node: cell.node, v8: cell.v8, uv: cell.uv, ...fields
  }
}

module.exports = { planPeak, runPeakCell, COLUMNS, TABLE, PEAK_OPTIONS, PEAK_LISTS, PEAK_DEFAULTS, PEAK_NSERVERS }
