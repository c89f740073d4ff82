'use strict'
// bench/window-noise.js's pairByDistance on windows made to order: A's window over B's in one pass, next to each other
// and apart, where every window draws a speed of its own, and where a window shares half its speed with the one before.

const t = require('tap')
const { pairByDistance } = require('../../bench/window-noise')
const { mulberry32, shuffle } = require('../../lib/random')

// 3,000 passes of 5 cells in a shuffled order; a window's log speed is z(i) + shared × z(i − 1), z normal, i its place in
// the run (so that with shared = 1 a window and the next share one term: their correlation 1/2; two apart, none).
function windows (shared, seed) {
  const random = mulberry32(seed)
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const out = []
  let before = normal()
  for (let pass = 1; pass <= 3000; pass++) {
    for (const cell of shuffle(['A', 'B', 'C', 'D', 'E'], random)) {
      const z = normal()
      out.push({ round: Math.ceil(pass / 8), pass: ((pass - 1) % 8) + 1, cell, kept: true, opsPerSec: 5000 * Math.exp(0.1 * (z + shared * before)) })
      before = z
    }
  }
  return out
}

t.test('each window its own speed: A over B spreads alike next to each other and apart', async (t) => {
  const { adjacent, apart } = pairByDistance(windows(0, 11), 'A', 'B')
  t.ok(adjacent.n > 900 && apart.n > 1500, `${adjacent.n} passes next to each other, ${apart.n} apart (2 in 5, 3 in 5)`)
  // Each log difference has sd 0.1 √2 = 0.141
  t.ok(Math.abs(adjacent.spread - 0.141) < 0.01 && Math.abs(apart.spread - 0.141) < 0.01, `${adjacent.spread}, ${apart.spread}`)
})

t.test('a window sharing half its speed with the one before: next to each other they differ less', async (t) => {
  const { adjacent, apart } = pairByDistance(windows(1, 11), 'A', 'B')
  // Variance of a window's log 2 × 0.01; next to each other they share 0.01: var 0.04 − 0.02 = 0.02 (sd 0.141), apart 0.04 (0.2)
  t.ok(Math.abs(adjacent.spread - 0.141) < 0.01, `next to each other ${adjacent.spread}`)
  t.ok(Math.abs(apart.spread - 0.2) < 0.012, `apart ${apart.spread}`)
})

t.test('a pass missing A or B, or one whose window was not kept, is left out', async (t) => {
  const w = (pass, cell, opsPerSec, kept = true) => ({ round: 1, pass, cell, kept, opsPerSec })
  const r = pairByDistance([w(1, 'A', 100), w(1, 'B', 100), w(2, 'A', 100), w(2, 'C', 1), w(2, 'B', 400),
    w(3, 'A', 1), w(3, 'B', 1000, false), w(4, 'B', 7)], 'A', 'B')
  t.same([r.adjacent.n, r.apart.n], [1, 1])
  // log(1) and log(1/4), centred on their mean: ± log(4)/2
  t.ok(Math.abs(r.adjacent.spread - Math.log(4) / 2) < 1e-9 && Math.abs(r.apart.spread - Math.log(4) / 2) < 1e-9)
})
