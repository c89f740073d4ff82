'use strict'
// One run of a sweep cell: `node client` against a fresh server under a time limit, the server's
// CPU time meanwhile, and the client's JSON (with the server's telemetry) turned into a summary.csv row.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { ROOT } = require('../../lib/config')
const { SUMMARY, dimensionRow } = require('../../lib/results/dimensions')
const { runtimeLabel } = require('../../lib/install/runtime-specs')
const { formatHgrm, decodeHistogram } = require('../../lib/results/hgrm')
const { costFigures, storageFigures, BUSY_UTILIZATION } = require('./cost')
const { withServer, storageNow } = require('./harness')
const { runGroup, groupCpuUs } = require('./process-group')
const { writeText } = require('../results/folder')
const { connectRun } = require('./placement')

const CLIENT = path.join(ROOT, 'client')
const COLUMNS = SUMMARY.sweep.columns // lib/results/dimensions.js: the dimensions' columns, then the figures
const PROBLEMS = ['lost', 'duplicated', 'torn', 'unknown']
// The figures of the end-of-run table.
const TABLE = [
  { title: 'ops/s', key: 'opsPerSec' },
  { title: 'GET p50 µs', key: 'getP50' },
  { title: 'GET p99 µs', key: 'getP99' },
  { title: 'PUT p99 µs', key: 'putP99' },
  { title: 'client µs/req', key: 'clientCpuPerReqUs' },
  { title: 'server µs/req', key: 'serverCpuPerReqUs' },
  { title: 'loop busy', key: 'meanUtilization', digits: 2 },
  { title: 'fairness', key: 'fairness', digits: 2 }
]
const MARKS = [{
  key: 'clientBound',
  symbol: '*',
  note: 'client-bound in most valid repeats: the client used more CPU per request than the server, ' +
    `whose event loops were busy < ${BUSY_UTILIZATION * 100}% of the time`
}]

function readJsonOrNull (file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch {
    return null
  }
}

function measures (json) {
  const stat = (op, name) => json.latency?.[op]?.[name]
  const cpu = json.clientCpuUs
  return {
    wallTimeMs: json.wallTimeMs,
    opsPerSec: json.throughput,
    getMean: stat('GET', 'mean'),
    getP50: stat('GET', 'p50'),
    getP99: stat('GET', 'p99'),
    getMax: stat('GET', 'max'),
    putMean: stat('PUT', 'mean'),
    putP50: stat('PUT', 'p50'),
    putP99: stat('PUT', 'p99'),
    putMax: stat('PUT', 'max'),
    errors: json.errorCount,
    clientCpuUs: cpu && cpu.user + cpu.system
  }
}

// Each operation's merged histogram as cells/<cell>-r<repeat>-GET.hgrm (and -PUT), when it has one.
function writeHgrms (dir, jsonFile, json) {
  for (const [op, encoded] of Object.entries(json?.histograms ?? {})) {
    if (json.latency[op]?.count > 0) writeText(path.join(dir, jsonFile.replace(/\.json$/, `-${op}.hgrm`)), formatHgrm(decodeHistogram(encoded)))
  }
}

// HAProxy's own figures of the measured phase (balancer/stats.js), for the -lb kinds.
function balancerColumns (json) {
  const b = json?.serverStats?.balancer
  if (!b) return {}
  return { balancerRequests: b.requests, balancerFairness: Number(b.fairness.toFixed(4)), balancerCpuPerReqUs: b.cpuPerRequestUs ?? undefined }
}

/** Why the client's run is invalid, or '' if it is valid. A full disk says so first. */
function runProblem (client, json, log, timeoutMs) {
  // A client that wrote a complete JSON but did not exit hit Node 20's deadlock at shutdown
  // (nodejs/node#54918): its run is whole.
  if (client.timedOut && json?.ok) return ''
  if (client.timedOut) return `client did not finish within ${timeoutMs / 1000} s`
  if (client.code === 0 && json?.ok) return ''
  const full = (json?.errors?.PUT?.['http-507'] ?? 0) + (json?.warmup?.errors?.PUT?.['http-507'] ?? 0)
  if (full > 0) return `disk full: ${full} PUTs answered 507 Insufficient Storage`
  const how = `client exited (${client.signal || `code ${client.code}`})`
  if (!json) return `${how} without a readable JSON: ${log.lastLine()}`
  const found = json.verification || {}
  const problems = [json.errorCount && `${json.errorCount} failed requests`, ...PROBLEMS.map((p) => found[p] && `${found[p]} ${p}`)]
  return `${how}: ${problems.filter(Boolean).join(', ') || log.lastLine()}`
}

