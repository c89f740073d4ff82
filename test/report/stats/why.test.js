'use strict'
// The "why" analysis (report/stats/why.js) of a synthetic profile whose figures are known by hand
// (test/fixtures/profile-folder.js): costs per request per cell, and a headline comparison's differences by round.

const t = require('tap')
const { whyAnalysis, differenceText } = require('../../../report/stats/why')
const { readProfile } = require('../../../report/data/profile')
const { writeProfile } = require('../../fixtures/profile-folder')

const A = 'sync-s1-c2'
const B = 'async-s1-c2'
const HEADLINE = { a: A, b: B, label: 'sync vs async, 1 process, 2 client processes', metric: 'opsPerSec', kind: 'store', verdict: 'faster',
  cells: [{ id: A, kind: 'sync', nServers: 1 }, { id: B, kind: 'async', nServers: 1 }] }
const VERDICTS = [HEADLINE,
  { ...HEADLINE, metric: 'serverCpuPerReqUs', label: 'server CPU, not a headline' },
  { ...HEADLINE, a: 'sync-cluster-s1-c2', b: A, label: 'sync: cluster of 1 worker vs 1 process', kind: 'model' }]
const near = (t, actual, expected, message) => t.ok(Math.abs(actual - expected) < 1e-9, `${message}: ${actual} ≈ ${expected}`)
const analyse = (t, how = {}, verdicts = VERDICTS) => {
  const dir = t.testdir()
  writeProfile(dir, { a: A, b: B, ...how })
  return whyAnalysis(readProfile(dir), verdicts)
}

t.test('each cell\'s category costs are medians per request over its rounds, with their interval and coverage', async (t) => {
  const why = analyse(t)
  t.equal(why.mode, 'perf')
  t.same(why.cells.map((c) => c.id), [A, B])
  const [a, b] = why.cells
  t.same(a.categories.app, { estimate: 40, low: 38, high: 42, confidence: 0.75, n: 3 }, 'app: 40, 42, 38 µs per request')
  t.same(b.categories.pool, { estimate: 22, low: 20, high: 24, confidence: 0.75, n: 3 })
  t.same(a.categories.pool, { estimate: 0, low: 0, high: 0, confidence: 0.75, n: 3 }, 'a category a cell never shows costs 0')
  t.same([a.sampled.estimate, a.sampled.low, a.sampled.high], [108, 104, 112], 'sampled: the categories summed')
  t.same([b.sampled.estimate, b.sampled.low, b.sampled.high], [151, 147, 151])
  t.equal(a.requests, 2700)
})

t.test('measured and sampled server CPU add up within ±10% or not', async (t) => {
  const [a, b] = analyse(t).cells
  t.same([a.serverCpu.estimate, a.serverCpu.low, a.serverCpu.high], [110, 110, 120], 'measured: the median of 120, 110, 110 µs per request')
  near(t, a.ratio, 292000 / 305000, 'sampled over measured, pooled over the rounds (the fixture\'s sums)')
  t.equal(a.adds, true)
  near(t, b.ratio, 336750 / 420000, 'b samples 20% less than it measures')
  t.equal(b.adds, false)
})

t.test('waits per request and the profiler\'s overhead per cell and overall', async (t) => {
  const why = analyse(t)
  const [a, b] = why.cells
  t.same([a.waits.syncUs.estimate, a.waits.poolBusyUs.estimate], [25, 0], 'sync blocks the event loop 25 µs per request')
  t.same([b.waits.syncUs.estimate, b.waits.poolBusyUs.estimate, b.waits.poolQueuedUs.estimate], [0, 30, 5])
  t.same([a.sleeps.estimate, b.sleeps.estimate], [2, 6], 'the threads\' sleeps per request')
  t.same([a.poolHeld, b.poolHeld.estimate], [null, 1400], 'the pool threads\' work per request, where every round sampled it (b\'s)')
  t.same([a.poolBound, b.poolBound.estimate], [null, 0.3], 'the share of its time its loop waited on a full pool: 300 of every 1,000 µs')
  near(t, a.overhead.estimate, 0.04, 'the median of 5%, 3.3% and 4%')
  t.same([a.overhead.low, a.overhead.high, a.overhead.n].map((x) => Number(x.toFixed(4))), [0.0333, 0.05, 3], 'its interval: the lowest and the highest')
  near(t, b.overhead.estimate, 0.07, 'the median of 10%, 5% and 7%')
  // Over the 6 cell rounds: 3.3%, 4%, 5%, 5%, 7%, 10%; the median 5%, [3.3%, 10%] at 1 − 2/2⁶ = 96.9%.
  t.same([why.overhead.estimate, why.overhead.low, why.overhead.high].map((x) => Number(x.toFixed(4))), [0.05, 0.0333, 0.1])
  near(t, why.overhead.confidence, 1 - 2 / 64, 'the interval over every cell\'s rounds')
})

