'use strict'
// Which fs API a file server should use (a folder whose cells vary the async kinds' API and the file size: fsapi): each
// cell's throughput and server CPU per request against callback readFile's and readFileSync's (the folder's verdicts), its
// GET p99, the server's peak memory, the pool trips per request its profiled round counted, and a model of CPU per request
// from pool trips and bytes read, fitted on the smallest and largest files and predicting the sizes between.

const { KINDS } = require('../../lib/kinds')

// CPU per request = fixed + perTrip × pool trips + perMiB × MiB read, one fit per Node and storage.
const TERMS = (r) => [1, r.trips, r.bytes / 1048576]

const median = (cell, figure) => cell.ci?.[figure]?.median ?? null
const telemetry = (cell, column) => cell.telemetry?.[column] ?? null

// A verdict's ratio the other way round (b over a): sync over an idiom becomes the idiom over sync.
const turned = (v) => v && { ...v, estimate: 1 / v.estimate, low: 1 / v.high, high: 1 / v.low,
  verdict: { faster: 'slower', slower: 'faster' }[v.verdict] ?? v.verdict }

// Solves the least-squares fit y ≈ X·c (normal equations, Gaussian elimination); null when they are singular.
function leastSquares (xs, ys) {
  const n = xs[0].length
  const a = Array.from({ length: n }, (_, i) => [...Array.from({ length: n }, (_, j) => xs.reduce((s, x) => s + x[i] * x[j], 0)),
    xs.reduce((s, x, k) => s + x[i] * ys[k], 0)])
  for (let col = 0; col < n; col++) {
    const pivot = a.slice(col).reduce((best, row, k) => (Math.abs(row[col]) > Math.abs(a[best][col]) ? col + k : best), col)
    const swapped = a[pivot]
    a[pivot] = a[col]
    a[col] = swapped
    if (Math.abs(a[col][col]) < 1e-9) return null
    for (let r = 0; r < n; r++) {
      if (r === col) continue
      const f = a[r][col] / a[col][col]
      for (let c = col; c <= n; c++) a[r][c] -= f * a[col][c]
    }
  }
  return a.map((row, i) => row[n] / row[i])
}

// The model of each group (a Node and a storage): fitted on its smallest and largest files, predicting every row of the group.
function fitModels (rows) {
  const groups = new Map()
  for (const r of rows.filter((r) => Number.isFinite(r.trips) && Number.isFinite(r.cpuUs))) {
    const key = `${r.runtime}|${r.storage}`
    groups.set(key, [...(groups.get(key) ?? []), r])
  }
  const models = []
  for (const [key, group] of groups) {
    const sizes = [...new Set(group.map((r) => r.bytes))].sort((x, y) => x - y)
    const edges = [sizes[0], sizes.at(-1)]
    const fitted = group.filter((r) => edges.includes(r.bytes))
    const coef = sizes.length > 1 && fitted.length >= TERMS(fitted[0]).length ? leastSquares(fitted.map(TERMS), fitted.map((r) => r.cpuUs)) : null
    if (coef === null) continue
    const [runtime, storage] = key.split('|')
    models.push({ runtime, storage, fixedUs: coef[0], perTripUs: coef[1], perMiBUs: coef[2], fittedOn: edges, cells: fitted.map((r) => r.id) })
    for (const r of group) {
      r.model = { cpuUs: TERMS(r).reduce((s, x, i) => s + x * coef[i], 0), fitted: edges.includes(r.bytes) }
      r.model.miss = r.cpuUs / r.model.cpuUs - 1
    }
  }
  return models
}

/**
 * The fs API table of a folder whose cells vary the async API and the file size.
 * @param {object[]} cells summarised cells (report/stats/cell-stats.js)
 * @param {object[]} verdicts report/stats/comparisons.js's
 * @param {object|null} why report/stats/why.js whyAnalysis (the profiled round), null without one
 * @returns {object|null} null unless cells vary the API and the file size: { rows: [{ id, idiom, bytes, storage, inFlight, runtime,
 *   opsPerSec, cpuUs, p99Us, peakRssKiB, trips, shares: { malloc, gc, callbacks }, vsCallback: { ops, cpu }, vsSync: { ops, cpu }, model }],
 *   models, predicted, missed }
 */
function fsApiAnalysis (cells, verdicts, why) {
  const main = cells.filter((c) => !c.aa && c.valid.length > 0)
  const apis = new Set(main.map((c) => c.api).filter(Boolean))
  const sizes = new Set(main.map((c) => c.valid[0].fileBytes).filter((b) => b > 0))
  if (apis.size < 2 || sizes.size < 2) return null
  const profiled = new Map((why?.cells ?? []).map((c) => [c.id, c]))
  const verdict = (kind, metric, a, b) => verdicts.find((v) => v.kind === kind && v.metric === metric && v.a === a && (b === undefined || v.b === b))
  const rows = main.map((cell) => {
    const row = cell.valid[0]
    const sync = KINDS[cell.kind].store === 'sync'
    const syncOver = (metric) => turned(verdicts.find((v) => v.kind === 'store' && v.metric === metric && v.b === cell.id))
    const prof = profiled.get(cell.id)
    const trips = prof?.waits?.poolTrips?.estimate
    // The profiled round's shares of the sampled CPU: the allocator, GC, and the promise and callback machinery.
    const share = (id) => (prof?.sampled?.estimate > 0 && Number.isFinite(prof.categories?.[id]?.estimate)
      ? prof.categories[id].estimate / prof.sampled.estimate
      : null)
    return {
      id: cell.id,
      idiom: sync ? 'readFileSync' : cell.api,
      bytes: row.fileBytes,
      storage: row.ioDelay === 'off' || row.ioDelay === '' ? 'page cache' : `${row.ioDelay / 1000} ms storage`,
      inFlight: row.nClients * (row.concurrency ?? 1),
      runtime: row.runtime,
      opsPerSec: median(cell, 'opsPerSec'),
      cpuUs: telemetry(cell, 'serverCpuPerReqUs'),
      p99Us: median(cell, 'getP99'),
      peakRssKiB: Math.max(...cell.valid.map((r) => r.serverWindowRssKiB).filter(Number.isFinite)),
      trips: sync ? 0 : Number.isFinite(trips) ? trips : null,
      shares: { malloc: share('malloc'), gc: share('gc'), callbacks: share('callbacks') },
      vsCallback: sync || cell.api === 'callback' ? null : { ops: verdict('api', 'opsPerSec', cell.id), cpu: verdict('api', 'serverCpuPerReqUs', cell.id) },
      vsSync: sync ? null : { ops: syncOver('opsPerSec'), cpu: syncOver('serverCpuPerReqUs') },
      model: null
    }
  })
  for (const r of rows) if (!Number.isFinite(r.peakRssKiB)) r.peakRssKiB = null
  const models = fitModels(rows)
  const predicted = rows.filter((r) => r.model && !r.model.fitted)
  const missed = predicted.filter((r) => Math.abs(r.model.miss) > 0.2).map((r) => r.id)
  return { rows, models, predicted: predicted.length, missed }
}

module.exports = { fsApiAnalysis, leastSquares }
