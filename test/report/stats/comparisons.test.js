'use strict'
// report/stats/comparisons.js: which cells are compared. The A/A pair is a configuration's own cell and its
// copy B; folders made before 2026-11-24 have two copies, A and B.

const t = require('tap')
const { comparisons } = require('../../../report/stats/comparisons')

const ROUNDS = [1, 2, 3, 4, 5, 6, 7, 8]
// A cell as report/data/cells.js groups it, with `speed` ops/s in every round (B 1% off in alternate rounds).
const cell = (id, kind, nServers, speed, aa = '') => ({
  id, kind, nServers, load: 2, variant: '', api: kind.startsWith('async') ? 'callback' : '', aa,
  valid: ROUNDS.map((repeat) => ({ repeat, opsPerSec: speed * (aa === 'B' && repeat % 2 ? 1.01 : 1) }))
})
const pairs = (cells) => comparisons(cells, { metrics: ['opsPerSec'] }).map((e) => [e.a, e.b, e.kind, e.verdict, e.aa ?? false])

t.test('the A/A copy is paired with its configuration\'s cell, which keeps its own comparisons', async (t) => {
  const cells = [cell('sync-s1-c2', 'sync', 1, 3000), cell('async-s1-c2', 'async', 1, 2000), cell('sync-s1-c2-B', 'sync', 1, 3000, 'B')]
  t.same(pairs(cells), [
    ['sync-s1-c2', 'async-s1-c2', 'store', 'faster', false],
    ['sync-s1-c2', 'sync-s1-c2-B', 'aa', 'same', true]
  ])
})

t.test('a folder of the earlier form pairs its two copies, A over B', async (t) => {
  const cells = [cell('sync-s1-c2', 'sync', 1, 3000), cell('async-s1-c2', 'async', 1, 2000),
    cell('sync-s1-c2-A', 'sync', 1, 3000, 'A'), cell('sync-s1-c2-B', 'sync', 1, 3000, 'B')]
  t.same(pairs(cells), [
    ['sync-s1-c2', 'async-s1-c2', 'store', 'faster', false],
    ['sync-s1-c2-A', 'sync-s1-c2-B', 'aa', 'same', true]
  ])
})

t.test('a copy whose configuration has no cell of the same load and kind is compared with nothing', async (t) => {
  const cells = [cell('sync-s1-c2', 'sync', 1, 3000), { ...cell('sync-s1-c4-B', 'sync', 1, 3000, 'B'), load: 4 },
    cell('sync-cluster-s2-c2-B', 'sync-cluster', 2, 3000, 'B')]
  t.same(pairs(cells), [])
})

t.test('with two async fs APIs, the other one is compared with callback, and every label names its API', async (t) => {
  const handle = (c) => ({ ...c, id: `${c.id}-api-handle`, api: 'handle' })
  const cells = [cell('sync-s1-c2', 'sync', 1, 3000), cell('async-s1-c2', 'async', 1, 2000), handle(cell('async-s1-c2', 'async', 1, 2600)),
    cell('async-cluster-s2-c2', 'async-cluster', 2, 2100), handle(cell('async-cluster-s2-c2', 'async-cluster', 2, 3000))]
  const entries = comparisons(cells, { metrics: ['opsPerSec'] })
  t.same(entries.map((e) => [e.a, e.b, e.kind, e.verdict]), [
    ['sync-s1-c2', 'async-s1-c2', 'store', 'faster'],
    ['sync-s1-c2', 'async-s1-c2-api-handle', 'store', 'faster'],
    ['async-s1-c2-api-handle', 'async-s1-c2', 'api', 'faster'],
    ['async-cluster-s2-c2', 'async-s1-c2', 'model', 'faster'],
    ['async-cluster-s2-c2-api-handle', 'async-cluster-s2-c2', 'api', 'faster'],
    ['async-cluster-s2-c2-api-handle', 'async-s1-c2-api-handle', 'model', 'faster']
  ])
  t.same(entries.map((e) => e.label), [
    'sync vs async, 1 process, async callback',
    'sync vs async, 1 process, async handle',
    'async handle vs async callback, 1 process',
    'async: cluster of 2 workers vs 1 process, async callback',
    'async handle vs async callback, cluster of 2 workers',
    'async: cluster of 2 workers vs 1 process, async handle'
  ], 'no two labels alike')
})

t.test('a sync pool (nServers 1: its threads are libuv\'s) meets async and sync in one process and the cluster of each size', async (t) => {
  const cells = [cell('sync-pool-s1-c2', 'sync-pool', 1, 2000), cell('async-s1-c2', 'async', 1, 3000), cell('sync-s1-c2', 'sync', 1, 1000),
    cell('sync-cluster-s2-c2', 'sync-cluster', 2, 2000), cell('sync-cluster-s4-c2', 'sync-cluster', 4, 4000)]
  const entries = comparisons(cells, { metrics: ['opsPerSec'] }).filter((e) => e.a === 'sync-pool-s1-c2')
  t.same(entries.map((e) => [e.b, e.kind, e.verdict]), [
    ['async-s1-c2', 'store', 'slower'],
    ['sync-s1-c2', 'model', 'faster'],
    ['sync-cluster-s2-c2', 'model', 'same'],
    ['sync-cluster-s4-c2', 'model', 'slower']
  ])
  t.same(entries.map((e) => e.label), [
    'sync, 1 process + libuv-sized thread pool vs async, 1 process',
    'sync: 1 process + libuv-sized thread pool vs 1 process',
    'sync: 1 process + libuv-sized thread pool vs cluster of 2 workers',
    'sync: 1 process + libuv-sized thread pool vs cluster of 4 workers'
  ])
})

