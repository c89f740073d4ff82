'use strict'
// The search for a cell's capacity, as Nighthawk's adaptive controller and mutilate --search do it:
// from --startRate the rate doubles until a probe fails, then bisection (geometric) until the
// highest passing rate is within --precision of the lowest failing one, then a probe three times as
// long confirms it. A later round starts from the capacity found so far and steps by 4 × precision
// around it instead of doubling from the start. Pure: probe() is given.

const CONFIRM = 3 // the confirming probe is this many times as long
const MAX_CONFIRMS = 4 // a failed confirmation steps down (by the precision, then twice as far each time), this many times at most

/**
 * Finds the highest rate at which probes pass.
 * @param {(rate: number, seconds: number) => Promise<{ passed: boolean, invalid: boolean }>} probe
 * @param {{ startRate: number, endRate: number, precision: number, seconds: number, prior?: number|null }} how
 *   prior: the capacity earlier rounds found for this cell, if any
 * @returns {Promise<{ capacity: number|null, low: number|null, high: number|null, limit: string, probes: number }>}
 *   capacity: the confirmed rate, null when even the lowest rate tried failed; low/high: the passing and
 *   failing rates it ended between (high null when nothing failed up to endRate); limit: 'slo' (a probe
 *   failed above it), 'endRate' (nothing failed up to --endRate), 'startRate' (the lowest rate failed),
 *   'generator' (a probe was invalid: the generator could not keep up above it, so capacity is a lower bound),
 *   'unconfirmed' (no longer probe held)
 */
async function searchCapacity (probe, { startRate, endRate, precision, seconds, prior = null }) {
  let low = null
  let high = null
  let limit = 'slo'
  let probes = 0
  const clamp = (rate) => Math.round(Math.min(endRate, Math.max(startRate, rate)))
  const tryRate = async (rate, length = seconds) => {
    probes++
    const result = await probe(rate, length)
    if (result.invalid) limit = 'generator'
    return result.passed
  }
  // Bracket: a passing rate below a failing one (or --endRate, or --startRate failing).
  const step = prior ? 1 + 4 * precision : 2
  let rate = prior ? clamp(prior) : startRate
  for (;;) {
    const passed = await tryRate(rate)
    if (limit === 'generator') break
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
  if (limit === 'generator') return { capacity: low, low, high, limit, probes }
  if (low === null) return { capacity: null, low, high, limit: 'startRate', probes }
  if (high === null) limit = 'endRate'
  // Bisect, geometrically, to within the precision.
  while (high !== null && high / low > 1 + precision) {
    const mid = Math.round(Math.sqrt(low * high))
    if (mid <= low || mid >= high) break
    if (await tryRate(mid)) low = mid
    else if (limit === 'generator') return { capacity: low, low, high: mid, limit, probes }
    else high = mid
  }
  // Confirm with a longer probe; a failure steps down, by the precision and then twice as far each
  // time (a longer probe holds a rate longer), and tries again. So does a confirmation the generator fell
  // behind in (near saturation, on cores it shares with the server): a lower rate it holds is then a lower
  // bound (limit 'generator'), not nothing.
  for (let k = 0, down = precision; k < MAX_CONFIRMS; k++, down *= 2) {
    if (await tryRate(low, seconds * CONFIRM)) return { capacity: low, low, high, limit, probes }
    high = low
    low = Math.max(1, Math.round(low / (1 + down)))
  }
  return { capacity: null, low: null, high, limit: limit === 'generator' ? limit : 'unconfirmed', probes }
}

module.exports = { searchCapacity, CONFIRM }
