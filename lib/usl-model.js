'use strict'
// Fits Gunther's Universal Scalability Law, X(N) = λN / (1 + σ(N−1) + κN(N−1)), to measured
// throughput by least squares: λ in closed form for each (σ, κ), a grid then a pattern search.

/** Predicted throughput at N for parameters { lambda, sigma, kappa }. */
function uslThroughput ({ lambda, sigma, kappa }, n) {
  return (lambda * n) / (1 + sigma * (n - 1) + kappa * n * (n - 1))
}

/** Best λ and the squared error for fixed σ, κ: X = λ·f(N) is linear in λ. */
function profile (points, sigma, kappa) {
  let xf = 0
  let ff = 0
  for (const { n, x } of points) {
    const f = uslThroughput({ lambda: 1, sigma, kappa }, n)
    xf += x * f
    ff += f * f
  }
  const lambda = xf / ff
  let sse = 0
  for (const { n, x } of points) sse += (x - lambda * uslThroughput({ lambda: 1, sigma, kappa }, n)) ** 2
  return { lambda, sigma, kappa, sse }
}

/**
 * @param {{ n: number, x: number }[]} points throughput x measured at n processes (repeats allowed)
 * @returns {{ lambda, sigma, kappa, sse, r2, peakN }} peakN = sqrt((1 − σ)/κ), Infinity when κ = 0
 */
function fitUsl (points) {
  const levels = new Set(points.map((p) => p.n))
  if (levels.size < 3) throw new Error(`a USL fit needs throughput at 3 or more values of N, got ${levels.size}`)
  let best = { sse: Infinity }
  const kappas = [0, ...Array.from({ length: 121 }, (_, i) => 10 ** (-6 + i / 20))]
  for (let i = 0; i <= 100; i++) {
    for (const kappa of kappas) {
      const fit = profile(points, i / 100, kappa)
      if (fit.sse < best.sse) best = fit
    }
  }
  // Pattern search around the grid's best, keeping 0 <= σ <= 1 and κ >= 0.
  for (let step = 0.01, kstep = Math.max(best.kappa, 1e-6); step > 1e-9;) {
    let moved = false
    for (const [ds, dk] of [[step, 0], [-step, 0], [0, kstep], [0, -kstep]]) {
      const sigma = Math.min(1, Math.max(0, best.sigma + ds))
      const kappa = Math.max(0, best.kappa + dk)
      const fit = profile(points, sigma, kappa)
      if (fit.sse < best.sse) { best = fit; moved = true }
    }
    if (!moved) { step /= 2; kstep /= 2 }
  }
  const mean = points.reduce((a, p) => a + p.x, 0) / points.length
  const sst = points.reduce((a, p) => a + (p.x - mean) ** 2, 0)
  return { ...best, r2: sst ? 1 - best.sse / sst : 1, peakN: best.kappa > 0 ? Math.sqrt((1 - best.sigma) / best.kappa) : Infinity }
}

module.exports = { fitUsl, uslThroughput }
