'use strict'
// report/stats/real-storage.js on recorded inputs: storage-check's delay/real taken within each round and its agreement
// rule, its rows (each cold comparison beside the same on the delay layer), the regime axis over --cacheShare and its
// sentence, and each cell's cache state.

const t = require('tap')
const { agreementOf, delayOverReal, checkRows, regimeRows, cacheRows, realStorage } = require('../../../report/stats/real-storage')
const { regimeSentence, storageMarkdown } = require('../../../report/page/storage-section')

const v = (verdict, estimate, low, high) => ({ verdict, estimate, low, high })

t.test('the agreement rule is the verdict on delay/real: the same agrees; higher or lower, only the direction may', async (t) => {
  t.equal(agreementOf(v('slower'), v('slower'), v('same')), 'agree')
  t.equal(agreementOf(v('faster'), v('slower'), v('same')), 'agree', 'delay/real within the margin, whatever the two words')
  t.equal(agreementOf(v('slower'), v('slower'), v('slower')), 'same direction')
  t.equal(agreementOf(v('faster'), v('slower'), v('slower')), 'disagree')
  t.equal(agreementOf(v('undecided'), v('undecided'), v('faster')), 'disagree', 'two undecided verdicts are no direction')
  t.equal(agreementOf(v('slower'), v('slower'), v('undecided')), 'undecided')
})

// A cell as report/data/cells.js makes it, its valid rows one per round with its storage columns and ops/s.
const cell = (kind, nServers, row, ops = [1000]) => {
  const r = { storage: 'cache', cacheShare: null, ioDelay: 'off', ioDelayQd4: '', runtime: 'node-v20.20.2', fsync: 'none', ...row }
  const rows = ops.map((opsPerSec, i) => ({ ...r, repeat: i + 1, opsPerSec }))
  return { id: `${kind}-s${nServers}-${r.storage}${r.cacheShare ?? ''}-${r.ioDelay}-${r.runtime}`, kind, nServers, load: 2, rows, valid: rows }
}
const store = (a, b, verdict) => ({ kind: 'store', metric: 'opsPerSec', margin: 0.05, cells: [a, b], ...verdict })
const cold = (kind, n, ops, row) => cell(kind, n, { storage: 'cold', cacheShare: 0, ioDelay: '', ...row }, ops)
const delay = (kind, n, ops, row) => cell(kind, n, { storage: 'delay', ioDelay: '81', ioDelayQd4: '120', ...row }, ops)
// Six rounds of a machine whose speed moves 2× from round to round: what the cells of a round share cancels in its ratios.
const SPEED = [1, 2, 1.5, 0.8, 1.2, 2.4]
const ops = (scale, wobble = []) => SPEED.map((s, i) => 1000 * s * scale * (wobble[i] ?? 1))
// Round to round, the layer's ratio within 3% of the disk's, either side.
const WOBBLE = [1.02, 0.98, 1.01, 0.99, 1.03, 0.97]

t.test('delay/real is taken within each round, over the rounds all four cells have, and judged by the comparisons\' rule', async (t) => {
  const real = store(cold('sync', 1, ops(0.9)), cold('async', 1, ops(1)), v('slower', 0.9, 0.88, 0.92))
  const stand = store(delay('sync', 1, ops(0.7)), delay('async', 1, ops(1)), v('slower', 0.7, 0.68, 0.72))
  const gap = delayOverReal(real, stand)
  t.match(gap, { n: 6, verdict: 'slower' })
  t.ok(Math.abs(gap.estimate - 0.7 / 0.9) < 1e-9 && Math.abs(gap.high - 0.7 / 0.9) < 1e-9, `${gap.estimate} [${gap.low}–${gap.high}]`)
  // The async cell on the layer loses round 3 (invalid) and its rounds 5 and 6 swap: unpaired, the speeds would not cancel.
  const shuffled = delay('async', 1, [1000, 2000, 1500, 800, 2400, 1200].map((x) => x * 0.7 / 0.9))
  shuffled.valid = shuffled.valid.filter((r) => r.repeat !== 3)
  const paired = delayOverReal(real, store(delay('sync', 1, ops(0.7)), shuffled, {}))
  t.equal(paired.n, 5, 'only the rounds every cell has')
  t.ok(paired.low < 0.6 && paired.high > 1.5, `rounds 5 and 6 off by 2×: ${paired.low}–${paired.high}`)
  t.equal(paired.verdict, 'undecided')
  const within = store(delay('sync', 1, ops(0.9, WOBBLE)), delay('async', 1, ops(1)), v('slower', 0.9, 0.88, 0.92))
  t.equal(delayOverReal(real, within).verdict, 'same', 'within 3% either side in every round: within the 5% margin')
  t.equal(delayOverReal(real, within, 0.01).verdict, 'undecided', 'and not within a 1% margin')
  const above = store(delay('sync', 1, ops(0.9 * 1.02)), delay('async', 1, ops(1)), v('slower', 0.92, 0.9, 0.94))
  t.equal(delayOverReal(real, above).verdict, 'faster', '2% above in every round: the layer\'s ratio is higher, if by less than the margin')
  t.equal(delayOverReal(real, store(delay('sync', 1, [700]), delay('async', 1, [1000]), {})).verdict, 'undecided', 'one round in common: no interval')
})

