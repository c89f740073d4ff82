'use strict'
// report/stats/pool-model.js: what the pool, the cores and the event loop allow, per cell, from figures whose model
// values are worked out by hand here; what the model expects of each size against 4, and the knee.

const t = require('tap')
const { poolModel, predict, expectation, knee } = require('../../../report/stats/pool-model')

const NODE = 'node-v20.20.2'
// A summarised cell (report/stats/cell-stats.js) of one row's figures.
const cell = (id, kind, nServers, row, { ops, busy }) => ({
  id, kind, nServers, valid: [{ runtime: NODE, uvUseIoUring: 0, ...row }], telemetry: { meanUtilization: busy },
  ci: { opsPerSec: { median: ops, low: ops * 0.95, high: ops * 1.05 } }
})
const SPLIT = { serverCpus: '0', clientCpus: '1' }
const SHARED = { serverCpus: '0,1', clientCpus: '0,1' }
const D1 = { storage: 'delay', ioDelay: '1000' }
const cells = [
  cell('a4', 'async', 1, { uvThreadpoolSize: 4, ...D1, ...SPLIT, serverCpuPerReqUs: 250, clientCpuPerReqUs: 60 }, { ops: 2500, busy: 0.5 }),
  cell('a8', 'async', 1, { uvThreadpoolSize: 8, ...D1, ...SPLIT, serverCpuPerReqUs: 250, clientCpuPerReqUs: 60 }, { ops: 3800, busy: 0.9 }),
  cell('off4', 'async', 1, { uvThreadpoolSize: 4, storage: 'cache', ioDelay: 'off', ...SHARED, serverCpuPerReqUs: 300, clientCpuPerReqUs: 50,
    storageCpuPerReqUs: 0 },
  { ops: 3000, busy: 1 }),
  cell('off64', 'async', 1, { uvThreadpoolSize: 64, storage: 'cache', ioDelay: 'off', ...SHARED, serverCpuPerReqUs: 320, clientCpuPerReqUs: 50,
    storageCpuPerReqUs: 0 }, { ops: 2900, busy: 1 }),
  cell('iou', 'async', 1, { uvThreadpoolSize: 4, uvUseIoUring: 1, ...D1, ...SPLIT, serverCpuPerReqUs: 300 }, { ops: 3000, busy: 0.95 }),
  cell('s4', 'sync', 1, { uvThreadpoolSize: 4, ...D1, ...SPLIT, serverCpuPerReqUs: 300 }, { ops: 800, busy: 1 })
]
const env = {
  cpus: 2,
  threadpool: {
    hold: [{ runtime: NODE, storage: 'delay', ioDelay: 1000, usPerCall: 1200 }, { runtime: NODE, storage: 'cache', ioDelay: 'off', usPerCall: 15 }],
    ioUring: [{ runtime: NODE, used: true, threadsStarted: 1 }]
  }
}
const profiled = (id) => ({ id, waits: { poolCalls: { estimate: 1.2 }, poolQueuedUs: { estimate: 60 } }, sleeps: { estimate: 5 },
  categories: { 'kernel-wake': { estimate: 20 } } })
const why = { cells: ['a4', 'a8', 'off4', 'off64', 'iou'].map(profiled) }
const verdict = (a, verdict, estimate, low, high) => ({ a, b: 'a4', kind: 'pool', metric: 'opsPerSec', verdict, estimate, low, high, margin: 0.05,
  label: a })
const verdicts = [verdict('a8', 'faster', 1.5, 1.4, 1.6), verdict('iou', 'undecided', 1.2, 0.9, 1.3),
  { ...verdict('off64', 'undecided', 0.97, 0.9, 1.04), b: 'off4' }]

