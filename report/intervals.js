'use strict'
// Distribution-free intervals for the report: a median with its order-statistic (sign-test)
// interval; a ratio of two cells taken within each round, then summarised over the rounds; the
// noise band of the A/A pairs and the verdict of a ratio against it. Used by report/.

const CONFIDENCE = 0.95

function median (values) {
  const s = [...values].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

// P(X <= j) for j = 0..n of X ~ Binomial(n, 1/2).
function binomialCdf (n) {
  const cdf = []
  let coefficient = 1
  let sum = 0
  for (let j = 0; j <= n; j++) {
    sum += coefficient
    cdf.push(sum / 2 ** n)
    coefficient = coefficient * (n - j) / (j + 1)
  }
  return cdf
}

/**
 * The narrowest order-statistic interval [sorted[k-1], sorted[len-k]] whose coverage
 * 1 - 2 P(stat <= k-1) reaches the confidence; [min, max] (k = 1) and its lower coverage when none does.
 * @param {number[]} sorted ascending
 * @param {number[]} cdf P(stat <= j) of the statistic that counts the values below the truth
 * @param {number} confidence
 * @returns {{ low: number, high: number, confidence: number }}
 */
function orderInterval (sorted, cdf, confidence) {
  let k = 1
  while (k < sorted.length / 2 && 1 - 2 * cdf[k] >= confidence) k++
  return { low: sorted[k - 1], high: sorted[sorted.length - k], confidence: Math.max(0, 1 - 2 * cdf[k - 1]) }
}

/**
 * The median of some values and a distribution-free interval for it: the order statistics
 * [x(k), x(n+1-k)] with the largest k whose coverage is at least `confidence`. Six values are
 * the fewest that reach 95% ([min, max], 96.9%); with fewer the interval is [min, max] and
 * `confidence` says what it covers (2 values 50%, 3 75%, 4 87.5%, 5 93.75%).
 * @param {number[]} values at least one
 * @param {number} [confidence]
 * @returns {{ estimate: number, low: number, high: number, n: number, confidence: number }}
 */
function medianInterval (values, confidence = CONFIDENCE) {
  if (values.length === 0) throw new Error('medianInterval needs at least one value')
  const sorted = [...values].sort((a, b) => a - b)
  return { estimate: median(sorted), ...orderInterval(sorted, binomialCdf(sorted.length), confidence), n: sorted.length }
}

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

/**
 * Summarises per-round ratios: their median and order-statistic interval; few when fewer than
 * 2 rounds (no interval at all); clear when the interval leaves out 1.
 * @param {Map<number, number>} byRound from divideRounds
 * @returns {{ estimate, low, high, n, confidence, few: boolean, clear: boolean } | null} null without a round
 */
function pairedSummary (byRound) {
  if (byRound.size === 0) return null
  const s = medianInterval([...byRound.values()])
  return { ...s, few: s.n < 2, clear: s.n >= 2 && (s.low > 1 || s.high < 1) }
}

/**
 * The paired ratio of two cells: a / b within each round, summarised over the rounds. A slow
 * moment of the machine that hit both cells of a round cancels in its ratio.
 * @param {object} a cell (valid rows with repeat)
 * @param {object} b cell
 * @param {string} [column]
 * @returns {object|null} pairedSummary's result with a and b, or null when no round has both
 */
function pairedRatio (a, b, column = 'opsPerSec') {
  const summary = pairedSummary(divideRounds(roundValues(a, column), roundValues(b, column)))
  return summary && { ...summary, a, b }
}

/**
 * The band the A/A ratios span, each read both ways round (A/B at 0.95 is B/A at 1.05).
 * @param {Array<object|null>} ratios paired A/B ratios
 * @returns {{ low: number, high: number } | null} null when no ratio has an interval
 */
function noiseBand (ratios) {
  const usable = ratios.filter((r) => r && !r.few)
  if (usable.length === 0) return null
  return { low: Math.min(...usable.map((r) => Math.min(r.low, 1 / r.high))),
    high: Math.max(...usable.map((r) => Math.max(r.high, 1 / r.low))) }
}

/**
 * A ratio's verdict: 'up' (interval above the noise band), 'down' (below it), 'noise' (it
 * overlaps the band; without a band: it holds 1), 'few' (no interval).
 * @param {object|null} ratio from pairedSummary or unpairedRatio
 * @param {{ low: number, high: number } | null} band from noiseBand
 * @returns {'up'|'down'|'noise'|'few'}
 */
function judge (ratio, band) {
  if (!ratio || ratio.few) return 'few'
  const { low, high } = band ?? { low: 1, high: 1 }
  if (ratio.low > high) return 'up'
  if (ratio.high < low) return 'down'
  return 'noise'
}

module.exports = { medianInterval, orderInterval, roundValues, divideRounds, pairedSummary, pairedRatio, noiseBand, judge, median, CONFIDENCE }
