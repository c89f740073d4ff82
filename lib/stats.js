'use strict'
// The plain statistics every room uses: the median of some numbers and Jain's fairness index of
// some counts. The report's intervals (report/stats/intervals.js) build on them.

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
 * The serving processes' mean event-loop utilization (lib/telemetry.js), null when one has none (Bun's and Deno's stay 0/0).
 * @param {Array<{ utilization: number|null }>} serving
 * @returns {number|null}
 */
function meanUtilization (serving) {
  return serving.some((p) => p.utilization === null) ? null : serving.reduce((a, p) => a + p.utilization, 0) / Math.max(1, serving.length)
}

module.exports = { median, fairness, meanUtilization }
