'use strict'
// Whether a capacity probe passed: over its 1 s windows, no request failed, every window's
// percentiles (GET and PUT alike) within the SLO, latency not climbing from window to window (a
// backlog), and the generator on time. A probe whose generator fell behind is invalid: it says
// nothing about the server. Pure: sweep/capacity/run.js and the tests give it a probe's records.

const { summarize, mergeRecords } = require('../../client/stats')
const { formatLatency, PERCENTILES } = require('../../lib/slo')

const ON_TIME = 0.99 // the share of sends the generator must make within 5 ms of their due time
const BACKLOG = 2 // a probe whose median latency rises every window, to this many times the first's, has a backlog
const OPS = ['GET', 'PUT']

/**
 * Judges a probe.
 * @param {{ rate: number, seconds: number, failed: number, late: number, sent: number, wallS: number,
 *   slices: Array<{ GET: object, PUT: object }> }} probe as client/pool.js probe() gives it (records, not serialized)
 * @param {Array<{ name: string, percentile: number, us: number }>} slo lib/slo.js parseSlo
 * @returns {{ passed: boolean, invalid: boolean, reason: string, onTime: number, achieved: number,
 *   worst: object, p50s: number[] }} worst: per op and percentile (p50_GET ...), the worst window's µs;
 *   p50s: each window's median over GET and PUT; reason: '' when it passed
 */
function judgeProbe (probe, slo) {
  const windows = probe.slices.map((slice) => Object.fromEntries(OPS.map((op) => [op, summarize(slice[op])])))
  const worst = {}
  for (const op of OPS) {
    for (const name of Object.keys(PERCENTILES)) {
      const values = windows.map((w) => w[op][name]).filter((v) => v !== null)
      worst[`${name}_${op}`] = values.length > 0 ? Math.max(...values) : null
    }
  }
  const p50s = probe.slices.map((slice) => summarize(mergeRecords(OPS.map((op) => slice[op]))).p50)
  const onTime = probe.sent > 0 ? 1 - probe.late / probe.sent : 1
  const answered = windows.reduce((a, w) => a + w.GET.count + w.PUT.count, 0)
  const achieved = answered / Math.max(probe.seconds, probe.wallS)
  const judged = { onTime, achieved, worst, p50s }
  if (onTime < ON_TIME) {
    const reason = `the generator sent ${(onTime * 100).toFixed(1)}% of its requests on time (under ${ON_TIME * 100}%): ` +
      'it, not the server, was the limit'
    return { ...judged, passed: false, invalid: true, reason }
  }
  if (probe.failed > 0) return { ...judged, passed: false, invalid: false, reason: `${probe.failed} requests failed` }
  for (const target of slo) {
    for (const op of OPS) {
      const k = windows.findIndex((w) => w[op][target.name] !== null && w[op][target.name] > target.us)
      if (k >= 0) {
        return { ...judged, passed: false, invalid: false,
          reason: `${op} ${target.name} ${formatLatency(windows[k][op][target.name])} > ${formatLatency(target.us)} in second ${k + 1}` }
      }
    }
  }
  if (backlog(p50s)) {
    return { ...judged, passed: false, invalid: false,
      reason: `latency climbed every second (median ${p50s.map((v) => formatLatency(v)).join(' → ')}): a backlog` }
  }
  return { ...judged, passed: true, invalid: false, reason: '' }
}

function backlog (p50s) {
  const known = p50s.filter((v) => v !== null)
  if (known.length < 2) return false
  return known.every((v, k) => k === 0 || v > known[k - 1]) && known[known.length - 1] >= BACKLOG * known[0]
}

module.exports = { judgeProbe }
