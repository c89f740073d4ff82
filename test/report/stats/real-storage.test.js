'use strict'
// report/stats/real-storage.js on recorded inputs: storage-check's agreement rule, its rows (each cold comparison beside
// the same on the delay layer), the regime axis over --cacheShare and its sentence, and each cell's cache state.

const t = require('tap')
const { agreementOf, checkRows, regimeRows, cacheRows, realStorage } = require('../../../report/stats/real-storage')
const { regimeSentence, storageMarkdown } = require('../../../report/page/storage-section')

const v = (verdict, estimate, low, high) => ({ verdict, estimate, low, high })

t.test('the agreement rule: the same verdict with overlapping intervals agrees; apart, only the direction does', async (t) => {
  t.same(agreementOf(v('slower', 0.5, 0.45, 0.55), v('slower', 0.52, 0.5, 0.6)), { agreement: 'agree', gap: 0.52 / 0.5 })
  t.same(agreementOf(v('slower', 0.5, 0.45, 0.55), v('slower', 0.3, 0.28, 0.33)).agreement, 'same direction')
  t.same(agreementOf(v('faster', 1.2, 1.1, 1.3), v('slower', 0.4, 0.35, 0.45)).agreement, 'disagree')
  t.same(agreementOf(v('same', 1.0, 0.98, 1.02), v('faster', 1.1, 1.06, 1.15)).agreement, 'disagree', 'a tie against a win')
  t.same(agreementOf(v('undecided', 0.9, 0.7, 1.1), v('slower', 0.4, 0.35, 0.45)).agreement, 'undecided')
  t.same(agreementOf(v('slower', 0.5, 0.45, 0.55), v('undecided')), { agreement: 'undecided', gap: null }, 'no estimate, no gap')
})

// A cell as report/data/cells.js makes it, with one valid row holding its storage columns.
const cell = (kind, nServers, row) => {
  const r = { storage: 'cache', cacheShare: null, ioDelay: 'off', ...row }
  return { id: `${kind}-s${nServers}-${r.storage}${r.cacheShare ?? ''}`, kind, nServers, load: 2, rows: [r], valid: [r] }
}
const store = (a, b, verdict) => ({ kind: 'store', metric: 'opsPerSec', cells: [a, b], ...verdict })

t.test('the check pairs each cold comparison with the same one on the delay layer', async (t) => {
  const cold = (kind, n) => cell(kind, n, { storage: 'cold', cacheShare: 0, ioDelay: null })
  const delay = (kind, n) => cell(kind, n, { storage: 'delay', ioDelay: 81 })
  const verdicts = [
    store(cold('sync', 1), cold('async', 1), v('faster', 1.1, 1.05, 1.15)),
    store(delay('sync', 1), delay('async', 1), v('slower', 0.6, 0.55, 0.65)),
    store(cold('sync-cluster', 2), cold('async-cluster', 2), v('faster', 1.2, 1.15, 1.25)),
    store(delay('sync-cluster', 2), delay('async-cluster', 2), v('faster', 1.22, 1.18, 1.3)),
    { ...store(delay('sync', 1), delay('async', 1), v('faster', 1, 1, 1)), metric: 'serverCpuPerReqUs' }, // not throughput
    store(cell('sync', 1, {}), cell('async', 1, {}), v('faster', 1.3, 1.2, 1.4)) // the page cache: no part of the check
  ]
  const rows = checkRows(verdicts)
  t.same(rows.map((r) => [r.label, r.agreement, r.delayUs]),
    [['sync vs async, 1 process', 'disagree', 81], ['sync vs async, cluster of 2 workers', 'agree', 81]])
  t.equal(rows[1].gap, 1.22 / 1.2)
  const md = storageMarkdown({ device: null, check: rows, regime: [], cache: [] }, { command: 'storage-check', argv: ['storage-check'], cpus: 2,
    serverRuntimes: ['node-v20.20.2'], startedAt: '2026-11-26T00:00:00Z' })
  t.match(md, '| sync vs async, 1 process | 1.10× [1.05–1.15] faster | 0.60× [0.55–0.65] slower at 81 µs | 0.55× | disagree: the verdicts differ |')
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
  t.same(cacheRows([cold, cached, cell('sync', 1, { storage: 'delay', ioDelay: 1000 })]).map((c) => [c.id, c.storage, c.after, c.deviceBytesPerGet]),
    [[cold.id, 'cold', 1.7, 16414], [cached.id, 'cache', 100, 0]])
  t.equal(realStorage({}, [cached], []), null, 'a page-cache folder alone has no real-storage section')
  t.ok(realStorage({}, [cold], []), 'a cold cell has')
})
