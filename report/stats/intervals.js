'use strict'
// Distribution-free intervals for the report: a median with its order-statistic (sign-test)
// interval (lib/median.js, which the run's table uses too); a ratio of two cells taken within each round, then summarised over the rounds,
// at 95% or at a level given (the --rev gate's); and a ratio's verdict. An interval over rounds does not hold what is fixed for a
// server process's life: each cell is one process for the run (bench/RESULTS.md, the gate on the same code). Used by report/.

const { median, CONFIDENCE, MARGIN, intervalOfMedian, orderInterval } = require('../../lib/median')

/**
 * A cell's value of a column in each round (summary.csv's `repeat`), over its valid rows.
 * @param {{ valid: object[] }} cell
 * @param {string} column
 * @returns {Map<number, number>}
 */
function roundValues (cell, column) {
  const byRound = new Map()
  for (const row of cell.valid) if (Number.isFinite(row[column])) byRound.set(row.repeat, row[column])
  return byRound
}

/**
 * Round by round a / b, for the rounds both have with a non-zero divisor.
 * @param {Map<number, number>} a
 * @param {Map<number, number>} b
 * @returns {Map<number, number>}
 */
function divideRounds (a, b) {
  const out = new Map()
  for (const [round, x] of a) if (b.get(round)) out.set(round, x / b.get(round))
  return out
}

// P(W+ <= w) for w = 0..n(n+1)/2 of Wilcoxon's signed-rank statistic of n values under the null:
// the number of subsets of {1..n} with each sum, over 2^n (exact in doubles up to n = 50).
function signedRankCdf (n) {
  const counts = new Float64Array(n * (n + 1) / 2 + 1)
  counts[0] = 1
  for (let k = 1; k <= n; k++) for (let w = counts.length - 1; w >= k; w--) counts[w] += counts[w - k]
  const cdf = []
  let sum = 0
  for (const c of counts) cdf.push((sum += c) / 2 ** n)
  return cdf
}

// P(W+ <= c) for large n, from the normal approximation with a continuity correction.
function signedRankNormal (n, c) {
  const mean = n * (n + 1) / 4
  const sd = Math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
  return normalCdf((c + 0.5 - mean) / sd)
}

function normalCdf (z) {
  // Abramowitz and Stegun 7.1.26, |error| < 1.5e-7
  const t = 1 / (1 + 0.3275911 * Math.abs(z) / Math.SQRT2)
  const y = 1 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-z * z / 2)
  return z >= 0 ? (1 + y) / 2 : (1 - y) / 2
}

/**
 * The Hodges-Lehmann estimate of the centre of some values (the median of their Walsh averages,
 * (x_i + x_j) / 2 for i <= j) and its interval from Wilcoxon's signed-rank test: the Walsh averages
 * [c+1, M-c] of M, with the largest c whose coverage 1 - 2 P(W+ <= c) is at least `confidence`.
 * Six values are the fewest that reach 95% (96.9%); with fewer the interval is the lowest to the
 * highest value and `confidence` says what it covers.
 * @param {number[]} values at least one
 * @param {number} [confidence]
 * @returns {{ estimate: number, low: number, high: number, n: number, confidence: number }}
 */
function hodgesLehmann (values, confidence = CONFIDENCE) {
  const n = values.length
  if (n === 0) throw new Error('hodgesLehmann needs at least one value')
  const walsh = []
  for (let i = 0; i < n; i++) for (let j = i; j < n; j++) walsh.push((values[i] + values[j]) / 2)
  walsh.sort((a, b) => a - b)
  const cdf = n <= 50 ? signedRankCdf(n) : null
  const below = (c) => (cdf ? cdf[c] : signedRankNormal(n, c))
  let c = 0
  while (c + 1 < walsh.length / 2 && 1 - 2 * below(c + 1) >= confidence) c++
  return { estimate: median(walsh), low: walsh[c], high: walsh[walsh.length - 1 - c], n, confidence: Math.max(0, 1 - 2 * below(c)) }
}

/**
 * Summarises per-round ratios on the log scale (so A/B and B/A are mirror images): the
 * Hodges-Lehmann estimate and Wilcoxon interval of the log ratios, turned back into ratios; few
 * when fewer than 2 rounds (no interval at all).
 * @param {Map<number, number>} byRound from divideRounds
 * @param {number} [confidence] the interval's coverage
 * @returns {{ estimate, low, high, n, confidence, few: boolean } | null} null without a round
 */
