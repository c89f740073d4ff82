'use strict'
// Whether a capacity probe passed: judged on all its requests pooled (GET and PUT, every window's
// histogram merged), each --slo percentile within its limit, no request failed and the generator on
// time; its 1 s windows are a stability check (latency climbing window after window is a backlog).
// Pure: sweep/capacity/run.js, bench/capacity-check.js and the tests give it records.

const { summarize, mergeRecords } = require('../../client/stats')
const { formatLatency, minRequests, PERCENTILES } = require('../../lib/slo')

const ON_TIME = 0.99 // the share of sends the generator must make within 5 ms of their due time
const BACKLOG = 2 // a probe whose median latency rises every window, to this many times the first's, has a backlog
const OPS = ['GET', 'PUT']

/**
 * How long a probe at `rate` lasts: `seconds`, repeated (a whole multiple of it) until it sends at
 * least minRequests(slo), so a probe at a low rate lasts longer.
 * @param {number} rate requests/s
 * @param {number} seconds the probe asked for (--probe, or a confirmation's)
 * @param {object[]} slo
 * @returns {number} whole seconds
 */
function probeSeconds (rate, seconds, slo) {
  return seconds * Math.max(1, Math.ceil(minRequests(slo) / (rate * seconds)))
}

/**
 * The SLO against a record of all the requests judged together.
 * @param {object} record client/stats.js, every request of the probe (or of a run) merged
 * @param {object[]} slo
 * @returns {{ requests: number, judged: boolean, over: string|null }} judged: enough requests for the
 *   percentiles (minRequests); over: the first target broken, in words, or null
 */
function judgePooled (record, slo) {
  const figures = summarize(record)
  const judged = record.count >= minRequests(slo)
  const broken = slo.find((t) => figures[t.name] !== null && figures[t.name] > t.us)
  return { requests: record.count, judged, over: broken ? `${broken.name} ${formatLatency(figures[broken.name])} > ${formatLatency(broken.us)}` : null }
}

/**
 * Judges a probe.
 * @param {{ rate: number, seconds: number, failed: number, late: number, sent: number, wallS: number,
 *   slices: Array<{ GET: object, PUT: object }> }} probe as client/pool.js probe() gives it (records, not serialized)
 * @param {Array<{ name: string, percentile: number, us: number }>} slo lib/slo.js parseSlo
 * @returns {{ passed: boolean, invalid: boolean, reason: string, onTime: number, achieved: number, requests: number,
 *   pooled: object, p50s: number[], windowsOver: number }} pooled: each percentile of all requests (p50 ...) and of
 *   each op (p50_GET ...), µs; p50s: each window's median; windowsOver: windows whose own percentiles broke the SLO
 *   (a flag, not a verdict); reason: '' when it passed
 */
function judgeProbe (probe, slo) {
  const windows = probe.slices.map((slice) => mergeRecords(OPS.map((op) => slice[op])))
  const all = mergeRecords(windows)
  const pooled = pick(summarize(all), '')
  for (const op of OPS) Object.assign(pooled, pick(summarize(mergeRecords(probe.slices.map((slice) => slice[op]))), `_${op}`))
  const perWindow = windows.map(summarize)
  const p50s = perWindow.map((w) => w.p50)
  const windowsOver = perWindow.filter((w) => slo.some((t) => w[t.name] !== null && w[t.name] > t.us)).length
  const onTime = probe.sent > 0 ? 1 - probe.late / probe.sent : 1
  const achieved = all.count / Math.max(probe.seconds, probe.wallS)
  const verdict = judgePooled(all, slo)
  const judged = { onTime, achieved, requests: all.count, pooled, p50s, windowsOver }
  const fail = (reason, invalid = false) => ({ ...judged, passed: false, invalid, reason })
  if (onTime < ON_TIME) {
    return fail(`the generator sent ${(onTime * 100).toFixed(1)}% of its requests on time (under ${ON_TIME * 100}%): ` +
      'it, not the server, was the limit', true)
  }
  if (probe.failed > 0) return fail(`${probe.failed} requests failed`)
  if (!verdict.judged) return fail(`${all.count} requests are too few to judge ${slo.map((t) => t.name).join(', ')} (${minRequests(slo)} at least)`, true)
  if (verdict.over) return fail(`${verdict.over} over ${all.count} requests`)
  if (backlog(p50s)) return fail(`latency climbed every second (median ${p50s.map((v) => formatLatency(v)).join(' → ')}): a backlog`)
  return { ...judged, passed: true, invalid: false, reason: '' }
}

// The percentiles of a summary, each name with a suffix.
const pick = (figures, suffix) => Object.fromEntries(Object.keys(PERCENTILES).map((name) => [`${name}${suffix}`, figures[name]]))

function backlog (p50s) {
  const known = p50s.filter((v) => v !== null)
  if (known.length < 2) return false
  return known.every((v, k) => k === 0 || v > known[k - 1]) && known[known.length - 1] >= BACKLOG * known[0]
}

module.exports = { judgeProbe, judgePooled, probeSeconds }