t.test('predict: the smallest of what the pool, the cores and the event loop allow', async (t) => {
  t.same(predict({ threads: 4, callsPerRequest: 1.25, holdUs: 1000, cores: 2, cpuPerRequestUs: 400, loopAllows: 4000 }),
    { pool: 3200, cores: 5000, loop: 4000, predicted: 3200, holdUs: 1000, limit: 'pool' })
  t.same(predict({ threads: 64, callsPerRequest: 1.25, holdUs: 1000, cores: 1, cpuPerRequestUs: 400, loopAllows: 4000 }).limit, 'cores')
  t.same(predict({ threads: 4, ioUring: true, cores: 2, cpuPerRequestUs: 400, loopAllows: 3000 }),
    { pool: Infinity, cores: 5000, loop: 3000, predicted: 3000, holdUs: null, limit: 'loop' })
  t.equal(predict({ threads: 4, callsPerRequest: null, holdUs: 1000, cores: 2, cpuPerRequestUs: 400 }).predicted, null, 'no profiled calls: no model')
  // A thread held 1,000 µs a request plus 500 × ρ ÷ (1 − ρ), ρ = rate × 400 µs ÷ 2 cores: at a rate X = 5,000ρ the 4 threads
  // allow 4e6 ÷ (1,000 + 500ρ ÷ (1 − ρ)). By hand: 5,000ρ (1,000 + 500ρ ÷ (1 − ρ)) = 4e6 gives 5ρ − 5ρ² + 2.5ρ² = 4 − 4ρ,
  // 2.5ρ² − 9ρ + 4 = 0, ρ = (9 − √41) ÷ 5 = 0.51938: 2,596.9/s, short of the loop's 4,000. With 8 threads, 2.5ρ² − 13ρ + 8 = 0,
  // ρ = (13 − √89) ÷ 5 = 0.71321: 3,566/s, more than 5% faster.
  const crowded = predict({ threads: 4, callsPerRequest: 1, holdUs: 1000, growthUs: 500, cores: 2, cpuPerRequestUs: 400, loopAllows: 4000 })
  t.equal(Math.round(crowded.predicted * 10) / 10, 2596.9, 'threads held longer as the cores fill: the rate where the pool meets its own load')
  t.equal(Math.round(crowded.pool * 10) / 10, 2596.9, 'the pool allows, at that load, what it carries')
  t.equal(crowded.limit, 'pool', 'twice the threads would be faster by more than 5%')
})

t.test('expectation: faster beyond the margin; slower only where the size\'s pool is the limit; else the same or slower', async (t) => {
  t.same([expectation(1.1, 0.05, 'loop'), expectation(0.9, 0.05, 'pool'), expectation(0.9, 0.05, 'cores'), expectation(0.9, 0.05, 'loop'),
    expectation(1.02, 0.05, 'pool')], ['faster', 'slower', 'same', 'same', 'same'])
})

t.test('poolModel: each size from its own CPU and its reference\'s costs, beside the measurement, and what it expects against 4', async (t) => {
  const pool = poolModel({ env }, cells, verdicts, why)
  const by = Object.fromEntries(pool.cells.map((m) => [m.id, m]))
  // a4, the reference: its pool allows 4 / (1.2 × 1200 µs) = 2,777.8/s; its core 1 / 250 µs = 4,000/s (split: the client's
  // CPU is elsewhere); its loop, half busy at 2,500/s, 200 µs a request: 5,000/s.
  t.equal(Math.round(by.a4.model.pool * 10) / 10, 2777.8)
  t.equal(by.a4.model.cores, 4000)
  t.equal(by.a4.model.loop, 5000)
  t.equal(by.a4.model.limit, 'pool')
  // a8 from a4's costs (not its own 0.9-busy loop): 8 threads allow 5,555.6/s, past the core's 4,000.
  t.same([by.a8.reference, by.a8.model.loop, by.a8.model.limit, by.a8.fit], ['a4', 5000, 'cores', 0.95])
  // off4 shares both cores with the client: 2 / (300 + 50) µs = 5,714.3/s; its loop, busy all the time at 3,000/s, 3,000/s.
  t.equal(Math.round(by.off4.model.cores * 10) / 10, 5714.3)
  t.equal(by.off4.model.limit, 'loop')
  t.same([by.off64.reference, by.off64.model.predicted], ['off4', 3000], 'off64 from off4\'s costs')
  // iou's own 300 µs of CPU a request on its one core: 3,333.3/s, not a4's 4,000.
  t.same([by.iou.reference, by.iou.model.pool, Math.round(by.iou.model.cores * 10) / 10], ['a4', Infinity, 3333.3],
    'io_uring where the probe saw libuv use it: no pool limit; the cores at the cell\'s own CPU per request')
  t.equal(by.s4.model, null, 'sync hands the pool nothing: no model')
  t.equal(by.a4.queuedUsPerCall, 50, 'queue wait per call: 60 µs per request over 1.2 calls')
  t.same(pool.comparisons.map((c) => [c.a, c.expected, c.agrees]), [['a8', 'faster', true], ['iou', 'faster', false], ['off64', 'same', true]],
    'the same expected: an interval whose high is within the margin agrees, undecided or not')
  t.same([pool.fit.n, Math.round(pool.fit.all * 1000) / 1000], [3, 0.05],
    'fitted over a8, off64 and iou, not the references: |0.95 − 1|, |0.967 − 1|, |0.9 − 1|')
  t.equal(knee(by.a4), 6, '5 threads allow 3,472/s, 10 the core\'s 4,000 (15% more); 6 allow 4,167/s, past the core\'s 4,000: 6')
  t.equal(knee(by.off4), 1, 'a plain folder: one thread keeps up with the loop')
})

