'use strict'
// bench/process-offset.js's analysis on rounds made to order: copies that share one speed under round-to-round noise
// against copies one of which runs 8% faster in every round.

const t = require('tap')
const { processOffsets } = require('../../bench/process-offset')
const { mulberry32 } = require('../../lib/random')

// 40 rounds of 4 copies: each round a machine speed all copies share, each copy its own noise (log sd 0.05), copy C × `c`.
function rounds (c, seed) {
  const random = mulberry32(seed)
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const byCopy = new Map(['A', 'B', 'C', 'D'].map((id) => [id, new Map()]))
  for (let r = 1; r <= 40; r++) {
    const machine = 4000 * (1 + 0.3 * random())
    for (const [id, values] of byCopy) values.set(r, machine * (id === 'C' ? c : 1) * Math.exp(0.05 * normal()))
  }
  return byCopy
}

t.test('copies that share one speed: F near 1, no shuffle-test alarm, every offset\'s interval holds 1', async (t) => {
  const r = processOffsets(rounds(1, 7))
  t.equal(r.rounds, 40)
  t.ok(r.f > 0.3 && r.f < 2.5, `F ${r.f}`)
  t.ok(r.p > 0.05, `p ${r.p}`)
  for (const c of r.copies) t.ok(c.low < 1 && c.high > 1, `${c.id} ${c.low}–${c.high}`)
  t.ok(Math.abs(r.noise - 0.05) < 0.01, `noise ${r.noise} (0.05 put in)`)
})

t.test('one copy 8% faster in every round: found, by its offset and by the spread', async (t) => {
  const r = processOffsets(rounds(1.08, 7))
  t.ok(r.p < 0.01, `p ${r.p}`)
  t.ok(r.f > 10, `F ${r.f}`)
  const c = r.copies.find((x) => x.id === 'C')
  // Against the mean of 4 copies, one 8% up sits at 1.08 / 1.08^(1/4) = 1.059, the others at 0.981.
  t.ok(Math.abs(c.offset - 1.059) < 0.015 && c.low < c.offset && c.offset < c.high && c.low > 1.03 && c.high < 1.09, `C ${c.offset} [${c.low}–${c.high}]`)
  t.ok(r.processSpread > 0.02, `the processes' own spread ${r.processSpread}`)
})

t.test('too few rounds or copies is an error that says so', async (t) => {
  t.throws(() => processOffsets(new Map([['A', new Map([[1, 1], [2, 1]])], ['B', new Map([[1, 1], [2, 1]])]])), /3 rounds or more/)
  t.throws(() => processOffsets(new Map([['A', new Map([[1, 1], [2, 1], [3, 1]])]])), /2 copies or more/)
})