// The client hosts' own figures (client/report.js hostFigures) as summary.csv text, and how well
// their measured phases overlapped; nothing when the client ran here.
function hostColumns (json) {
  const shards = json?.clientHosts
  if (!shards) return {}
  const r = (x) => (x === null ? '' : Math.round(x))
  return {
    clientHosts: shards.hosts.map((h) => `${h.host} ${r(h.opsPerSec)} ops/s GET p99 ${r(h.getP99)} µs ${r(h.cpuPerReqUs)} µs/req`).join('; '),
    shardOverlap: shards.overlap === null ? '' : Number(shards.overlap.toFixed(4))
  }
}

/** The command-line flags that send `node client`'s processes to the client hosts and its verification to the server host. */
function remoteFlags (remote) {
  if (!remote) return []
  return [
    ...(remote.clients ? [`--clientHosts=${remote.clients.map((h) => h.text).join(',')}`] : []),
    ...(remote.server ? [`--dataHost=${remote.server.host.text}`] : []),
    `--ssh=${remote.ssh.map((w) => (w.includes("'") ? `"${w}"` : `'${w}'`)).join(' ')}`,
    `--remoteDir=${remote.dir}`
  ]
}

/**
 * The row fields a client JSON gives (latency, throughput, cost, HAProxy's figures, the storage layer's).
 * @param {object|null} json the client's JSON document
 * @param {{ storageStart?: object|null, storageEnd?: object|null, requests?: number }} [storage] delay-layer
 *   counters around the run and the HTTP requests meanwhile (default: the client's, warm-up included)
 * @returns {object}
 */
function jsonFigures (json, { storageStart = null, storageEnd = null, requests } = {}) {
  requests ??= json ? json.operations.completed + json.operations.failed + json.warmup.operations : 0
  return {
    ...(json && measures(json)),
    ...costFigures(json),
    ...balancerColumns(json),
    ...hostColumns(json),
    ...(storageStart && storageFigures(storageStart, storageEnd, requests))
  }
}

/** Why the server ran another runtime (or version) than the cell's, or ''. */
function wrongRuntime (cell, json) {
  const ran = [...new Set(json?.serverStats?.processes.map((p) => p.runtime) ?? [])].filter((v) => v && v !== cell.runtime)
  return ran.length > 0 ? `the server ran ${ran.map(runtimeLabel).join(', ')}, not ${runtimeLabel(cell.runtime)}` : ''
}

/**
 * A summary.csv row: the cell's dimensions, then the run's fields.
 * @param {{ cell: object, repeat: number, order: number }} run
 * @param {object} fields
 * @returns {object}
 */
function rowOf ({ cell, repeat, order }, fields) {
  return {
    cell: cell.id,
    repeat,
    order,
    ...dimensionRow(cell),
    oversubscribed: cell.nServers > os.availableParallelism(),
    variant: cell.variant ?? '',
    v8: cell.v8,
    uv: cell.uv,
    ...fields
  }
}

/**
 * Runs one repeat of a sweep cell: a fresh server and a fresh `node client` (run KIND).
 * @param {{ cell: object, repeat: number, order: number }} run
 * @param {{ dir: string, dataRoot: string, options: object, signal: AbortSignal }} ctx
 * @returns {Promise<object>} its summary.csv row
 */
async function runClientCell (run, ctx) {
  const { cell } = run
  const fields = await withServer(run, ctx, async (opened) => {
    const { server, storage, placement, log, configFile, files } = opened
    const storageStart = await storageNow(storage)
    const cpuStart = opened.remote ? null : groupCpuUs(server.child.pid) // null without /proc
    // The client's way to the server: the configured address, or the namespace's with the cell's round trip.
    const link = await connectRun(ctx.hosts ?? null, cell.rtt ?? 0, server.port)
    let client, linkFields
    try {
      client = await runGroup(CLIENT, [`--config=${configFile}`, ...(link.host ? [`--serverHostname=${link.host}`] : []), `--serverPort=${link.port}`,
        `--out=${path.join(ctx.dir, files.csv)}`, `--json=${path.join(ctx.dir, files.json)}`, ...remoteFlags(ctx.remote)],
      { log, timeoutMs: ctx.options.cellTimeout, signal: ctx.signal, execPath: ctx.options.clientNode?.path, prefix: placement.clientPrefix })
    } finally {
      linkFields = await link.close()
    }
    const storageEnd = await storageNow(storage)
    const json = readJsonOrNull(path.join(ctx.dir, files.json))
    // A server on another host, or without /proc: its CPU time from its telemetry (the measured phase).
    const serverCpuUs = cpuStart === null ? json?.serverStats?.totals.cpuUs ?? '' : groupCpuUs(server.child.pid) - cpuStart
    writeHgrms(ctx.dir, files.json, json)
    const reason = runProblem(client, json, log, ctx.options.cellTimeout) || wrongRuntime(cell, json)
    return { ...jsonFigures(json, { storageStart, storageEnd }), ...linkFields, serverCpuUs, json: json ? files.json : '', reason }
  })
  return rowOf(run, fields)
}

module.exports = { runClientCell, rowOf, jsonFigures, wrongRuntime, writeHgrms, PROBLEMS, COLUMNS, TABLE, MARKS }
