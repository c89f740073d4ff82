'use strict'
// The plain statistics every room uses: the median of some numbers with its order-statistic interval at
// the verdicts' confidence, the margin of "the same", and Jain's fairness index of some counts. The
// report's intervals (report/stats/intervals.js) build on them; the run's table (sweep/results/table.js)
// uses them as they are.

/** The confidence every interval of a verdict is taken at. */
const CONFIDENCE = 0.95
/** How far from 1 a ratio may be and still be "same", by default (--margin). */
const MARGIN = 0.05
/** Under a medians table whose cells have different numbers of rounds (the run's and the report's). */
const SETTLED_NOTE = 'Cells have different numbers of rounds (a settled cell is measured no more): their medians cover ' +
  'different moments of the run, and with --freshFiles=false the files grow as it goes. Compare cells by the verdicts\' paired ratios, not across this table.'

/**
 * The median of some numbers (the mean of the middle two for an even count).
 * @param {number[]} values
 * @returns {number|null} null without a value
 */
function median (values) {
  if (values.length === 0) return null
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
function intervalOfMedian (values, confidence = CONFIDENCE) {
  if (values.length === 0) throw new Error('intervalOfMedian needs at least one value')
  const sorted = [...values].sort((a, b) => a - b)
  return { estimate: median(sorted), ...orderInterval(sorted, binomialCdf(sorted.length), confidence), n: sorted.length }
}

/**
 * What an interval over rounds covers, in words to print beside it: "96.9% over 6 rounds", "50% over 2 rounds;
 * no 95% interval", "1 round; no interval". No interval is printed without it.
 * @param {{ n: number, confidence: number }} interval from intervalOfMedian (or a ratio's, report/stats/intervals.js)
 * @returns {string}
 */
function coverage ({ n, confidence }) {
  if (n < 2) return `${n} round; no interval`
  const covered = `${Number((confidence * 100).toFixed(1))}% over ${n} rounds`
  return confidence >= CONFIDENCE ? covered : `${covered}; no ${CONFIDENCE * 100}% interval`
}

/**
 * Jain's fairness index of some counts (requests per process): 1 when all are equal, 1/n when one
 * takes everything, 1 when there are none.
 * @param {number[]} counts
 * @returns {number}
 */
function fairness (counts) {
  const total = counts.reduce((a, b) => a + b, 0)
  const squares = counts.reduce((a, b) => a + b * b, 0)
  return squares ? (total * total) / (counts.length * squares) : 1
}

/**
 * The serving processes' mean event-loop utilization (lib/serving/process-telemetry.js), null when one has none (Bun's and Deno's stay 0/0).
 * @param {Array<{ utilization: number|null }>} serving
 * @returns {number|null}
 */
function meanUtilization (serving) {
  return serving.some((p) => p.utilization === null) ? null : serving.reduce((a, p) => a + p.utilization, 0) / Math.max(1, serving.length)
}

module.exports = { median, fairness, meanUtilization, intervalOfMedian, orderInterval, coverage, CONFIDENCE, MARGIN, SETTLED_NOTE }
