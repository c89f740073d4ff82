'use strict'
// The comparisons a results folder answers, each a ratio of two cells paired by round with its
// interval and verdict (report/stats/intervals.js): sync vs async at each process model and count, each
// multi-process model over one process of its store, each other model over cluster, each other async
// fs API over the callback one (asyncApi), each libuv pool size over 4 and io_uring over the pool, this tree
// over each revision (--rev), and the A/A pair, which calibrates. verdicts.json holds them; the report's
// sentences and compare read them.

const { KINDS, isMultiProcess, kindOf, pairLabel, modelLabel } = require('../../lib/kinds')
const { pairedRatio, judge, MARGIN, CONFIDENCE } = require('./intervals')
const { runtimeLabel } = require('../../lib/install/runtime-specs')
const { valueLabel } = require('../../lib/results/dimensions')

/** The metrics a comparison is judged on: throughput first, then the CPU each request costs; a
 * capacity folder's capacity under the SLO and its closed-loop throughput. */
const METRICS = [
  { metric: 'opsPerSec', better: 'higher', what: 'throughput' },
  { metric: 'serverCpuPerReqUs', better: 'lower', what: 'server CPU per request' },
  { metric: 'clientCpuPerReqUs', better: 'lower', what: 'client CPU per request' },
  { metric: 'capacity', better: 'higher', what: 'capacity under the SLO' },
  { metric: 'closedOpsPerSec', better: 'higher', what: 'closed-loop throughput' }
]
const SWEEP_METRICS = ['opsPerSec', 'serverCpuPerReqUs', 'clientCpuPerReqUs']

/**
 * A cell's settings (report/data/cells.js variant, "ioDelay=1000, runtime=node-v26.10.0") in words: "1 ms
 * storage, Node v26.10.0"; a plain folder is "plain folder".
 * @param {string} variant
 * @returns {string}
 */
function settingsLabel (variant) {
  const pairs = variant.split(', ')
  const cold = pairs.includes('storage=cold')
  const delay = pairs.some((pair) => pair.startsWith('ioDelay='))
  return pairs.filter(Boolean).map((pair) => {
    const [key, value] = pair.split('=')
    // storage=delay and cache say what ioDelay says, where it is in the variant (storage-check's cells differ by
    // storage alone); a cold cell's ioDelay (off) is no plain folder's.
    if (key === 'storage') return value === 'cold' ? 'real disk, cold cache' : value === 'delay' && !delay ? 'delay layer' : ''
    if (key === 'cacheShare') return `${value}% cached`
    if (key === 'ioDelay' && cold) return ''
    if (key === 'ioDelay') {
      return value === 'off'
        ? 'plain folder'
        : Number(value) % 1000 === 0 && value !== '0' ? `${value / 1000} ms storage` : `${value} µs storage`
    }
    if (key === 'runtime') return runtimeLabel(value)
    if (key === 'fileBytes' || key === 'concurrency') return valueLabel(key, Number(value))
    if (key === 'rev') return valueLabel(key, value)
    return pair
  }).filter(Boolean).join(', ')
}

// One setting's value in a cell's variant ("uvThreadpoolSize=8, cpuset=split"), or undefined; the variant with it changed.
const setting = (variant, key) => variant.split(', ').find((p) => p.startsWith(`${key}=`))?.slice(key.length + 1)
const swap = (variant, key, value) => variant.split(', ').map((p) => (p.startsWith(`${key}=`) ? `${key}=${value}` : p)).join(', ')
const without = (variant, keys) => variant.split(', ').filter((p) => !keys.some((k) => p.startsWith(`${k}=`))).join(', ')

/** A side of a pool comparison in words: "pool 8", or "io_uring". */
const poolSide = (c) => (setting(c.variant, 'uvUseIoUring') === '1' ? 'io_uring' : `pool ${setting(c.variant, 'uvThreadpoolSize')}`)

// A pool comparison in words: "async, 1 process: pool 8 vs pool 4" or "async, 1 process: io_uring vs pool 4".
const poolLabel = (a, b) => `${KINDS[a.kind].store}, ${modelLabel(a.kind, a.nServers)}: ${poolSide(a)} vs ${poolSide(b)}`

/** The revision a cell's servers came from (--rev), in words: "this tree" or its short sha. */
const revSide = (c) => valueLabel('rev', setting(c.variant, 'rev'))

// A revision comparison in words: "sync, 1 process: this tree vs 1a2b3c4".
const revLabel = (a, b) => `${KINDS[a.kind].store}, ${modelLabel(a.kind, a.nServers)}: ${revSide(a)} vs ${revSide(b)}`

