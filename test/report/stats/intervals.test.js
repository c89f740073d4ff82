'use strict'
// The report's statistics: medians with order-statistic intervals, ratios paired within rounds
// (Hodges–Lehmann with Wilcoxon's signed-rank interval), the verdict rule (faster, slower, same,
// undecided), the precision rule, and the unpaired ratio compare uses.

const t = require('tap')
const { intervalOfMedian, hodgesLehmann, pairedRatio, divideRounds, roundValues, pairedSummary, judge, isPrecise, roundsToDecide } =
  require('../../../report/stats/intervals')
const { mulberry32 } = require('../../../lib/random')
const { unpairedRatio } = require('../../../report/stats/unpaired')

// A cell as report/data/cells.js builds it: valid rows with their round (repeat).
const cell = (values, column = 'opsPerSec') => ({ valid: values.map((v, i) => ({ repeat: i + 1, [column]: v })) })

t.test('a median interval is [min, max] up to 8 values, with the coverage it really has', async (t) => {
  const coverage = { 1: 0, 2: 0.5, 3: 0.75, 4: 0.875, 5: 0.9375, 6: 0.96875, 8: 0.9921875 }
  for (const [n, confidence] of Object.entries(coverage)) {
    const values = Array.from({ length: Number(n) }, (_, i) => 10 * (Number(n) - i)) // descending: order must not matter
    t.same(intervalOfMedian(values), { estimate: 5 * (Number(n) + 1), low: 10, high: 10 * Number(n), confidence, n: Number(n) }, `${n} values`)
  }
})

t.test('from 9 values the interval moves inwards to the order statistics that keep 95%', async (t) => {
  const range = (n) => Array.from({ length: n }, (_, i) => i + 1)
  t.same(intervalOfMedian(range(9)), { estimate: 5, low: 2, high: 8, confidence: 1 - 2 * 10 / 512, n: 9 })
  t.same(intervalOfMedian(range(20)), { estimate: 10.5, low: 6, high: 15, confidence: 1 - 2 * 21700 / 2 ** 20, n: 20 })
  t.throws(() => intervalOfMedian([]), /at least one value/)
})

t.test('a slow round that hits both cells cancels in the paired ratio', async (t) => {
  // The machine's speed drifts from round to round; sync is 1.25x async in every round.
  const sync = cell([1000, 700, 1300, 600, 1200, 900])
  const async = cell([800, 560, 1040, 480, 960, 720])
  const r = pairedRatio(sync, async)
  t.match(r, { n: 6, confidence: 0.96875, few: false })
  for (const key of ['estimate', 'low', 'high']) t.ok(Math.abs(r[key] - 1.25) < 1e-12, `${key} ${r[key]}`)
  t.equal(r.a, sync, 'the ratio keeps its cells')
  // Unpaired, the drift makes the interval straddle 1.
  const unpaired = unpairedRatio(async.valid.map((x) => x.opsPerSec), sync.valid.map((x) => x.opsPerSec))
  t.ok(unpaired.low < 1, `unpaired interval ${unpaired.low.toFixed(2)}–${unpaired.high.toFixed(2)} holds 1`)
})