t.test('poolModel: threads are held longer as the cores fill, by as much as the reference\'s profiled round saw', async (t) => {
  // a4's pool threads worked 2,400 µs a request: over its 1.2 calls 2,000 µs a call, 800 more than the probe's 1,200, at
  // its core's load ρ = 2,500/s × 250 µs = 0.625: 960 µs a request ÷ (0.625 ÷ 0.375) = 576 µs per unit of ρ ÷ (1 − ρ). Its own
  // model, X = 4,000ρ (its core allows 4,000/s): 4,000ρ (1,440 + 576ρ ÷ (1 − ρ)) = 4e6, 864ρ² − 2,440ρ + 1,000 = 0,
  // ρ = (2,440 − √2,497,600) ÷ 1,728 = 0.49747: 1,989.9/s; a8's 8 threads: 864ρ² − 3,440ρ + 2,000 = 0, ρ = 0.70690: 2,827.6/s.
  const loaded = { cells: why.cells.map((c) => (c.id === 'a4' ? { ...c, poolHeld: { estimate: 2400 } } : c)) }
  const by = Object.fromEntries(poolModel({ env }, cells, verdicts, loaded).cells.map((m) => [m.id, m]))
  const r = (x) => Math.round(x * 10) / 10
  t.same([by.a4.loadedHoldUs, r(by.a4.model.predicted), r(by.a4.model.pool), by.a4.model.limit], [2000, 1989.9, 1989.9, 'pool'], 'the reference\'s own')
  t.same([by.a8.loadedHoldUs, r(by.a8.model.predicted), by.a8.model.limit], [null, 2827.6, 'pool'], 'a8 from a4\'s growth under load')
  t.equal(Math.round(by.a4.model.holdUs), 1675, 'the hold a call at the modelled load: 1,200 + 576 ÷ 1.2 × 0.49747 ÷ 0.50253 µs')
  t.same([by.off4.loadedHoldUs, by.off4.model.predicted], [null, 3000], 'no sample under load: no growth, the loop\'s 3,000')
})

t.test('poolModel: where the reference\'s loop waited on its full pool, more threads shorten those stretches', async (t) => {
  // a4's loop waited on its 4 busy threads 30% of its time at 2,500/s: 8 threads halve those stretches, 2,500 ÷ (0.7 + 0.15)
  // = 2,941.2/s, under a8's pool (5,555.6), core (4,000) and loop (5,000); 16 would allow 2,500 ÷ (0.7 + 0.075) = 3,225.8,
  // more than 5% faster: the pool is a8's limit. a4 itself: 2,500 (its own rate), under its pool's 2,777.8.
  const bound = { cells: why.cells.map((c) => (c.id === 'a4' ? { ...c, poolBound: { estimate: 0.3 } } : c)) }
  const pool = poolModel({ env }, cells, verdicts, bound)
  const by = Object.fromEntries(pool.cells.map((m) => [m.id, m]))
  const r = (x) => Math.round(x * 10) / 10
  t.same([by.a4.poolBound, r(by.a4.model.predicted), by.a4.model.limit], [0.3, 2500, 'pool'], 'the reference at its own rate')
  t.same([r(by.a8.model.predicted), by.a8.model.limit], [2941.2, 'pool'], 'a8: its stretches halved')
  t.same([r(by.iou.model.predicted), by.iou.model.limit], [3333.3, 'cores'], 'io_uring has no pool: its core\'s')
  t.same(pool.comparisons.find((c) => c.a === 'a8').expected, 'faster', '2,941.2 ÷ 2,500 = 1.18')
  t.equal(r(by.a8.model.loop), 3571.4, 'the event loop: no more than a4\'s rate with its waits on the pool gone, 2,500 ÷ 0.7')
  // Waiting on its pool 5% of its time, a4 leaves 8 threads 2,500 ÷ (0.95 + 0.025) = 2,564.1/s, and 16 only 2,597.4 (+1.3%):
  // the rest of its time is the limit, its loop's.
  const little = { cells: why.cells.map((c) => (c.id === 'a4' ? { ...c, poolBound: { estimate: 0.05 } } : c)) }
  const small = poolModel({ env }, cells, verdicts, little)
  const a8 = small.cells.find((m) => m.id === 'a8')
  t.same([r(a8.model.predicted), a8.model.limit], [2564.1, 'loop'])
  t.same(small.comparisons.find((c) => c.a === 'a8').expected, 'same', '2,564.1 ÷ 2,500 = 1.03: the same or slower')
})

