'use strict'
// Why each verdict came out as it did: where each profiled cell's server time goes per request (profile.json's
// categories, round by round), and per headline comparison the difference paired by round. Used by report/.

const { intervalOfMedian } = require('./intervals')
const { median } = require('../../lib/median')
const { KINDS, modelLabel } = require('../../lib/kinds')
const { poolSide, revSide } = require('./comparisons')

const ADDS_WITHIN = 0.1 // sampled and measured server CPU "add up" within ±10%
const TOP_FUNCTIONS = 10
const WAITS = ['syncUs', 'poolBusyUs', 'poolQueuedUs', 'poolCalls', 'poolTrips']

// A round counts when it served requests and its row was valid (a round's `problem` is the invalid row's reason), as
// the rest of the report leaves invalid rounds out; functions and folded stacks cover every round, as recorded.
const counted = (cell) => cell.rounds.filter((r) => r.requests > 0 && !r.problem)
const perRequest = (r, us) => (us ?? 0) / r.requests
const sampledOf = (r, categories) => categories.reduce((sum, c) => sum + perRequest(r, r.categories?.[c.id]), 0)
const interval = (values) => (values.length > 0 ? intervalOfMedian(values) : null)

/**
 * One profiled cell's costs: each category's µs per request, its sum (sampled), the measured server CPU, waits,
 * the profiler's overhead and functions, each over the cell's rounds.
 * @param {string} id the cell id
 * @param {object} cell profile.json's cells[id]
 * @param {{ id: string }[]} categories profile.json's categories, in their order
 * @returns {object} { id, requests, rounds, categories: { id: interval }, sampled, serverCpu, ratio, adds, waits, sleeps, poolHeld, poolBound,
 *   overhead, functions: [{ name, category, perRequest }] }; each interval from intervalOfMedian, null without a round
 */
function cellCosts (id, cell, categories, periodUs) {
  const rounds = counted(cell)
  const of = (value) => interval(rounds.map(value))
  const sampled = of((r) => sampledOf(r, categories))
  const serverCpu = interval(rounds.filter((r) => Number.isFinite(r.serverCpuUs)).map((r) => r.serverCpuUs / r.requests))
  // Sampled over measured, pooled over the rounds (their µs added up): every sample counts alike.
  const measured = rounds.filter((r) => Number.isFinite(r.serverCpuUs))
  const measuredUs = measured.reduce((a, r) => a + r.serverCpuUs, 0)
  const ratio = measuredUs > 0 ? measured.reduce((a, r) => a + sampledOf(r, categories) * r.requests, 0) / measuredUs : null
  // Each round's 1 − profiled / unprofiled ops/s.
  const slower = (key) => rounds.map((r) => r.opsPerSec).filter((o) => o?.unprofiled > 0 && Number.isFinite(o[key])).map((o) => 1 - o[key] / o.unprofiled)
  return {
    id,
    requests: cell.requests,
    rounds: rounds.map((r) => r.round),
    processes: cell.processes ?? [],
    categories: Object.fromEntries(categories.map((c) => [c.id, of((r) => perRequest(r, r.categories?.[c.id]))])),
    sampled,
    serverCpu,
    ratio,
    adds: ratio === null ? null : Math.abs(ratio - 1) <= ADDS_WITHIN,
    // How far sampling alone moves the sampled total: 1/√(samples), the samples being its time over the period.
    samplingError: periodUs > 0 ? 1 / Math.sqrt(Math.max(1, rounds.reduce((a, r) => a + sampledOf(r, categories) * r.requests, 0) / periodUs)) : null,
    waits: Object.fromEntries(WAITS.map((w) => [w, of((r) => perRequest(r, r.waits?.[w]))])),
    // Its threads' sleeps per request: each switch to sleep runs with interrupts off, where no sample lands.
    sleeps: rounds.some((r) => Number.isFinite(r.waits?.sleeps)) ? of((r) => perRequest(r, r.waits?.sleeps)) : null,
    // Its pool threads' work per request (µs; sampled from /proc), where every round has it: an async cell's.
    poolHeld: rounds.length > 0 && rounds.every((r) => Number.isFinite(r.waits?.poolHeldUs)) ? of((r) => perRequest(r, r.waits.poolHeldUs)) : null,
    // The share of its time in which its event loop waited on a full pool (the pool alone held it up), where every round has it.
    poolBound: rounds.length > 0 && rounds.every((r) => r.waits?.poolWindowUs > 0) ? of((r) => r.waits.poolBoundUs / r.waits.poolWindowUs) : null,
    overhead: interval(slower('profiled')),
    v8Overhead: interval(slower('v8')), // with perf, V8's profiler has passes of its own
    slowerByRound: slower('profiled'),
    functions: (cell.requests > 0 ? cell.functions ?? [] : []).map((f) => ({ name: f.name, category: f.category, perRequest: f.us / cell.requests }))
  }
}

// What each side of a comparison is called in a sentence: its store, its model, or both; A and B for the A/A pair.
function sideNames (entry) {
  if (entry.aa) return ['A', 'B']
  if (entry.kind === 'pool') return entry.cells.map(poolSide)
  if (entry.kind === 'rev') return entry.cells.map(revSide)
  if (!entry.cells) return [entry.a, entry.b]
  const [a, b] = entry.cells
  const [ma, mb] = [modelLabel(a.kind, a.nServers), modelLabel(b.kind, b.nServers)]
  const [sa, sb] = [KINDS[a.kind].store, KINDS[b.kind].store]
  if (ma === mb && sa !== sb) return [sa, sb]
  if (sa === sb && ma !== mb) return [ma, mb]
  return [`${sa}, ${ma}`, `${sb}, ${mb}`]
}