t.test('rounds missing on either side, or with no value, are left out', async (t) => {
  const a = { valid: [{ repeat: 1, opsPerSec: 120 }, { repeat: 2, opsPerSec: 150 }, { repeat: 4, opsPerSec: 90 }, { repeat: 5, opsPerSec: null }] }
  const b = { valid: [{ repeat: 1, opsPerSec: 100 }, { repeat: 2, opsPerSec: 100 }, { repeat: 3, opsPerSec: 100 }, { repeat: 5, opsPerSec: 100 }] }
  t.same([...divideRounds(roundValues(a, 'opsPerSec'), roundValues(b, 'opsPerSec'))], [[1, 1.2], [2, 1.5]])
  const two = pairedRatio(a, b)
  t.match(two, { n: 2, confidence: 0.5, few: false })
  t.ok(Math.abs(two.estimate - Math.sqrt(1.2 * 1.5)) < 1e-12, 'the centre of two log ratios is their geometric mean')
  t.ok(Math.abs(two.low - 1.2) < 1e-12 && Math.abs(two.high - 1.5) < 1e-12)
  t.match(pairedRatio({ valid: [{ repeat: 1, opsPerSec: 5 }] }, b), { n: 1, few: true })
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

t.test('Hodges–Lehmann with the signed-rank interval matches the tables', async (t) => {
  // n = 10 at 95%: the critical value is 8 (P(W+ <= 8) = 25/1024), so the interval runs from the 9th
  // smallest to the 9th largest of the 55 Walsh averages.
  const values = [0.1, 0.2, 0.15, 0.12, 0.3, 0.22, 0.18, 0.11, 0.09, 0.25]
  const walsh = []
  for (let i = 0; i < values.length; i++) for (let j = i; j < values.length; j++) walsh.push((values[i] + values[j]) / 2)
  walsh.sort((a, b) => a - b)
  const hl = hodgesLehmann(values)
  t.match(hl, { n: 10, low: walsh[8], high: walsh[46], confidence: 1 - 2 * 25 / 1024 })
  t.equal(hl.estimate, (walsh[27] + walsh[27]) / 2, 'the median of the 55 Walsh averages')
  // n = 6 is the fewest that reaches 95%: [min, max] at 1 - 2/64; n = 5 stays below it.
  t.match(hodgesLehmann([3, 1, 2, 6, 5, 4]), { estimate: 3.5, low: 1, high: 6, confidence: 0.96875 })
  t.match(hodgesLehmann([1, 2, 3, 4, 5]), { low: 1, high: 5, confidence: 0.9375 })
  // Large n: the normal approximation keeps the coverage at 95%.
  const many = hodgesLehmann(Array.from({ length: 60 }, (_, i) => i))
  t.ok(many.confidence >= 0.95 && many.confidence < 0.96, `confidence ${many.confidence}`)
  t.throws(() => hodgesLehmann([]), /at least one value/)
})

t.test('the verdict rule: faster or slower when the interval leaves out 1, same within ±margin, else undecided', async (t) => {
  const r = (low, high, confidence = 0.96) => ({ low, high, confidence, few: false })
  t.equal(judge(r(1.02, 1.4)), 'faster')
  t.equal(judge(r(0.5, 0.99)), 'slower')
  t.equal(judge(r(1.01, 1.03)), 'faster', 'a small difference that is sure is a difference')
  t.equal(judge(r(0.96, 1.04)), 'same', 'within ±5%')
  t.equal(judge(r(0.94, 1.04)), 'undecided', 'holds 1 but reaches past 1/1.05')
  t.equal(judge(r(0.98, 1.2)), 'undecided')
  t.equal(judge(r(0.92, 1.09), { margin: 0.1 }), 'same', 'the margin is a parameter')
  t.equal(judge(r(1.1, 1.2, 0.9)), 'undecided', 'an interval below 95% decides nothing')
  t.equal(judge(r(0.7, 0.8), { better: 'lower' }), 'faster', 'for a cost, less is faster')
  t.equal(judge(r(1.2, 1.3), { better: 'lower' }), 'slower')
  t.equal(judge({ low: 2, high: 2, few: true }), 'few')
  t.equal(judge(null), 'few')
})

t.test('an interval is precise when high / low is under 1 + margin, and then it always has a verdict', async (t) => {
  const r = (low, high) => ({ low, high, confidence: 0.96, few: false })
  t.ok(isPrecise(r(1.3, 1.35)), '1.35/1.3 = 1.038 < 1.05')
  t.notOk(isPrecise(r(1.3, 1.4)), '1.4/1.3 = 1.077')
  t.ok(isPrecise(r(0.95, 1.04), 0.1))
  t.notOk(isPrecise({ ...r(1, 1.01), confidence: 0.9 }), 'below 95% is never precise')
  t.notOk(isPrecise(null))
  // Every precise interval, wherever its centre, is faster, slower or the same: never undecided.
  for (let centre = 0.9; centre <= 1.1; centre += 0.0025) {
    const half = Math.sqrt(1.0499)
    const interval = r(centre / half, centre * half)
    t.ok(isPrecise(interval), `[${interval.low.toFixed(4)}, ${interval.high.toFixed(4)}] is precise`)
    t.not(judge(interval), 'undecided', `and decided (${judge(interval)})`)
  }
})

t.test('the rounds an A/A pair needs: with that many rounds of its spread its interval is narrow enough, with half as many not', async (t) => {
  // Round ratios alternating 1.1 and 1/1.1: a spread of 0.0953 × √(8/7) (log), an interval far wider than ±5% over 8 rounds.
  const b = cell([1, 2, 3, 4, 5, 6, 7, 8].map((r) => (r % 2 ? 1000 * 1.1 : 1000 / 1.1)))
  const need = roundsToDecide(cell(Array(8).fill(1000)), b, 0.05)
  t.equal(need.n, 8)
  t.ok(Math.abs(need.spread - 0.0953 * Math.sqrt(8 / 7)) < 1e-3, `spread ${need.spread}`)
  // Normal noise of that spread (a true A/A), as many rounds as it says: the pair comes out the same in about 9 runs of 10
  // (its interval narrow enough in about half); with half as many rounds, in few.
  const random = mulberry32(46)
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const outcomes = (n) => {
    const runs = Array.from({ length: 200 }, () => {
      const s = hodgesLehmann(Array.from({ length: n }, () => need.spread * normal()))
      return { estimate: Math.exp(s.estimate), low: Math.exp(s.low), high: Math.exp(s.high), confidence: s.confidence, few: false }
    })
    return { same: runs.filter((r) => judge(r) === 'same').length / 200, precise: runs.filter((r) => isPrecise(r)).length / 200 }
  }
  const [enough, half] = [outcomes(need.rounds), outcomes(Math.round(need.rounds / 2))]
  t.ok(enough.same >= 0.85 && enough.precise >= 0.35 && enough.precise <= 0.75, `at ${need.rounds} rounds: ${JSON.stringify(enough)}`)
  t.ok(half.same < 0.6 && half.precise < 0.05, `at half as many: ${JSON.stringify(half)}`)
  t.equal(roundsToDecide(cell([1, 2]), cell([1, 2])), null, 'two rounds are too few to tell')
})

t.test('a comparison at its estimate: with the rounds it needs it is decided in most runs, with half as many in fewer', async (t) => {
  // a / b at e^(0.08 ± 0.12) in turn: a ratio of 1.083 whose rounds spread by 0.12 × √(8/7) (log).
  const a = cell([1, 2, 3, 4, 5, 6, 7, 8].map((r) => 1000 * Math.exp(0.08 + (r % 2 ? 0.12 : -0.12))))
  const need = roundsToDecide(a, cell(Array(8).fill(1000)), 0.05, 0.08)
  t.ok(need.rounds > 8 && need.rounds < roundsToDecide(a, cell(Array(8).fill(1000)), 0.05).rounds, `${need.rounds} rounds, fewer than at 1`)
  const random = mulberry32(47)
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const faster = (n) => {
    let hits = 0
    for (let k = 0; k < 200; k++) {
      const s = hodgesLehmann(Array.from({ length: n }, () => 0.08 + need.spread * normal()))
      if (judge({ estimate: Math.exp(s.estimate), low: Math.exp(s.low), high: Math.exp(s.high), confidence: s.confidence, few: false }) === 'faster') hits++
    }
    return hits / 200
  }
  const [enough, half] = [faster(need.rounds), faster(Math.round(need.rounds / 2))]
  t.ok(enough >= 0.92, `faster in ${enough} of runs at ${need.rounds} rounds`)
  t.ok(half <= 0.88, `in ${half} at half as many`)
})

t.test('the unpaired ratio is the Hodges–Lehmann median with the exact Mann–Whitney interval', async (t) => {
  // 3 vs 3: the interval is the min and max of the 9 ratios, covering 1 - 2/20 = 90%.
  t.same(unpairedRatio([10, 11, 12], [20, 22, 24]), { estimate: 2, low: 20 / 12, high: 24 / 10, n: [3, 3], confidence: 0.9, few: false })
  // 6 vs 6: P(U <= 5) = 19/924, so the interval is the 6th smallest to 6th largest of 36 ratios.
  const a = [100, 101, 102, 103, 104, 105]
  const b = [110, 111, 112, 113, 114, 115]
  const ratios = a.flatMap((x) => b.map((y) => y / x)).sort((p, q) => p - q)
  t.match(unpairedRatio(a, b), { low: ratios[5], high: ratios[30], confidence: 1 - 2 * 19 / 924 })
  t.equal(judge(unpairedRatio(a, b)), 'faster')
  t.match(unpairedRatio(a, a), { estimate: 1 })
  t.equal(unpairedRatio([], b), null)
  t.match(unpairedRatio([5], [6]), { estimate: 1.2, few: true })
})
