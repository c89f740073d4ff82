'use strict'
// The ratio of two independent samples, for `compare` (one cell in two result folders, whose
// rounds do not pair): the Hodges–Lehmann estimate and its exact Mann–Whitney interval.

const { orderInterval, CONFIDENCE } = require('./intervals')
const { median } = require('../../lib/median')

// P(U <= u) for u = 0..m*n, U the Mann–Whitney statistic of samples of m and n with no ties.
function mannWhitneyCdf (m, n) {
  let ways = [[1]] // ways[j][u]: arrangements of i (outer loop) and j values with U = u
  for (let j = 1; j <= n; j++) ways.push([1])
  for (let i = 1; i <= m; i++) {
    const next = [[1]]
    for (let j = 1; j <= n; j++) {
      const row = []
      for (let u = 0; u <= i * j; u++) row.push((ways[j][u - j] ?? 0) + (next[j - 1][u] ?? 0))
      next.push(row)
    }
    ways = next
  }
  const counts = ways[n]
  const total = counts.reduce((a, b) => a + b, 0)
  let sum = 0
  return counts.map((c) => (sum += c) / total)
}

/**
 * The ratio b / a of two independent samples (e.g. one cell in two folders): the Hodges–Lehmann
 * estimate (the median of every b[j] / a[i]) and the exact Mann–Whitney interval over those
 * ratios. Four values a side are the fewest that reach 95%; with fewer, `confidence` is lower.
 * @param {number[]} a positive values
 * @param {number[]} b positive values
 * @param {number} [confidence]
 * @returns {{ estimate, low, high, n: [number, number], confidence, few: boolean } | null}
 *   null when a side is empty
 */
function unpairedRatio (a, b, confidence = CONFIDENCE) {
  if (a.length === 0 || b.length === 0) return null
  const ratios = a.flatMap((x) => b.map((y) => y / x)).sort((p, q) => p - q)
  const { low, high, confidence: covered } = orderInterval(ratios, mannWhitneyCdf(a.length, b.length), confidence)
  const few = a.length < 2 && b.length < 2
  return { estimate: median(ratios), low, high, n: [a.length, b.length], confidence: covered, few }
}

module.exports = { unpairedRatio }
