'use strict'
// The seeded schedule: the same order for a seed, shuffled, and repeats interleaved in rounds.

const t = require('tap')
const { schedule } = require('../../../sweep/plan/schedule')

t.test('the schedule is the same for a seed, differs across seeds, and interleaves repeats', async (t) => {
  const cells = Array.from({ length: 8 }, (_, i) => ({ id: `c${i}` }))
  const order = (seed) => schedule(cells, 3, seed).map((r) => `${r.cell.id}-r${r.repeat}`)
  t.same(order(42), order(42))
  t.not(order(42).join(), order(43).join())
  const runs = schedule(cells, 3, 42)
  t.same(runs.map((r) => r.order), Array.from({ length: 24 }, (_, i) => i + 1))
  for (let round = 0; round < 3; round++) {
    const block = runs.slice(round * 8, round * 8 + 8)
    t.ok(block.every((r) => r.repeat === round + 1), `round ${round + 1} holds one repeat`)
    t.same(block.map((r) => r.cell.id).sort(), cells.map((c) => c.id), `round ${round + 1} holds every cell once`)
  }
  t.not(runs.slice(0, 8).map((r) => r.cell.id).join(), cells.map((c) => c.id).join(), 'the order is shuffled')
})
