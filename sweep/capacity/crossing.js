'use strict'
// A round's capacity from its probes: the offered rate at which a fit of each --slo percentile against the rate
// crosses its limit (the lowest such rate when there are several targets). Pure: sweep/capacity/search.js gives it
// the probes of a search, tests give it scripted ones.
//
// The fit is monotone: an isotonic regression (pool-adjacent-violators) of log latency on the rate, each probe
// weighted by its requests. Latency does not fall as the load rises, so a probe that came out lower than one at a
// lower rate is noise, averaged with it rather than believed, and no single probe moves the crossing past its
// neighbours. Between the last fitted point under the limit and the first over it, log latency is taken as linear in
// the rate; the crossing is where that line meets the limit. A probe that failed for another reason (requests
// failed, a backlog) has no latency to fit but still bounds the crossing from above.

/**
 * @param {Array<{ rate: number, requests: number, pooled: object, cause: string }>} probes the valid ones (sweep/capacity/judge.js):
 *   cause '' (passed) or 'slo' are fitted, 'failed' and 'backlog' bound the crossing from above
 * @param {Array<{ name: string, us: number }>} slo lib/slo.js parseSlo
 * @returns {{ crossing: number|null, low: number|null, high: number|null }} crossing: req/s, null when no probe was both
 *   under and over the limits; low/high: the rates of the probes it lies between. Without a crossing: low the highest
 *   rate under the limits (null when none was), high the lowest over them (null when none was)
 */
function crossingOf (probes, slo) {
  const fitted = probes.filter((p) => p.cause === '' || p.cause === 'slo')
  const ceiling = Math.min(...probes.filter((p) => p.cause === 'failed' || p.cause === 'backlog').map((p) => p.rate))
  const ends = slo.map((t) => crossTarget(fitted.filter((p) => p.pooled[t.name] > 0)
    .map((p) => ({ rate: p.rate, y: Math.log(p.pooled[t.name]), w: Math.max(1, p.requests) })), Math.log(t.us)))
  // The binding target is the one that crosses lowest; one with no probe under its limit leaves nothing.
  if (ends.some((e) => e.low === null && e.high !== null)) return { crossing: null, low: null, high: Math.min(...ends.map((e) => e.high ?? Infinity)) }
  const crossed = ends.filter((e) => e.crossing !== null).sort((a, b) => a.crossing - b.crossing)[0]
  const found = crossed ?? { crossing: null, low: ends.length > 0 ? Math.min(...ends.map((e) => e.low ?? Infinity)) : null, high: null }
  if (found.low === Infinity) found.low = null
  if (!(ceiling <= (found.crossing ?? found.low ?? -Infinity))) return found
  // Over at the ceiling: the crossing is no higher than the highest rate fitted under the limits below it.
  const under = fitted.filter((p) => p.cause === '' && p.rate < ceiling).map((p) => p.rate)
  return under.length > 0 ? { crossing: Math.max(...under), low: Math.max(...under), high: ceiling } : { crossing: null, low: null, high: ceiling }
}

// One target: the points' monotone fit and where it crosses y = limit.
function crossTarget (points, limit) {
  const blocks = []
  for (const p of [...points].sort((a, b) => a.rate - b.rate)) {
    blocks.push({ y: p.y, w: p.w, rates: [p.rate] })
    while (blocks.length > 1 && blocks[blocks.length - 2].y >= blocks[blocks.length - 1].y) {
      const [a, b] = blocks.splice(-2)
      blocks.push({ y: (a.y * a.w + b.y * b.w) / (a.w + b.w), w: a.w + b.w, rates: [...a.rates, ...b.rates] })
    }
  }
  const over = blocks.findIndex((b) => b.y > limit)
  if (over === -1) return { crossing: null, low: blocks.length > 0 ? blocks[blocks.length - 1].rates.at(-1) : null, high: null }
  if (over === 0) return { crossing: null, low: null, high: blocks[0].rates[0] }
  const [a, b] = [blocks[over - 1], blocks[over]]
  const [low, high] = [a.rates.at(-1), b.rates[0]]
  return { crossing: low + (high - low) * (limit - a.y) / (b.y - a.y), low, high }
}

module.exports = { crossingOf }
