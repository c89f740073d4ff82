'use strict'
// Seeded percentile-bootstrap confidence intervals for a statistic of repeats, and for the
// ratio of one statistic between two groups (e.g. sync vs async throughput).

/** mulberry32: a small, seedable PRNG, so the same data and seed give the same interval. */
function rng (seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function median (values) {
  const s = [...values].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length

function resample (values, random) {
  return Array.from(values, () => values[Math.floor(random() * values.length)])
}

function percentiles (estimates, confidence) {
  estimates.sort((a, b) => a - b)
  const at = (q) => estimates[Math.min(estimates.length - 1, Math.max(0, Math.floor(q * estimates.length)))]
  return [at((1 - confidence) / 2), at(1 - (1 - confidence) / 2)]
}

/**
 * @param {number[]} values the repeats
 * @param {{ statistic?: Function, iterations?: number, confidence?: number, seed?: number }} [options]
 * @returns {{ estimate: number, low: number, high: number }}
 */
function bootstrapCi (values, { statistic = median, iterations = 2000, confidence = 0.95, seed = 1 } = {}) {
  if (values.length === 0) throw new Error('bootstrapCi needs at least one value')
  const random = rng(seed)
  const estimates = Array.from({ length: iterations }, () => statistic(resample(values, random)))
  const [low, high] = percentiles(estimates, confidence)
  return { estimate: statistic(values), low, high }
}

/**
 * The ratio statistic(a) / statistic(b), each group resampled on its own.
 * @returns {{ estimate: number, low: number, high: number, clear: boolean }} clear: the interval excludes 1
 */
function bootstrapRatio (a, b, { statistic = median, iterations = 2000, confidence = 0.95, seed = 1 } = {}) {
  if (a.length === 0 || b.length === 0) throw new Error('bootstrapRatio needs values in both groups')
  const random = rng(seed)
  const estimates = Array.from({ length: iterations }, () => statistic(resample(a, random)) / statistic(resample(b, random)))
  const [low, high] = percentiles(estimates, confidence)
  return { estimate: statistic(a) / statistic(b), low, high, clear: low > 1 || high < 1 }
}

module.exports = { bootstrapCi, bootstrapRatio, median, mean, rng }