t.test('the check pairs each cold comparison with the same one on the delay layer: runtime, settings and delay alike', async (t) => {
  const verdicts = [
    store(cold('sync', 1, ops(0.9)), cold('async', 1, ops(1)), v('faster', 1.1, 1.05, 1.15)),
    store(delay('sync', 1, ops(0.6)), delay('async', 1, ops(1)), v('slower', 0.6, 0.55, 0.65)),
    store(cold('sync-cluster', 2, ops(1.2)), cold('async-cluster', 2, ops(1)), v('faster', 1.2, 1.15, 1.25)),
    store(delay('sync-cluster', 2, ops(1.2, WOBBLE)), delay('async-cluster', 2, ops(1)), v('faster', 1.22, 1.18, 1.3)),
    { ...store(delay('sync', 1, ops(1)), delay('async', 1, ops(1)), v('faster', 1, 1, 1)), metric: 'serverCpuPerReqUs' }, // not throughput
    store(cell('sync', 1, {}, ops(1.3)), cell('async', 1, {}, ops(1)), v('faster', 1.3, 1.2, 1.4)) // the page cache: no part of the check
  ]
  const rows = checkRows(verdicts)
  t.same(rows.map((r) => [r.label, r.agreement, r.delayUs, r.qd4Us, r.gap.verdict]),
    [['sync vs async, 1 process', 'disagree', 81, 120, 'slower'], ['sync vs async, cluster of 2 workers', 'agree', 81, 120, 'same']])
  t.ok(rows[1].gap.low < 1 && rows[1].gap.high > 1 && rows[1].gap.n === 6, 'the cluster\'s delay/real holds 1, within the margin')
  const md = storageMarkdown({ device: null, check: rows, regime: [], cache: [] }, { command: 'storage-check', argv: ['storage-check'], cpus: 2,
    serverRuntimes: ['node-v20.20.2'], startedAt: '2026-11-26T00:00:00Z' })
  t.match(md, '| sync vs async, 1 process | 1.10× [1.05–1.15] faster | 0.60× [0.55–0.65] slower at 81 µs (120 µs at queue depth 4) | ' +
    '0.67× [0.67–0.67] lower | disagree: delay/real is not the same, and the verdicts differ |')

  // Each side alike but the one: the runtime, a setting, or a second delay (a row of its own).
  const [coldSync, coldAsync] = [cold('sync', 1, ops(0.9)), cold('async', 1, ops(1))]
  const real = store(coldSync, coldAsync, v('slower', 0.9, 0.88, 0.92))
  const on = (row) => store(delay('sync', 1, ops(0.9, WOBBLE), row), delay('async', 1, ops(1), row), v('slower', 0.9, 0.88, 0.92))
  t.same(checkRows([real, on({ runtime: 'bun-1.4.5' })]), [], 'Bun on the layer is no stand-in for Node on the disk')
  t.same(checkRows([real, on({ fsync: 'each' })]), [], 'nor a server that flushes each PUT for one that does not')
  const asyncPromise = store(coldSync, { ...coldAsync, api: 'promise' }, v('slower', 0.9, 0.88, 0.92))
  t.same(checkRows([asyncPromise, on({})]), [], 'nor async on callbacks for async on promises')
  t.same(checkRows([real, on({}), on({ ioDelay: '1000', ioDelayQd4: 'off' })]).map((r) => [r.delayUs, r.qd4Us, r.agreement]),
    [[81, 120, 'agree'], [1000, null, 'agree']], 'a row per delay')
})