t.test('a cell\'s settings in words: the delay layer is named where its latency is not in the variant', async (t) => {
  const { settingsLabel } = require('../../../report/stats/comparisons')
  t.equal(settingsLabel('storage=delay'), 'delay layer', 'storage-check: its cells differ by storage alone')
  t.equal(settingsLabel('storage=cold'), 'real disk, cold cache')
  t.equal(settingsLabel('ioDelay=1000, storage=delay'), '1 ms storage', 'the latency says it')
  t.equal(settingsLabel('ioDelay=off'), 'plain folder')
})

t.test('each pool size is compared with the same cell at libuv\'s default, 4, and io_uring with the pool at 4', async (t) => {
  const at = (c, variant) => ({ ...c, id: `${c.id}-${variant.replace(/\W+/g, '')}`, variant })
  const async = cell('async-s1-c2', 'async', 1, 2000)
  const cluster = cell('async-cluster-s2-c2', 'async-cluster', 2, 3000)
  const cells = [
    at(cell('async-reuseport-s2-c2', 'async-reuseport', 2, 1000), 'uvThreadpoolSize=4, ioDelay=1000, uvUseIoUring=0'),
    at(async, 'uvThreadpoolSize=4, ioDelay=1000, uvUseIoUring=0'),
    at({ ...async, valid: cell('x', 'async', 1, 3000).valid }, 'uvThreadpoolSize=8, ioDelay=1000, uvUseIoUring=0'),
    at(async, 'uvThreadpoolSize=4, ioDelay=1000, uvUseIoUring=1'), at(async, 'uvThreadpoolSize=8, ioDelay=off, uvUseIoUring=0'),
    at(cluster, 'uvThreadpoolSize=4, ioDelay=1000, uvUseIoUring=0'), at(cluster, 'uvThreadpoolSize=1, ioDelay=1000, uvUseIoUring=0')
  ]
  const pool = comparisons(cells, { metrics: ['opsPerSec'] }).filter((e) => e.kind === 'pool')
  t.same(pool.map((e) => [e.a, e.b, e.verdict]), [
    ['async-s1-c2-uvThreadpoolSize8ioDelay1000uvUseIoUring0', 'async-s1-c2-uvThreadpoolSize4ioDelay1000uvUseIoUring0', 'faster'],
    ['async-s1-c2-uvThreadpoolSize4ioDelay1000uvUseIoUring1', 'async-s1-c2-uvThreadpoolSize4ioDelay1000uvUseIoUring0', 'same'],
    ['async-cluster-s2-c2-uvThreadpoolSize1ioDelay1000uvUseIoUring0', 'async-cluster-s2-c2-uvThreadpoolSize4ioDelay1000uvUseIoUring0', 'same']
  ], 'the plain folder\'s size 8 has no size 4 at its storage, and kinds are never crossed')
  t.same(pool.map((e) => e.label), ['async, 1 process: pool 8 vs pool 4, 1 ms storage', 'async, 1 process: io_uring vs pool 4, 1 ms storage',
    'async, cluster of 2 workers: pool 1 vs pool 4, 1 ms storage'])
})

t.test('each cell of this tree is compared with the same cell of each revision (--rev), which keeps its own comparisons', async (t) => {
  const at = (c, variant, speed = null) => ({ ...c, id: `${c.id}-${variant.replace(/\W+/g, '')}`, variant,
    valid: speed === null ? c.valid : cell('x', c.kind, c.nServers, speed).valid })
  const sync = cell('sync-s1-c2', 'sync', 1, 2000)
  const async = cell('async-s1-c2', 'async', 1, 1000)
  const cells = [at(sync, 'ioDelay=off, rev=tree'), at(sync, 'ioDelay=off, rev=1a2b3c4', 2500), at(async, 'ioDelay=off, rev=tree'),
    at(async, 'ioDelay=off, rev=1a2b3c4'), at(async, 'ioDelay=1000, rev=1a2b3c4')]
  const entries = comparisons(cells, { metrics: ['opsPerSec'] })
  t.same(entries.map((e) => [e.a, e.b, e.kind, e.verdict]), [
    ['sync-s1-c2-ioDelayoffrevtree', 'async-s1-c2-ioDelayoffrevtree', 'store', 'faster'],
    ['sync-s1-c2-ioDelayoffrev1a2b3c4', 'async-s1-c2-ioDelayoffrev1a2b3c4', 'store', 'faster'],
    ['sync-s1-c2-ioDelayoffrevtree', 'sync-s1-c2-ioDelayoffrev1a2b3c4', 'rev', 'slower'],
    ['async-s1-c2-ioDelayoffrevtree', 'async-s1-c2-ioDelayoffrev1a2b3c4', 'rev', 'same']
  ], 'this tree over the revision (2000 against 2500 ops/s: slower); a revision\'s cell without a tree cell is compared with nothing')
  t.same(entries.map((e) => e.label), ['sync vs async, 1 process, plain folder, this tree', 'sync vs async, 1 process, plain folder, 1a2b3c4',
    'sync, 1 process: this tree vs 1a2b3c4, plain folder', 'async, 1 process: this tree vs 1a2b3c4, plain folder'])
})