t.test('poolModel: nothing for a folder whose cells share one pool size, and no model where a probe is missing', async (t) => {
  t.equal(poolModel({ env }, cells.filter((c) => c.valid[0].uvThreadpoolSize === 4), [], why), null)
  const pool = poolModel({ env: { cpus: 2 } }, cells, verdicts, why)
  t.ok(pool.cells.filter((m) => m.kind === 'async' && !m.ioUring).every((m) => m.model.predicted === null), 'no hold time, no pool limit, no model')
})

t.test('threadpool.md: a row per cell, the model beside each async measurement, an interval on every ratio, the findings', async (t) => {
  const { threadpoolMarkdown } = require('../../../report/page/threadpool-section')
  const pool = poolModel({ env }, cells, verdicts, why)
  const md = threadpoolMarkdown(pool, { ...env, argv: ['threadpool'], serverRuntimes: [NODE], loadAverage: [0.5], startedAt: 'then' })
  const rows = md.split('\n').filter((l) => /^\| (1 ms|plain folder) \|/.test(l))
  t.equal(rows.length, cells.length, 'every cell')
  const cols = (row) => row.split(' | ')
  const a8 = rows.find((r) => cols(r)[4] === '8')
  t.match(a8, '| 3,800 [3,610–3,990] | 5,556 / 4,000 / 5,000 | 4,000 (cores) | 0.95 | 1.50× [1.40–1.60] faster | faster |')
  t.match(rows.find((r) => cols(r)[4] === 'io_uring'), '| 1.20× [0.90–1.30] undecided | faster ✗ |', 'a verdict the model did not expect is marked')
  t.match(rows.find((r) => cols(r)[3] === 'sync'), '| 800 [760–840] | – | – | – |', 'sync: measured, no model')
  t.match(md, 'Threads per process before the pool stops being the limit, by the model (the fewest where twice as many would not be faster ' +
    'by more than the margin, from each pool-4 cell; the range over processes and cores): plain folder 1, 1 ms 6.')
  t.match(md, 'the verdict is what the model expected in 2 of 3 comparisons; at 1 ms storage in 1 of 2')
  t.match(md, '- Not what the model expected: iou: 1.20× [0.90–1.30] undecided (expected faster). At pool 4 there, what each allows: ' +
    'pool 2,778 ops/s, cores 4,000 (+44%), event loop 5,000 (+80%); a call was out 50 µs beyond the pool\'s size (waiting for a thread, or ' +
    'for the event loop between its trips and before its callback).\n- Threads',
  'the miss at the slowest storage, with its reference\'s limits; none for the plain folder, which agrees')
  const COLD = { storage: 'cold', ioDelay: 'off' }
  const cold = cells.map((c) => (c.valid[0].storage === 'delay' ? { ...c, valid: [{ ...c.valid[0], ...COLD }] } : c))
  const coldEnv = { ...env, threadpool: { ...env.threadpool, hold: [...env.threadpool.hold, { runtime: NODE, ...COLD, usPerCall: 1200 }] } }
  const coldMd = threadpoolMarkdown(poolModel({ env: coldEnv }, cold, verdicts, why), { ...coldEnv, argv: ['threadpool'], serverRuntimes: [NODE] })
  t.match(coldMd, 'on the real disk, cold in 1 of 2', 'a cold disk is the slowest storage, named as such')
  t.match(coldMd, '- Not what the model expected: iou:', 'and its misses are the ones said')
  t.match(md, 'The size Node\'s pull request would pick (uv_available_parallelism(), at least 4): 4 on 1 core, 4 on 2 cores.')
})
