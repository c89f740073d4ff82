'use strict'
// How the report and compare word a ratio: "1.23× [1.10–1.37]", its verdict against the A/A
// noise band, the noise floor in %, and what the intervals' round counts give in confidence.

const { judge } = require('./intervals')

/** x with exactly `digits` decimals and thousands separators, e.g. fixed(1234.5, 1) is "1,234.5". */
const fixed = (x, digits) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

/**
 * @param {{ estimate: number, low: number, high: number }} r
 * @returns {string} e.g. "1.23× [1.10–1.37]"
 */
function formatRatio (r) {
  return `${fixed(r.estimate, 2)}× [${fixed(r.low, 2)}–${fixed(r.high, 2)}]`
}

/**
 * A ratio's verdict in words and its tone (a CSS class): `faster` or `slower` faster when its
 * interval clears the noise band, else within noise (no clear difference without a band).
 * @param {object|null} r a ratio from report/intervals.js
 * @param {{ low: number, high: number } | null} band
 * @param {string} faster what is faster above 1
 * @param {string} slower what is faster below 1
 * @returns {[string, 'up'|'down'|'none']}
 */
function verdictOf (r, band, faster, slower) {
  switch (judge(r, band)) {
    case 'up': return [`${faster} faster`, 'up']
    case 'down': return [`${slower} faster`, 'down']
    case 'noise': return [band ? 'within noise' : 'no clear difference', 'none']
    default: return [r ? 'one round: no interval' : 'no valid repeat', 'none']
  }
}

/**
 * How far one A/A label can be from the other, in %: the far end of the noise band.
 * @param {{ low: number, high: number } | null} band
 * @returns {number|null}
 */
function noisePercent (band) {
  return band ? Math.round((Math.max(band.high, 1 / band.low) - 1) * 100) : null
}

/**
 * What the intervals of some ratios rest on: their rounds and the confidence that gives.
 * @param {Array<object|null>} ratios
 * @returns {string} e.g. "6 rounds: each interval is the lowest to the highest per-round ratio, which holds the median with 96.9% confidence"
 */
function roundsNote (ratios) {
  const some = ratios.filter((r) => r && !r.few)
  if (some.length === 0) return 'too few rounds for any interval'
  const ns = [...new Set(some.map((r) => r.n))].sort((a, b) => a - b)
  const confidence = Math.min(...some.map((r) => r.confidence))
  const rounds = ns.length === 1 ? `${ns[0]} rounds` : `${ns[0]}–${ns[ns.length - 1]} rounds`
  const weak = confidence < 0.95 ? ` (below 95%: ${ns[0]} rounds are too few for it; 6 are the fewest that reach it)` : ''
  return `${rounds}: an interval is an order statistic of the per-round ratios (with up to 8 rounds the lowest to the highest), which holds the true median with at least ${fixed(confidence * 100, 1)}% confidence${weak}`
}

module.exports = { fixed, formatRatio, verdictOf, noisePercent, roundsNote }