t.test('a headline comparison: differences a − b by round, beyond noise only when the interval leaves out 0', async (t) => {
  const why = analyse(t)
  t.equal(why.comparisons.length, 1, 'only the throughput entry whose two cells were profiled')
  const [c] = why.comparisons
  t.same([c.a, c.b, c.label, c.names], [A, B, HEADLINE.label, ['sync', 'async']])
  const diff = Object.fromEntries(c.categories.map((d) => [d.id, [d.estimate, d.low, d.high, d.beyond]]))
  t.same(diff.fs, [12, 11, 13, true], 'fs: +12, +13, +11')
  t.same(diff['kernel-wake'], [-31, -31, -29, true])
  t.same(diff.pool, [-22, -24, -20, true])
  t.same(diff.app, [-1, -1, 1, false], 'app: −1, +1, −1 holds 0')
  t.same(diff.http, [-1, -2, 0, false], 'an interval that reaches 0 is within noise')
  t.same(diff.gc, [0, 0, 0, false])
  t.same(c.categories.map((d) => d.id), why.categories.map((x) => x.id), 'every category, in the profile\'s order')
  t.same([c.total.estimate, c.total.low, c.total.high, c.total.beyond], [-43, -43, -39, true], 'the total: 108 − 151, 112 − 151, 104 − 147')
  t.same([c.serverCpu.estimate, c.serverCpu.low, c.serverCpu.high], [-70, -80, -70], 'the measured server CPU too: 120 − 190, 110 − 190, 110 − 180')
})

t.test('the functions whose cost per request changed most, largest change first', async (t) => {
  const [c] = analyse(t).comparisons
  t.same(c.functions.map((f) => [f.name, f.change]), [
    ['uv_fs_read', -18], ['readFileSync node:fs:441', 15], ['futex_wake', -12],
    ['parserOnHeadersComplete node:_http_common:83', -0.5], ['sortPieces /srv/servers/lib/store-shared.js:40', -0.5]])
  t.same(c.functions[1], { name: 'readFileSync node:fs:441', category: 'fs', a: 15, b: 0, change: 15 })
})

t.test('the sides are named by what differs, and A and B in the A/A pair', async (t) => {
  const cluster = { ...HEADLINE, cells: [{ kind: 'sync-cluster', nServers: 2 }, { kind: 'sync', nServers: 1 }] }
  t.same(analyse(t, {}, [cluster]).comparisons[0].names, ['cluster of 2 workers', '1 process'])
  t.same(analyse(t, {}, [{ ...HEADLINE, aa: true }]).comparisons[0].names, ['A', 'B'])
  const { cells, ...fromJson } = HEADLINE // as verdicts.json holds it
  t.same(analyse(t, {}, [fromJson]).comparisons[0].names, [A, B])
})

t.test('a round whose row was invalid is left out, as everywhere in the report', async (t) => {
  const dir = t.testdir()
  const doc = writeProfile(dir, { a: A, b: B })
  doc.cells[A].rounds[1].problem = 'the server exited'
  const why = whyAnalysis(doc, VERDICTS)
  t.same(why.cells[0].rounds, [1, 3])
  t.same(why.cells[0].categories.app, { estimate: 39, low: 38, high: 40, confidence: 0.5, n: 2 }, '40 and 38: round 2 (42) is out')
  const fs = why.comparisons[0].categories.find((d) => d.id === 'fs')
  t.same([fs.n, fs.low, fs.high, fs.confidence], [2, 11, 12, 0.5], 'the comparison pairs the rounds both count: +12 and +11')
  t.equal(fs.beyond, false, 'two rounds on one side of 0 are no interval of a median (50%): not beyond noise')
})

t.test('no comparison without both cells profiled, and no overhead without unprofiled windows', async (t) => {
  const dir = t.testdir()
  const doc = writeProfile(dir, { a: A, b: B })
  const profile = { ...doc, cells: { [A]: doc.cells[A] } }
  t.same(whyAnalysis(profile, VERDICTS).comparisons, [])
  for (const r of profile.cells[A].rounds) r.opsPerSec = { profiled: 10, unprofiled: 0 }
  const why = whyAnalysis(profile, VERDICTS)
  t.equal(why.cells[0].overhead, null)
  t.equal(why.overhead, null)
})

t.test('a difference reads with its sign and interval', async (t) => {
  t.equal(differenceText({ estimate: 31.4, low: 27.2, high: 35 }), '+31 [27–35]')
  t.equal(differenceText({ estimate: -2.25, low: -3, high: 0.5 }), '−2.3 [−3.0 to +0.5]')
  t.equal(differenceText({ estimate: 0, low: 0, high: 0 }), '0 [0–0]')
})
