'use strict'
// A latency target (--slo): percentiles that must each stay within a limit, e.g. p99:20ms or
// p50:5ms,p99:20ms. Used by the capacity command (sweep/capacity/) and its report.

const { refuse } = require('./config')

const FORM = 'PERCENTILE:LIMIT such as p99:20ms (a comma list all of which must hold)'
const PERCENTILES = { p50: 50, p90: 90, p99: 99, p999: 99.9 }
const UNITS = { us: 1, µs: 1, ms: 1000, s: 1000000 }
// A percentile rests on the requests beyond it: the p99 of 400 requests is the 4th-worst, one stall.
// A verdict needs this many beyond the highest percentile asked: 3,000 requests for p99, 300 for p90.
const BEYOND = 30

/**
 * Parses --slo.
 * @param {string} text
 * @returns {Array<{ name: string, percentile: number, us: number }>} in the order given
 * @throws {ValueError} why the text is not a target (a lib/config.js validator)
 */
function parseSlo (text) {
  const parts = String(text).split(',')
  const targets = parts.map((part) => {
    const m = /^(p\d+):(\d+(?:\.\d+)?)(us|µs|ms|s)$/.exec(part.trim())
    if (!m) refuse(`must be ${FORM}${parts.length > 1 ? `, got ${JSON.stringify(part)} in it` : ''}`)
    if (!PERCENTILES[m[1]]) refuse(`${m[1]} is not a percentile it knows: ${Object.keys(PERCENTILES).join(', ')}`)
    const us = Number(m[2]) * UNITS[m[3]]
    if (!(us > 0)) refuse(`the limit of ${m[1]} must be above 0`)
    return { name: m[1], percentile: PERCENTILES[m[1]], us }
  })
  if (new Set(targets.map((t) => t.name)).size < targets.length) refuse('names a percentile twice')
  return targets
}
parseSlo.takes = FORM

/**
 * The fewest requests a verdict on the SLO rests on: BEYOND requests beyond its highest percentile,
 * BEYOND / (1 - p): p50 60, p90 300, p99 3,000, p999 30,000.
 * @param {Array<{ percentile: number }>} slo from parseSlo
 * @returns {number}
 */
function minRequests (slo) {
  // Rounded to 1/1000 first: 100 - 99.9 is not exactly 0.1 in floating point.
  return Math.max(...slo.map((t) => Math.ceil(Math.round(BEYOND * 100 / (100 - t.percentile) * 1000) / 1000)))
}

/** A latency in µs as the SLO's words put it: 20 ms, 500 µs, 1.5 s. */
function formatLatency (us) {
  if (us >= 1000000) return `${Number((us / 1e6).toPrecision(3))} s`
  if (us >= 1000) return `${Number((us / 1000).toPrecision(3))} ms`
  return `${Math.round(us)} µs`
}

/** The SLO in words: "p99 ≤ 20 ms". */
function formatSlo (slo) {
  return slo.map((t) => `${t.name} ≤ ${formatLatency(t.us)}`).join(', ')
}

/** A target as --slo takes it: "p99:20ms". */
function sloFlag (slo) {
  return slo.map((t) => `${t.name}:${t.us / 1000}ms`).join(',')
}

module.exports = { parseSlo, formatSlo, sloFlag, formatLatency, minRequests, PERCENTILES }