t.test('the regime axis: the largest share up to which async is clearly faster at every share', async (t) => {
  const at = (share, verdict) => store(cell('sync', 1, { storage: 'cold', cacheShare: share }),
    cell('async', 1, { storage: 'cold', cacheShare: share, deviceBytesPerGet: 16384 * (100 - share) / 100 }), verdict)
  const crossing = regimeRows([at(100, v('faster', 1.4, 1.3, 1.5)), at(0, v('slower', 0.5, 0.45, 0.55)), at(10, v('slower', 0.6, 0.55, 0.65)),
    at(50, v('same', 1, 0.97, 1.03))])[0]
  t.same(crossing.points.map((p) => p.share), [0, 10, 50, 100], 'by share')
  t.equal(crossing.upTo, 10)
  t.equal(crossing.next.share, 50)
  t.equal(crossing.points[0].deviceBytesPerGet, 16384, 'what the async server read per GET')
  t.equal(regimeSentence(crossing), 'sync vs async, 1 process: async wins once at most 10% of the data set is cached (sync/async ' +
    '0%: 0.50× [0.45–0.55] slower, 16.0 KiB read; 10%: 0.60× [0.55–0.65] slower, 14.4 KiB read; 50%: 1.00× [0.97–1.03] same, 8.0 KiB read; ' +
    '100%: 1.40× [1.30–1.50] faster, 0.0 KiB read).')
  const never = regimeRows([at(0, v('undecided', 0.9, 0.7, 1.1)), at(50, v('faster', 1.2, 1.1, 1.3))])[0]
  t.equal(never.upTo, null)
  t.match(regimeSentence(never), /async is not clearly faster at any share measured, down to 0% cached/)
  const always = regimeRows([at(0, v('slower', 0.5, 0.45, 0.55)), at(100, v('slower', 0.9, 0.85, 0.95))])[0]
  t.equal(always.upTo, 100)
  t.match(regimeSentence(always), /async is clearly faster at every share measured, up to 100% cached/)
  t.same(regimeRows([at(0, v('slower', 0.5, 0.45, 0.55))]), [], 'one share is no axis')
})

t.test('each plain-folder cell\'s cache state, and nothing to say for a folder without one', async (t) => {
  const cold = cell('sync', 1, { storage: 'cold', cacheShare: 0, residencyBefore: 0, residencyAfter: 1.7, deviceBytesPerGet: 16414, cacheLimitBytes: 8e7 })
  const cached = cell('async', 1, { residencyBefore: 100, residencyAfter: 100, deviceBytesPerGet: 0 })
  const delayed = cell('sync', 1, { storage: 'delay', ioDelay: 1000, residencyBefore: 100, residencyAfter: 99.8, deviceBytesPerGet: 0 })
  const unrecorded = cell('sync', 1, { storage: 'delay', ioDelay: 1000 })
  t.same(cacheRows([cold, cached, delayed, unrecorded]).map((c) => [c.id, c.storage, c.before, c.after, c.deviceBytesPerGet]),
    [[cold.id, 'cold', 0, 1.7, 16414], [cached.id, 'cache', 100, 100, 0], [delayed.id, 'delay', 100, 99.8, 0]], 'a delay cell\'s backing folder too')
  const md = storageMarkdown({ device: null, check: [], regime: [], cache: cacheRows([cold, cached, delayed]) }, { command: 'storage-check',
    argv: ['storage-check'], cpus: 2, serverRuntimes: ['node-v20.20.2'], startedAt: '2026-11-26T00:00:00Z' })
  t.match(md, `| ${delayed.id} | delay | 100.0% | 99.8% | 0.0 KiB |`, 'storage.md says the delay cell\'s residency')
  t.notMatch(md, cached.id, 'and leaves the page-cache cells to the report')
  t.equal(realStorage({}, [cached], []), null, 'a page-cache folder alone has no real-storage section')
  t.ok(realStorage({}, [cold], []), 'a cold cell has')
})