// The pairs of cells: [a, b, kind of comparison], a over b.
function pairsOf (cells) {
  const main = cells.filter((c) => !c.aa)
  const like = (a) => (c) => c.variant === a.variant && c.load === a.load
  const pairs = []
  for (const cell of main) {
    const { store, model } = KINDS[cell.kind]
    const same = main.filter(like(cell))
    if (store === 'sync') {
      for (const other of same.filter((c) => c.kind === kindOf('async', model) && c.nServers === cell.nServers)) pairs.push([cell, other, 'store'])
      // A sync pool's rival is async fs in one process: both keep the event loop free while files are read.
      const async = model === 'pool' && same.find((c) => c.kind === kindOf('async', 'single'))
      if (async) pairs.push([cell, async, 'store'])
    }
    const callback = cell.api && cell.api !== 'callback' && same.find((c) => c.kind === cell.kind && c.nServers === cell.nServers && c.api === 'callback')
    if (callback) pairs.push([cell, callback, 'api'])
    const pool = model === 'pool'
    if (!isMultiProcess(cell.kind) && !pool) continue
    const single = same.find((c) => c.kind === kindOf(store, 'single') && c.api === cell.api)
    if (single) pairs.push([cell, single, 'model'])
    // A pool's threads are libuv's count, not nServers: it meets the cluster of each size.
    const rival = (c) => c.kind === kindOf(store, 'cluster') && (pool || c.nServers === cell.nServers) && c.api === cell.api
    const clusters = model === 'cluster' ? [] : same.filter(rival)
    for (const cluster of clusters) pairs.push([cell, cluster, 'model'])
  }
  // A pool size against libuv's default, 4, and io_uring against the pool: the same cell but for that one setting.
  for (const cell of main) {
    const size = setting(cell.variant, 'uvThreadpoolSize')
    const iou = setting(cell.variant, 'uvUseIoUring')
    const rival = iou === '1' ? swap(cell.variant, 'uvUseIoUring', '0') : size && size !== '4' ? swap(cell.variant, 'uvThreadpoolSize', '4') : null
    const base = rival !== null && main.find((c) => c.variant === rival && c.kind === cell.kind && c.nServers === cell.nServers &&
      c.load === cell.load && c.api === cell.api)
    if (base) pairs.push([cell, base, 'pool'])
  }
  // This tree's cell over the same cell of each revision (--rev).
  for (const cell of main.filter((c) => ![undefined, 'tree'].includes(setting(c.variant, 'rev')))) {
    const tree = main.find((c) => c.variant === swap(cell.variant, 'rev', 'tree') && c.kind === cell.kind && c.nServers === cell.nServers &&
      c.load === cell.load && c.api === cell.api)
    if (tree) pairs.push([tree, cell, 'rev'])
  }
  // The A/A pair: the copy (B) over its configuration's own cell, or, in folders made before
  // 2026-11-24, over a second copy (A).
  const key = (c) => [c.kind, c.nServers, c.load, c.variant].join('|')
  for (const b of cells.filter((c) => c.aa === 'B')) {
    const a = cells.find((c) => c.aa === 'A' && key(c) === key(b)) ?? main.find((c) => key(c) === key(b))
    if (a) pairs.push([a, b, 'aa'])
  }
  return pairs
}

/**
 * Every comparison of the folder's cells on every metric.
 * @param {object[]} cells from report/data/cells.js groupCells (A/A cells included)
 * @param {{ margin?: number, metrics?: string[] }} [how] metrics: a sweep's three unless given
 * @returns {object[]} { a, b (cell ids), label, kind ('store', 'model', 'api', 'pool', 'rev', 'aa'), metric, better, estimate, low,
 *   high, n, confidence, margin, verdict, aa?, ratio, cells: [a, b] } in pair order, throughput first
 */
function comparisons (cells, { margin = MARGIN, metrics = SWEEP_METRICS } = {}) {
  const loads = new Set(cells.map((c) => c.load))
  const apis = new Set(cells.map((c) => c.api).filter(Boolean))
  const entries = []
  for (const { metric, better } of METRICS.filter((m) => metrics.includes(m.metric))) {
    for (const [a, b, kind] of pairsOf(cells)) {
      const ratio = pairedRatio(a, b, metric)
      const api = apis.size > 1 && kind !== 'api' && b.api ? `, async ${b.api}` : ''
      const variant = without(a.variant, { pool: ['uvThreadpoolSize', 'uvUseIoUring'], rev: ['rev'] }[kind] ?? [])
      const where = [settingsLabel(variant), loads.size > 1 ? `${a.load} client processes` : ''].filter(Boolean).join(', ')
      const label = kind === 'aa'
        ? `A/A: ${KINDS[a.kind].store}, ${modelLabel(a.kind, a.nServers)}`
        : kind === 'api' ? `async ${a.api} vs async ${b.api}, ${modelLabel(a.kind, a.nServers)}`
          : kind === 'pool' ? poolLabel(a, b) : kind === 'rev' ? revLabel(a, b) + api : pairLabel(a, b) + api
      entries.push({
        a: a.id,
        b: b.id,
        label: where ? `${label}, ${where}` : label,
        kind,
        metric,
        better,
        ...(ratio && { estimate: ratio.estimate, low: ratio.low, high: ratio.high, n: ratio.n, confidence: ratio.confidence }),
        margin,
        verdict: judge(ratio, { margin, better }) === 'few' ? 'undecided' : judge(ratio, { margin, better }),
        ...(kind === 'aa' && { aa: true }),
        ratio,
        cells: [a, b]
      })
    }
  }
  // --fail-on=slower (sweep/rev-gate.js) judges the revision comparisons of throughput together, each at 1 - 5%/k: round-to-round
  // noise then judges code the same as the revision's slower in at most one run in 40 (one side of 5%), whatever their number k.
  const gated = entries.filter((e) => e.kind === 'rev' && e.metric === 'opsPerSec')
  const level = 1 - (1 - CONFIDENCE) / gated.length
  for (const e of gated) {
    const ratio = pairedRatio(e.cells[0], e.cells[1], 'opsPerSec', level)
    e.gate = { level, ...(ratio && { low: ratio.low, high: ratio.high, n: ratio.n, confidence: ratio.confidence }),
      verdict: judge(ratio, { margin, confidence: level }) }
  }
  return entries
}

/**
 * The comparisons the precision rule and the first screen are about: throughput only.
 * @param {object[]} cells
 * @param {{ margin?: number }} [how]
 * @returns {object[]}
 */
function headlineComparisons (cells, { margin } = {}) {
  return comparisons(cells, { margin, metrics: ['opsPerSec'] })
}

module.exports = { comparisons, headlineComparisons, settingsLabel, poolSide, revSide, METRICS }
