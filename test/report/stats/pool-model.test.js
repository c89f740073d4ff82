'use strict'
// report/stats/pool-model.js: what the pool, the cores and the event loop allow, per cell, from figures whose model
// values are worked out by hand here; what the model expects of each size against 4, and the knee.

const t = require('tap')
const { poolModel, predict, knee } = require('../../../report/stats/pool-model')

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
    { pool: 3200, cores: 5000, loop: 4000, predicted: 3200, limit: 'pool' })
  t.same(predict({ threads: 64, callsPerRequest: 1.25, holdUs: 1000, cores: 1, cpuPerRequestUs: 400, loopAllows: 4000 }).limit, 'cores')
  t.same(predict({ threads: 4, ioUring: true, cores: 2, cpuPerRequestUs: 400, loopAllows: 3000 }),
    { pool: Infinity, cores: 5000, loop: 3000, predicted: 3000, limit: 'loop' })
  t.equal(predict({ threads: 4, callsPerRequest: null, holdUs: 1000, cores: 2, cpuPerRequestUs: 400 }).predicted, null, 'no profiled calls: no model')
})

t.test('poolModel: each size predicted from its reference\'s costs, beside the measurement, and what it expects against 4', async (t) => {
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
  t.same([by.iou.reference, by.iou.model.pool, by.iou.model.cores], ['a4', Infinity, 4000], 'io_uring where the probe saw libuv use it: no pool limit')
  t.equal(by.s4.model, null, 'sync hands the pool nothing: no model')
  t.equal(by.a4.queuedUsPerCall, 50, 'queue wait per call: 60 µs per request over 1.2 calls')
  t.same(pool.comparisons.map((c) => [c.a, c.expected, c.agrees]), [['a8', 'faster', true], ['iou', 'faster', false], ['off64', 'same', true]],
    'the same expected: an interval whose high is within the margin agrees, undecided or not')
  t.same([pool.fit.n, Math.round(pool.fit.all * 1000) / 1000], [3, 0.05],
    'fitted over a8, off64 and iou, not the references: |0.95 − 1|, |0.967 − 1|, |0.75 − 1|')
  t.equal(knee(by.a4), 6, 'the core\'s 4,000/s need 4 × 4,000 / 2,777.8 = 5.76 threads: 6')
  t.equal(knee(by.off4), 1, 'a plain folder: one thread keeps up with the loop')
})

t.test('poolModel: the time a call holds a thread is the reference\'s under load, where its profiled round sampled it', async (t) => {
  // a4's pool threads worked 2,400 µs a request over its 1.2 calls: 2,000 µs a call, not the probe's 1,200. Its pool then
  // allows 4 / (1.2 × 2,000 µs) = 1,666.7/s, under its 2,500 measured (a model, not the measurement); a8's 8 threads 3,333.3/s.
  const loaded = { cells: why.cells.map((c) => (c.id === 'a4' ? { ...c, poolHeld: { estimate: 2400 } } : c)) }
  const by = Object.fromEntries(poolModel({ env }, cells, verdicts, loaded).cells.map((m) => [m.id, m]))
  t.same([by.a4.loadedHoldUs, by.a4.hold, Math.round(by.a4.model.pool * 10) / 10], [2000, 2000, 1666.7], 'the reference\'s own')
  t.same([by.a8.loadedHoldUs, by.a8.hold, Math.round(by.a8.model.pool * 10) / 10, by.a8.model.limit], [null, 2000, 3333.3, 'pool'],
    'a8 from a4\'s hold under load')
  t.same([by.off4.loadedHoldUs, by.off4.hold], [null, 15], 'no sample under load: the probe\'s')
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
  t.match(md, 'Threads per process before the pool stops being the limit, by the model (what the cores and the event loop allow × pool calls per ' +
    'request × time per call, from each pool-4 cell; the range over processes and cores): plain folder 1, 1 ms 6.')
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