// How sure an interval must be for a difference to count as beyond noise: 3 rounds give 75% (5, the default, 94%); one or
// two are no interval of a median (0% and 50%).
const BEYOND_CONFIDENCE = 0.75

// a − b, round by round over the rounds both cells have, with its interval; beyond when the interval, at BEYOND_CONFIDENCE
// or more, leaves out 0.
function pairedDifference (a, b, value) {
  const byRound = new Map(counted(b).map((r) => [r.round, r]))
  const diffs = counted(a).filter((r) => byRound.has(r.round)).map((r) => value(r) - value(byRound.get(r.round))).filter(Number.isFinite)
  if (diffs.length === 0) return null
  const d = intervalOfMedian(diffs)
  return { ...d, beyond: d.confidence >= BEYOND_CONFIDENCE && (d.low > 0 || d.high < 0) }
}

// The functions whose self µs per request changed most, a − b; a function outside one side's list counts 0 there.
function functionChanges (a, b) {
  const names = new Map()
  for (const [side, list] of [['a', a.functions], ['b', b.functions]]) {
    for (const f of list) {
      const entry = names.get(f.name) ?? { name: f.name, category: f.category, a: 0, b: 0 }
      entry[side] += f.perRequest
      names.set(f.name, entry)
    }
  }
  return [...names.values()].map((f) => ({ ...f, change: f.a - f.b }))
    .sort((x, y) => Math.abs(y.change) - Math.abs(x.change) || (x.name < y.name ? -1 : 1)).slice(0, TOP_FUNCTIONS)
}

/**
 * The "why" of a profiled run: every profiled cell's costs per request, and for each headline comparison whose two
 * cells were profiled the per-category difference a − b paired by round.
 * @param {object} profile from report/data/profile.js readProfile
 * @param {object[]} verdicts from report/stats/comparisons.js comparisons (or verdicts.json's comparisons): the
 *   throughput entries are the headline ones
 * @returns {{ mode: string, note: string, perfHz?: number, v8IntervalUs?: number, rounds?: number, categories: object[],
 *   cells: object[], overhead: object|null,
 *   comparisons: { a: string, b: string, label: string, names: string[], verdict: string, aa: boolean,
 *   categories: { id: string, label: string, estimate, low, high, n, confidence, beyond: boolean }[],
 *   total: object, serverCpu: object|null, functions: object[] }[] }} overhead: 1 − profiled/unprofiled ops/s, its
 *   median and interval over every cell's rounds (a cell's own: cells[].overhead); v8Overhead: the median over cells
 */
function whyAnalysis (profile, verdicts) {
  const { categories } = profile
  const periodUs = profile.mode === 'perf' ? 1e6 / profile.perfHz : profile.v8IntervalUs
  const cells = Object.entries(profile.cells).map(([id, cell]) => cellCosts(id, cell, categories, periodUs))
  const byId = new Map(cells.map((c) => [c.id, c]))
  const overheads = cells.flatMap((c) => c.slowerByRound)
  const v8Overheads = cells.map((c) => c.v8Overhead?.estimate).filter(Number.isFinite)
  const comparisons = verdicts.filter((e) => e.metric === 'opsPerSec' && byId.has(e.a) && byId.has(e.b)).map((e) => {
    const [a, b] = [profile.cells[e.a], profile.cells[e.b]]
    const diffs = categories.map((c) => ({ id: c.id, label: c.label, ...pairedDifference(a, b, (r) => perRequest(r, r.categories?.[c.id])) }))
    return {
      a: e.a,
      b: e.b,
      label: e.label,
      names: sideNames(e),
      verdict: e.verdict,
      aa: Boolean(e.aa),
      // The verdict rounds each cell ran: a cell settled early stopped appending, so its files are smaller.
      verdictRounds: e.cells ? e.cells.map((cell) => cell.valid?.length ?? 0) : null,
      categories: diffs.filter((d) => Number.isFinite(d.estimate)),
      total: pairedDifference(a, b, (r) => sampledOf(r, categories)),
      serverCpu: pairedDifference(a, b, (r) => (Number.isFinite(r.serverCpuUs) ? r.serverCpuUs / r.requests : NaN)),
      functions: functionChanges(byId.get(e.a), byId.get(e.b))
    }
  }).filter((c) => c.total !== null)
  const scope = profile.scope ?? (profile.mode === 'perf' ? 'cpus' : null) // folders before the scope: every CPU
  return { mode: profile.mode, scope, note: profile.note ?? '', perfHz: profile.perfHz, v8IntervalUs: profile.v8IntervalUs, rounds: profile.rounds,
    categories, cells, comparisons,
    overhead: interval(overheads),
    v8Overhead: v8Overheads.length > 0 ? median(v8Overheads) : null }
}

/** µs in words: one decimal under 10, else whole with thousands separators; 0 is "0". */
const formatUs = (x) => (x === 0 ? '0' : Math.abs(x) < 10 ? x.toFixed(1) : Math.round(x).toLocaleString('en-US'))
/** A difference with its sign: "+12", "−3.5", "0". */
const signed = (x, format = formatUs) => (x > 0 ? `+${format(x)}` : x < 0 ? `−${format(-x)}` : '0')

/**
 * A difference with its interval: "+12 [11–13]", "−31 [−31 to −29]".
 * @param {{ estimate: number, low: number, high: number }} d
 * @returns {string}
 */
function differenceText ({ estimate, low, high }) {
  return `${signed(estimate)} [${low < 0 ? `${signed(low)} to ${signed(high)}` : `${formatUs(low)}–${formatUs(high)}`}]`
}

module.exports = { whyAnalysis, cellCosts, differenceText, formatUs, signed, ADDS_WITHIN, BEYOND_CONFIDENCE }
