'use strict'
// Whether a capacity probe passed: judged on all its requests pooled (GET and PUT, every window's
// histogram merged), each --slo percentile within its limit and no request failed; its 1 s windows are a
// stability check (latency climbing window after window is a backlog). Whether it was valid: judged on
// the generator's own figures, its send rate, CPU and event-loop delay, never on lateness alone.
// Pure: sweep/capacity/run.js, bench/capacity-check.js and the tests give it records.

const { summarize, mergeRecords } = require('../../client/stats')
const { formatLatency, minRequests, PERCENTILES } = require('../../lib/slo')

// The generator is blamed only on what it measured about itself. A late send alone is not its limit: latency
// counts from each request's due time, so its lateness is charged to the server, and a probe that passed
// with it passed.
const SEND_RATE = 0.95 // released under 95% of the offered rate (its last release that far behind): the server was not offered the rate
const GENERATOR_CPU = 0.9 // a generator process busy 90% of its wall time: its own work, not the server, sets when it sends and reads
const GENERATOR_DELAY = 0.5 // its event-loop delay at a broken percentile is half the latency measured there: the breach may be its own
const BACKLOG = 2 // a probe whose median latency rises every window, to this many times the first's, has a backlog
const OPS = ['GET', 'PUT']

/**
 * How long a probe at `rate` lasts: `seconds`, repeated (a whole multiple of it) until it sends at
 * least minRequests(slo), so a probe at a low rate lasts longer.
 * @param {number} rate requests/s
 * @param {number} seconds the probe asked for (--probe)
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
 * @param {{ rate: number, seconds: number, failed: number, late: number, sent: number, wallS: number, lagS?: number,
 *   cpu?: number, delayUs?: object, slices: Array<{ GET: object, PUT: object }> }} probe as client/pool.js probe() gives it
 *   (records, not serialized): lagS how late its last release was, cpu the busiest process's CPU time over its wall time,
 *   delayUs the worst process's event-loop delay at each percentile (p50 ... p999)
 * @param {Array<{ name: string, percentile: number, us: number }>} slo lib/slo.js parseSlo
 * @returns {{ passed: boolean, invalid: boolean, cause: string, reason: string, onTime: number, achieved: number, sendRate: number,
 *   requests: number, pooled: object, p50s: number[], windowsOver: number }} cause: '' (passed), 'slo', 'failed', 'backlog' (the
 *   server's), 'generator' or 'few' (invalid); pooled: each percentile of all requests (p50 ...) and of each op (p50_GET ...), µs;
 *   sendRate: requests/s the generator released; p50s: each window's median; windowsOver: windows whose own percentiles broke
 *   the SLO (a flag, not a verdict); reason: '' when it passed
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
  const sendRate = probe.sent / (probe.seconds + (probe.lagS ?? 0))
  const verdict = judgePooled(all, slo)
  const judged = { onTime, achieved, sendRate, requests: all.count, pooled, p50s, windowsOver }
  const result = (cause, reason = '') => ({ ...judged, passed: cause === '', invalid: cause === 'generator' || cause === 'few', cause, reason })
  if (sendRate < SEND_RATE * probe.rate) {
    return result('generator', `the generator released ${Math.round(sendRate)} req/s of ${probe.rate} (under ${SEND_RATE * 100}%): ` +
      'it, not the server, was the limit')
  }
  if (probe.failed === 0 && !verdict.judged) {
    return result('few', `${all.count} requests are too few to judge ${slo.map((t) => t.name).join(', ')} (${minRequests(slo)} at least)`)
  }
  const [cause, reason] = probe.failed > 0
    ? ['failed', `${probe.failed} requests failed`]
    : verdict.over
      ? ['slo', `${verdict.over} over ${all.count} requests`]
      : backlog(p50s)
        ? ['backlog', `latency climbed every second (median ${p50s.map((v) => formatLatency(v)).join(' → ')}): a backlog`]
        : ['', '']
  if (cause === '') return result('')
  const own = generatorLimit(probe, slo, pooled)
  return own ? result('generator', `${reason}, but ${own}: it, not the server, may have been the limit`) : result(cause, reason)
}

// Whether a probe that did not pass may have failed on the generator's own account, in words, or ''.
function generatorLimit (probe, slo, pooled) {
  if (probe.cpu >= GENERATOR_CPU) return `a generator process was busy ${Math.round(probe.cpu * 100)}% of the probe (${GENERATOR_CPU * 100}% at most)`
  const t = slo.find((x) => pooled[x.name] > x.us && probe.delayUs?.[x.name] >= GENERATOR_DELAY * pooled[x.name])
  return t ? `the generator's own event loop was ${formatLatency(probe.delayUs[t.name])} late at ${t.name}, ${GENERATOR_DELAY * 100}% or more of the ` +
    `${formatLatency(pooled[t.name])} measured` : ''
}

// The percentiles of a summary, each name with a suffix.
const pick = (figures, suffix) => Object.fromEntries(Object.keys(PERCENTILES).map((name) => [`${name}${suffix}`, figures[name]]))

function backlog (p50s) {
  const known = p50s.filter((v) => v !== null)
  if (known.length < 2) return false
  return known.every((v, k) => k === 0 || v > known[k - 1]) && known[known.length - 1] >= BACKLOG * known[0]
}

module.exports = { judgeProbe, judgePooled, probeSeconds, SEND_RATE, GENERATOR_CPU, GENERATOR_DELAY }
