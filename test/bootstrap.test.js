'use strict'
// Bootstrap intervals: deterministic for a seed, and covering the true value about as often as promised.

const t = require('tap')
const { bootstrapCi, bootstrapRatio, median, mean, rng } = require('../lib/bootstrap')

t.test('the 95% interval of a mean covers the true mean in about 95% of synthetic samples', async (t) => {
  const random = rng(123)
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  let covered = 0
  const trials = 200
  for (let i = 0; i < trials; i++) {
    const sample = Array.from({ length: 30 }, () => 100 + 10 * normal())
    const ci = bootstrapCi(sample, { statistic: mean, iterations: 500, seed: i })
    if (ci.low <= 100 && ci.high >= 100) covered++
  }
  t.ok(covered / trials > 0.88 && covered / trials < 0.99, `coverage ${covered / trials}`)
})

t.test('same data and seed give the same interval; the estimate is the statistic itself', async (t) => {
  const values = [3, 1, 4, 1, 5, 9, 2, 6]
  t.same(bootstrapCi(values, { seed: 5 }), bootstrapCi(values, { seed: 5 }))
  t.equal(bootstrapCi(values).estimate, median(values))
  const ci = bootstrapCi(values)
  t.ok(ci.low <= ci.estimate && ci.estimate <= ci.high)
  t.throws(() => bootstrapCi([]), /at least one value/)
})

t.test('a ratio interval is clear of 1 only when the groups really differ', async (t) => {
  const random = rng(9)
  const around = (center) => Array.from({ length: 12 }, () => center * (0.97 + 0.06 * random()))
  const differ = bootstrapRatio(around(2000), around(1000))
  t.ok(differ.clear && differ.low > 1.8 && differ.high < 2.2, JSON.stringify(differ))
  const same = bootstrapRatio(around(1000), around(1000))
  t.notOk(same.clear, JSON.stringify(same))
  t.ok(same.low < 1 && same.high > 1)
  t.throws(() => bootstrapRatio([1], []), /both groups/)
})
