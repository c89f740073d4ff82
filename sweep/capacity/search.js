'use strict'
// The search for a cell's capacity in one round: from --startRate the rate doubles until a probe fails,
// then bisection (geometric) until the highest passing rate is within --precision of the lowest failing
// one, so the probes close in on the crossing from both sides; the capacity is where the fit of the
// round's probes crosses the target (sweep/capacity/crossing.js). A later round starts from the
// capacity found so far and steps by 4 × precision around it instead of doubling from the start.
// Pure: probe() is given.

const { crossingOf } = require('./crossing')

/**
 * Searches one round for the rate at which the latency target is crossed.
 * @param {(rate: number, seconds: number) => Promise<{ passed: boolean, invalid: boolean, cause: string, requests: number,
 *   pooled: object }>} probe judged as sweep/capacity/judge.js judgeProbe does
 * @param {{ startRate: number, endRate: number, precision: number, seconds: number, slo: object[], prior?: number|null }} how
 *   prior: the capacity earlier rounds found for this cell, if any
 * @returns {Promise<{ capacity: number|null, low: number|null, high: number|null, highestPass: number|null, limit: string,
 *   probes: number }>} capacity: the crossing (req/s, rounded), or with no probe over the target the highest rate under
 *   it (a lower bound), null when even the lowest rate was over; low/high: the probes' rates it lies between;
 *   highestPass: the highest rate a probe passed at; limit: 'slo' (the fit crossed the target), 'endRate' (nothing
 *   failed up to --endRate), 'startRate' (the lowest rate was over), 'generator' (a probe was invalid, the generator
 *   the limit, before any failed: capacity is a lower bound)
 */
async function searchCapacity (probe, { startRate, endRate, precision, seconds, slo, prior = null }) {
  const valid = []
  let invalid = false
  let count = 0
  const clamp = (rate) => Math.round(Math.min(endRate, Math.max(startRate, rate)))
  const tryRate = async (rate) => {
    count++
    const result = await probe(rate, seconds)
    if (result.invalid) invalid = true
    else valid.push({ rate, ...result })
    return result.passed
  }
  // Bracket: a passing rate below a failing one (or --endRate, or --startRate failing). An invalid probe ends the
  // search: above it, the generator cannot say what the server does.
  let low = null
  let high = null
  const step = prior ? 1 + 4 * precision : 2
  let rate = prior ? clamp(prior) : startRate
  for (;;) {
    const passed = await tryRate(rate)
    if (invalid) break
    if (passed) {
      low = rate
      if (high !== null || rate >= endRate) break
      rate = clamp(rate * step)
    } else {
      high = rate
      if (low !== null || rate <= startRate) break
      rate = clamp(rate / step)
    }
  }
  // Bisect, geometrically, to within the precision: probes on both sides of the crossing, ever closer.
  while (low !== null && high !== null && high / low > 1 + precision) {
    const mid = Math.round(Math.sqrt(low * high))
    if (mid <= low || mid >= high) break
    const passed = await tryRate(mid)
    if (invalid) break
    if (passed) low = mid
    else high = mid
  }
  const fit = crossingOf(valid, slo)
  const passes = valid.filter((p) => p.passed).map((p) => p.rate)
  const highestPass = passes.length > 0 ? Math.max(...passes) : null
  const found = { low: fit.low, high: fit.high, highestPass, probes: count }
  if (fit.crossing !== null) return { ...found, capacity: Math.round(fit.crossing), limit: 'slo' }
  if (fit.low === null) return { ...found, capacity: null, limit: invalid && valid.length === 0 ? 'generator' : 'startRate' }
  return { ...found, capacity: fit.low, limit: invalid ? 'generator' : 'endRate' }
}

module.exports = { searchCapacity }