function pairedSummary (byRound, confidence = CONFIDENCE) {
  const logs = [...byRound.values()].filter((x) => x > 0).map(Math.log)
  if (logs.length === 0) return null
  const s = hodgesLehmann(logs, confidence)
  return { estimate: Math.exp(s.estimate), low: Math.exp(s.low), high: Math.exp(s.high), n: s.n, confidence: s.confidence, few: s.n < 2 }
}

/**
 * The paired ratio of two cells: a / b within each round, summarised over the rounds. A slow
 * moment of the machine that hit both cells of a round cancels in its ratio.
 * @param {object} a cell (valid rows with repeat)
 * @param {object} b cell
 * @param {string} [column]
 * @param {number} [confidence] the interval's coverage
 * @returns {object|null} pairedSummary's result with a and b, or null when no round has both
 */
function pairedRatio (a, b, column = 'opsPerSec', confidence = CONFIDENCE) {
  const summary = pairedSummary(divideRounds(roundValues(a, column), roundValues(b, column)), confidence)
  return summary && { ...summary, a, b }
}

// z of the two-sided CONFIDENCE interval (95%), and the Hodges-Lehmann estimate's efficiency against a mean on normal noise (3/π).
const Z = 1.96
const HL_EFFICIENCY = 3 / Math.PI

/**
 * How many rounds a paired ratio needs to be decided in about 9 runs of 10, at the spread of its rounds' ratios (the standard
 * deviation of their logs σ): an interval half as wide as the distance to the nearer verdict, max(d, ln(1 + margin) − d)
 * on the log scale for a true ratio d from 1 (0 for an A/A pair: an interval under the margin wide, as the stop rule asks),
 * where the Hodges-Lehmann interval's half-width is about Z σ / √(efficiency × n).
 * @param {object} a cell (valid rows with repeat)
 * @param {object} b cell
 * @param {number} [margin]
 * @param {number} [distance] |ln ratio| taken as true (this run's estimate for a comparison; 0 for an A/A pair)
 * @returns {{ spread: number, rounds: number, n: number } | null} null with fewer than 3 rounds
 */
function roundsToDecide (a, b, margin = MARGIN, distance = 0) {
  const logs = [...divideRounds(roundValues(a, 'opsPerSec'), roundValues(b, 'opsPerSec')).values()].filter((x) => x > 0).map(Math.log)
  if (logs.length < 3) return null
  const mean = logs.reduce((s, x) => s + x, 0) / logs.length
  const spread = Math.sqrt(logs.reduce((s, x) => s + (x - mean) ** 2, 0) / (logs.length - 1))
  const half = Math.max(distance, Math.log(1 + margin) - distance) / 2
  return { spread, rounds: Math.ceil((Z * spread / half) ** 2 / HL_EFFICIENCY), n: logs.length }
}

/**
 * A comparison's verdict: faster or slower when its interval (at 95% or more: `confidence`) leaves out 1, same
 * when it lies within [1/(1+margin), 1+margin], else undecided (few: no interval at all). For a
 * cost (better 'lower'), faster means a needs less than b.
 * @param {object|null} ratio from pairedSummary or unpairedRatio
 * @param {{ margin?: number, better?: 'higher'|'lower', confidence?: number }} [how]
 * @returns {'faster'|'slower'|'same'|'undecided'|'few'}
 */
function judge (ratio, { margin = MARGIN, better = 'higher', confidence = CONFIDENCE } = {}) {
  if (!ratio || ratio.few) return 'few'
  const sure = ratio.confidence >= confidence
  const [up, down] = better === 'lower' ? ['slower', 'faster'] : ['faster', 'slower']
  if (sure && ratio.low > 1) return up
  if (sure && ratio.high < 1) return down
  if (sure && ratio.low >= 1 / (1 + margin) && ratio.high <= 1 + margin) return 'same'
  return 'undecided'
}

/**
 * Whether an interval is narrow enough to decide: high / low below 1 + margin, so that its half-width
 * (on the log scale) is under half the margin. An interval that narrow either leaves out 1 (faster or
 * slower) or, holding 1, lies within ±margin (same): it always has a verdict, whatever its centre.
 * @param {object|null} ratio
 * @param {number} [margin]
 * @returns {boolean}
 */
function isPrecise (ratio, margin = MARGIN) {
  return Boolean(ratio && !ratio.few && ratio.confidence >= CONFIDENCE && ratio.high / ratio.low < 1 + margin)
}

module.exports = {
  intervalOfMedian, orderInterval, hodgesLehmann, roundValues, divideRounds, pairedSummary, pairedRatio, roundsToDecide, judge, isPrecise, CONFIDENCE, MARGIN
}
