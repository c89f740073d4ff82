'use strict'
// The report's statistics: medians with order-statistic intervals, ratios paired within rounds,
// the A/A noise band and verdicts against it, and the unpaired ratio compare uses.

const t = require('tap')
const { medianInterval, pairedRatio, divideRounds, roundValues, pairedSummary, noiseBand, judge } = require('../report/intervals')
const { unpairedRatio } = require('../report/unpaired')

// A cell as report/cells.js builds it: valid rows with their round (repeat).
const cell = (values, column = 'opsPerSec') => ({ valid: values.map((v, i) => ({ repeat: i + 1, [column]: v })) })

t.test('a median interval is [min, max] up to 8 values, with the coverage it really has', async (t) => {
  const coverage = { 1: 0, 2: 0.5, 3: 0.75, 4: 0.875, 5: 0.9375, 6: 0.96875, 8: 0.9921875 }
  for (const [n, confidence] of Object.entries(coverage)) {
    const values = Array.from({ length: Number(n) }, (_, i) => 10 * (Number(n) - i)) // descending: order must not matter
    t.same(medianInterval(values), { estimate: 5 * (Number(n) + 1), low: 10, high: 10 * Number(n), confidence, n: Number(n) }, `${n} values`)
  }
})

t.test('from 9 values the interval moves inwards to the order statistics that keep 95%', async (t) => {
  const range = (n) => Array.from({ length: n }, (_, i) => i + 1)
  t.same(medianInterval(range(9)), { estimate: 5, low: 2, high: 8, confidence: 1 - 2 * 10 / 512, n: 9 })
  t.same(medianInterval(range(20)), { estimate: 10.5, low: 6, high: 15, confidence: 1 - 2 * 21700 / 2 ** 20, n: 20 })
  t.throws(() => medianInterval([]), /at least one value/)
})

t.test('a slow round that hits both cells cancels in the paired ratio', async (t) => {
  // The machine's speed drifts from round to round; sync is 1.25x async in every round.
  const sync = cell([1000, 700, 1300, 600, 1200, 900])
  const async = cell([800, 560, 1040, 480, 960, 720])
  const r = pairedRatio(sync, async)
  t.match(r, { estimate: 1.25, low: 1.25, high: 1.25, n: 6, confidence: 0.96875, few: false, clear: true })
  t.equal(r.a, sync, 'the ratio keeps its cells')
  // Unpaired, the drift makes the interval straddle 1.
  const unpaired = unpairedRatio(async.valid.map((x) => x.opsPerSec), sync.valid.map((x) => x.opsPerSec))
  t.ok(unpaired.low < 1, `unpaired interval ${unpaired.low.toFixed(2)}–${unpaired.high.toFixed(2)} holds 1`)
})

t.test('rounds missing on either side, or with no value, are left out', async (t) => {
  const a = { valid: [{ repeat: 1, opsPerSec: 120 }, { repeat: 2, opsPerSec: 150 }, { repeat: 4, opsPerSec: 90 }, { repeat: 5, opsPerSec: null }] }
  const b = { valid: [{ repeat: 1, opsPerSec: 100 }, { repeat: 2, opsPerSec: 100 }, { repeat: 3, opsPerSec: 100 }, { repeat: 5, opsPerSec: 100 }] }
  t.same([...divideRounds(roundValues(a, 'opsPerSec'), roundValues(b, 'opsPerSec'))], [[1, 1.2], [2, 1.5]])
  t.match(pairedRatio(a, b), { estimate: 1.35, low: 1.2, high: 1.5, n: 2, confidence: 0.5, few: false, clear: true })
  t.match(pairedRatio({ valid: [{ repeat: 1, opsPerSec: 5 }] }, b), { n: 1, few: true, clear: false })
  t.equal(pairedRatio({ valid: [{ repeat: 9, opsPerSec: 5 }] }, b), null, 'no shared round')
})

t.test('a ratio of ratios is paired too', async (t) => {
  // sync/async is 1.5 under one setting and 1.2 under the other, in every round.
  const [s1, a1] = [new Map([[1, 150], [2, 300]]), new Map([[1, 100], [2, 200]])]
  const [s2, a2] = [new Map([[1, 120], [2, 60]]), new Map([[1, 100], [2, 50]])]
  const r = pairedSummary(divideRounds(divideRounds(s1, a1), divideRounds(s2, a2)))
  t.equal(r.estimate.toFixed(6), '1.250000')
  t.equal(r.n, 2)
})

t.test('the noise band reads each A/A interval both ways round', async (t) => {
  t.same(noiseBand([{ low: 0.9, high: 1.05, few: false }, null, { low: 0.5, high: 2, few: true }]), { low: 0.9, high: 1 / 0.9 })
  t.same(noiseBand([{ low: 1.02, high: 1.1, few: false }]), { low: 1 / 1.1, high: 1.1 })
  t.equal(noiseBand([null]), null)
})

t.test('a ratio is up or down only when its interval clears the noise band', async (t) => {
  const band = { low: 0.9, high: 1.1 }
  const r = (low, high) => ({ low, high, few: false })
  t.equal(judge(r(1.15, 1.4), band), 'up')
  t.equal(judge(r(0.5, 0.85), band), 'down')
  t.equal(judge(r(1.05, 1.4), band), 'noise', 'overlapping the band is noise')
  t.equal(judge(r(1.1, 1.4), band), 'noise', 'touching it too')
  t.equal(judge(r(1.05, 1.4), null), 'up', 'without a band, leaving out 1 is enough')
  t.equal(judge(r(0.95, 1.4), null), 'noise')
  t.equal(judge({ low: 2, high: 2, few: true }, band), 'few')
  t.equal(judge(null, band), 'few')
})

t.test('the unpaired ratio is the Hodges–Lehmann median with the exact Mann–Whitney interval', async (t) => {
  // 3 vs 3: the interval is the min and max of the 9 ratios, covering 1 - 2/20 = 90%.
  t.same(unpairedRatio([10, 11, 12], [20, 22, 24]), { estimate: 2, low: 20 / 12, high: 24 / 10, n: [3, 3], confidence: 0.9, few: false, clear: true })
  // 6 vs 6: P(U <= 5) = 19/924, so the interval is the 6th smallest to 6th largest of 36 ratios.
  const a = [100, 101, 102, 103, 104, 105]
  const b = [110, 111, 112, 113, 114, 115]
  const ratios = a.flatMap((x) => b.map((y) => y / x)).sort((p, q) => p - q)
  t.match(unpairedRatio(a, b), { low: ratios[5], high: ratios[30], confidence: 1 - 2 * 19 / 924, clear: true })
  t.match(unpairedRatio(a, a), { estimate: 1, clear: false })
  t.equal(unpairedRatio([], b), null)
  t.match(unpairedRatio([5], [6]), { estimate: 1.2, few: true, clear: false })
})
