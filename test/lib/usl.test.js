'use strict'
// The USL fit recovers known parameters from synthetic throughput.

const t = require('tap')
const { fitUsl, uslThroughput } = require('../../lib/usl-model')
const { mulberry32: rng } = require('../../lib/random')

t.test('exact points give back λ, σ, κ and the peak', async (t) => {
  const truth = { lambda: 1000, sigma: 0.05, kappa: 0.002 }
  const points = [1, 2, 4, 8, 16, 32].map((n) => ({ n, x: uslThroughput(truth, n) }))
  const fit = fitUsl(points)
  t.ok(Math.abs(fit.lambda - 1000) < 1, `λ ${fit.lambda}`)
  t.ok(Math.abs(fit.sigma - 0.05) < 1e-3, `σ ${fit.sigma}`)
  t.ok(Math.abs(fit.kappa - 0.002) < 1e-4, `κ ${fit.kappa}`)
  t.ok(Math.abs(fit.peakN - Math.sqrt(0.95 / 0.002)) < 0.5, `peak ${fit.peakN}`)
  t.ok(fit.r2 > 0.9999)
})

t.test('noisy repeats still land near the truth; linear scaling has no peak', async (t) => {
  const truth = { lambda: 500, sigma: 0.2, kappa: 0.01 }
  const random = rng(7)
  const points = []
  for (const n of [1, 2, 3, 4, 6, 8]) for (let r = 0; r < 5; r++) points.push({ n, x: uslThroughput(truth, n) * (0.98 + 0.04 * random()) })
  const fit = fitUsl(points)
  t.ok(Math.abs(fit.lambda - 500) / 500 < 0.05, `λ ${fit.lambda}`)
  t.ok(Math.abs(fit.sigma - 0.2) < 0.05, `σ ${fit.sigma}`)
  t.ok(Math.abs(fit.kappa - 0.01) < 0.01, `κ ${fit.kappa}`)
  const linear = fitUsl([1, 2, 4].map((n) => ({ n, x: 100 * n })))
  t.equal(linear.sigma, 0)
  t.equal(linear.kappa, 0)
  t.equal(linear.peakN, Infinity)
})

t.test('fewer than 3 values of N is an error', async (t) => {
  t.throws(() => fitUsl([{ n: 1, x: 1 }, { n: 2, x: 2 }, { n: 2, x: 2.1 }]), /needs throughput at 3 or more values of N, got 2/)
})
