'use strict'
// A latency target (--slo): percentiles that must each stay within a limit, e.g. p99:20ms or
// p50:5ms,p99:20ms. Used by the capacity command (sweep/capacity/) and its report.

const { refuse } = require('./config')

const FORM = 'PERCENTILE:LIMIT such as p99:20ms (a comma list all of which must hold)'
const PERCENTILES = { p50: 50, p90: 90, p99: 99, p999: 99.9 }
const UNITS = { us: 1, µs: 1, ms: 1000, s: 1000000 }

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

module.exports = { parseSlo, formatSlo, sloFlag, formatLatency, PERCENTILES }
