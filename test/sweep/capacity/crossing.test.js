'use strict'
// sweep/capacity/crossing.js: where a monotone fit of log latency against the offered rate crosses the target, from
// scripted probes; every expected rate is worked out by hand in the comment beside it.

const t = require('tap')
const { crossingOf } = require('../../../sweep/capacity/crossing')
const { parseSlo } = require('../../../lib/slo')

const SLO = parseSlo('p99:20ms')
// The crossing to the hundredth of a request a second (floating point leaves 2,999.9999999999986 for 3,000).
const cross = (probes, slo = SLO) => {
  const found = crossingOf(probes, slo)
  return { ...found, crossing: found.crossing === null ? null : Math.round(found.crossing * 100) / 100 }
}
// A probe at `rate` whose pooled p99 is `ms`; cause '' when it is within 20 ms, else 'slo', unless given.
const probe = (rate, ms, { requests = 3000, cause = ms <= 20 ? '' : 'slo', p50 } = {}) =>
  ({ rate, requests, cause, pooled: { p99: ms * 1000, ...(p50 && { p50: p50 * 1000 }) } })

t.test('between the highest rate under the target and the lowest over it, log latency is linear in the rate', async (t) => {
  // ln 20 is halfway from ln 10 to ln 40: 3,000, halfway from 2,000 to 4,000.
  t.same(cross([probe(1000, 5), probe(2000, 10), probe(4000, 40)], SLO), { crossing: 3000, low: 2000, high: 4000 })
  // ln(20/16) / ln(64/16) = 0.2231 / 1.3863 = 0.16096: 5,000 + 0.16096 × 1,000 = 5,160.96.
  const near = cross([probe(5000, 16), probe(6000, 64), probe(3000, 12)], SLO)
  t.equal(near.crossing, 5160.96, 'the order probes came in does not matter')
})

t.test('a probe lower than one at a lower rate is averaged with it (weighted by requests), not believed', async (t) => {
  // 16 ms at 2,000 and 4 ms at 2,500, 3,000 requests each: both fitted at their geometric mean, 8 ms. From 8 ms at 2,500
  // to 32 ms at 4,000: ln(20/8) / ln(32/8) = 0.91629 / 1.38629 = 0.66096, so 2,500 + 0.66096 × 1,500 = 3,491.45.
  const fitted = cross([probe(2000, 16), probe(2500, 4), probe(4000, 32)], SLO)
  t.equal(fitted.crossing, 3491.45)
  t.match(fitted, { low: 2500, high: 4000 })
  // A passing probe above a failing one (a noisy pair): 30 ms at 3,000 (9,000 requests) and 10 ms at 3,500 (3,000) pool to
  // exp((9,000 ln 30 + 3,000 ln 10) / 12,000) = 30^0.75 × 10^0.25 = 22.80 ms, over: the crossing lies between 2,000 (10 ms)
  // and 3,000: ln(20/10) / ln(22.80/10) = 0.69315 / 0.82396 = 0.84124, so 2,841.24.
  const noisy = cross([probe(2000, 10), probe(3000, 30, { requests: 9000 }), probe(3500, 10)], SLO)
  t.equal(noisy.crossing, 2841.24)
  t.match(noisy, { low: 2000, high: 3000 })
})

t.test('the binding target is the one that crosses lowest', async (t) => {
  // p50 ≤ 5 ms: from 4 ms at 2,000 to 8 ms at 4,000, ln(5/4) / ln 2 = 0.32193: 2,643.86, below p99's 3,000.
  const both = [probe(1000, 5, { p50: 2 }), probe(2000, 10, { p50: 4 }), probe(4000, 40, { p50: 8 })]
  t.equal(cross(both, parseSlo('p50:5ms,p99:20ms')).crossing, 2643.86)
})

t.test('a probe that failed otherwise bounds the crossing from above; without both sides there is no crossing', async (t) => {
  // The fit would cross at 3,000, but requests failed at 2,800: no higher than the highest rate under the target below it.
  t.same(cross([probe(1000, 5), probe(2000, 10), probe(2800, 12, { cause: 'backlog' }), probe(4000, 40)], SLO),
    { crossing: 2000, low: 2000, high: 2800 })
  t.same(cross([probe(1000, 5), probe(2000, 10), probe(5000, 12, { cause: 'failed' }), probe(4000, 40)], SLO),
    { crossing: 3000, low: 2000, high: 4000 }, 'above the crossing it changes nothing')
  t.same(cross([probe(1000, 5), probe(2000, 10)], SLO), { crossing: null, low: 2000, high: null }, 'never over: the highest rate, a lower bound')
  t.same(cross([probe(1000, 25), probe(2000, 30)], SLO), { crossing: null, low: null, high: 1000 }, 'never under: nothing')
  t.same(cross([], SLO), { crossing: null, low: null, high: null })
})
