'use strict'
// The sweep's grid: cells, their configs and their ids, the schedPolicy dimension and the A/A cell.

const t = require('tap')
const os = require('node:os')
const { ConfigError } = require('../../../lib/config')
const { cellId, sizedValue } = require('../../../sweep/plan/grid')
const { planSweep } = require('../../../sweep/commands')
const { reusePortProblem, kindProblem } = require('../../../lib/kinds')
const { checkFuse } = require('../../../storage')

// The cells a plan runs: an interleaved command's (sweep, quick, versions), or the distinct cells of run's schedule.
const cellsOf = (plan) => plan.cells ?? [...new Map(plan.runs.map((r) => [r.cell.id, r.cell])).values()]

t.test('a cell id names kind, servers and clients, and the optional dimensions given', async (t) => {
  const cell = {
    kind: 'sync-cluster', nServers: 2, nClients: 4, uvThreadpoolSize: 8, schedPolicy: 'none', readsPerWrite: 4, valueBytes: 1024, runtime: 'node-v24.21.0'
  }
  t.equal(cellId(cell, []), 'sync-cluster-s2-c4')
  t.equal(cellId(cell, ['uvThreadpoolSize', 'schedPolicy', 'readsPerWrite', 'valueBytes']), 'sync-cluster-s2-c4-uv8-sp-none-rpw4-v1024')
  t.equal(cellId(cell, ['schedPolicy', 'runtime']), 'sync-cluster-s2-c4-sp-none-node-v24.21.0')
  t.equal(cellId({ ...cell, variant: 'B' }, ['schedPolicy']), 'sync-cluster-s2-c4-sp-none-B')
})

t.test('a sized value has exactly that many bytes of the configured text', async (t) => {
  t.equal(sizedValue('abc', 7), 'abcabca')
  t.equal(sizedValue('abcdef', 2), 'ab')
})

t.test('the quick grid: the four base kinds, nServers only for cluster kinds, each cell validated with its own config', async (t) => {
  const plan = planSweep('quick', ['--seed=1', '--nOperations=50'])
  t.same(plan.grid.aa, { kind: 'sync', nServers: 1, nClients: 2 }, 'quick runs the A/A cell, its cheapest')
  t.match(plan.options, { rounds: 6, budget: 110, margin: 0.05, passes: 8, window: 300, freshFiles: true })
  t.equal(plan.runs, undefined, 'quick is interleaved: no schedule of runs')
  const ids = cellsOf(plan).map((c) => c.id).sort()
  const fuse = checkFuse()
  const main = ['async-cluster-s2-c2', 'async-s1-c2', 'sync-cluster-s2-c2', 'sync-s1-c2'].sort()
  if (fuse) {
    t.same(ids, [...main, 'sync-s1-c2-B'].sort(), 'the A/A pair: the sync cell and its copy')
    t.same(plan.notes, [`skipped the storage-latency slice (sync and async at ioDelay off, 1000): ${fuse}`])
  } else {
    // The FUSE slice: sync and async at 1 ms storage; their plain-folder cells are in the grid already.
    t.same(ids, [...main.map((id) => `${id}-doff`), 'async-s1-c2-d1000', 'sync-s1-c2-d1000', 'sync-s1-c2-doff-B'].sort())
    t.same(plan.notes, [])
  }
  const cell = cellsOf(plan).find((c) => c.id.startsWith('sync-cluster-s2-c2'))
  t.match(cell.config, { nServers: 2, nClients: 2, concurrency: 2, serverPort: 0 })
  t.equal(plan.options.seed, 1)
})

t.test('quick and sweep keep the reuseport, balanced and pool kinds out of quick unless asked for', async (t) => {
  const kinds = (command, args = []) =>
    [...new Set(cellsOf(planSweep(command, ['--aa=off', '--nClients=1', '--nServers=2', ...args])).map((c) => c.kind))].sort()
  t.same(kinds('quick'), ['async', 'async-cluster', 'sync', 'sync-cluster'])
  const reuse = reusePortProblem() ? [] : ['async-reuseport', 'sync-reuseport']
  const lb = kindProblem('sync-lb') ? [] : ['async-lb', 'sync-lb']
  t.same(kinds('sweep'), ['async', 'async-cluster', 'sync', 'sync-cluster', 'sync-pool', ...reuse, ...lb].sort())
})

t.test('optional dimensions multiply the grid and reach each cell\'s config', async (t) => {
  const plan = planSweep('sweep', ['--kinds=async', '--nClients=2', '--uvThreadpoolSize=1,8', '--valueBytes=10,100', '--rounds=2',
    '--serverPort=9000', '--aa=off'])
  const cells = cellsOf(plan)
  t.same(cells.map((c) => c.id).sort(), ['async-s1-c2-uv1-v10', 'async-s1-c2-uv1-v100', 'async-s1-c2-uv8-v10', 'async-s1-c2-uv8-v100'])
  t.equal(plan.options.rounds, 2)
  const cell = cells.find((c) => c.id === 'async-s1-c2-uv8-v100')
  t.equal(Buffer.byteLength(cell.config.value), 100)
  t.equal(cell.uvThreadpoolSize, 8)
  t.equal(cell.config.serverPort, 9000, 'a given serverPort wins over the free port')
})

t.test('run KIND uses config.json\'s nServers and nClients', async (t) => {
  const plan = planSweep('run', ['--nServers=3'], 'async-cluster')
  t.same(plan.runs.map((r) => r.cell.id), ['async-cluster-s3-c5'])
  t.throws(() => planSweep('run', [], 'turbo'), /run KIND: KIND must be one of .*, got "turbo"/)
})

t.test('a payload too large for bodyLimit names the cell', async (t) => {
  t.throws(() => planSweep('quick', ['--valueBytes=10,100', '--bodyLimit=120']), /^cell .*-v100(-d\w+)?: value must be at most bodyLimit - 64/)
})

t.test('without --uvThreadpoolSize or --schedPolicy each cell records the effective values', async (t) => {
  const saved = { ...process.env }
  t.teardown(() => {
    for (const name of ['UV_THREADPOOL_SIZE', 'NODE_CLUSTER_SCHED_POLICY']) {
      if (saved[name] === undefined) delete process.env[name]
      else process.env[name] = saved[name]
    }
  })
  delete process.env.UV_THREADPOOL_SIZE
  delete process.env.NODE_CLUSTER_SCHED_POLICY
  const cells = planSweep('run', [], 'sync').runs.map((r) => r.cell)
  t.match(cells, [{ id: 'sync-s1-c5', uvThreadpoolSize: 4, schedPolicy: 'rr' }])
  process.env.UV_THREADPOOL_SIZE = '7'
  process.env.NODE_CLUSTER_SCHED_POLICY = 'none'
  t.match(planSweep('run', ['--nServers=3'], 'async-cluster').runs.map((r) => r.cell),
    [{ id: 'async-cluster-s3-c5', uvThreadpoolSize: 7, schedPolicy: 'none' }])
})

t.test('--schedPolicy is a dimension: every kind gets both values, and ids say which', async (t) => {
  const plan = planSweep('quick', ['--kinds=sync,sync-cluster', '--nClients=1', '--schedPolicy=none,rr', '--aa=off'])
  const cells = cellsOf(plan)
  t.same(cells.map((c) => c.id).sort(), ['sync-cluster-s2-c1-sp-none', 'sync-cluster-s2-c1-sp-rr', 'sync-s1-c1-sp-none', 'sync-s1-c1-sp-rr'])
  t.equal(cells.find((c) => c.id === 'sync-s1-c1-sp-none').schedPolicy, 'none')
  t.same(plan.grid.schedPolicy, ['none', 'rr'])
})

t.test('sweep adds the A/A pair as its configuration\'s cell and a copy B that differs only in its label', async (t) => {
  const plan = planSweep('sweep', ['--kinds=sync', '--nClients=1', '--rounds=3', '--uvThreadpoolSize=8,2', '--seed=5'])
  const servers = Math.min(2, os.availableParallelism())
  const id = `async-cluster-s${servers}-c4-uv8`
  t.same(plan.grid.aa, { kind: 'async-cluster', nServers: servers, nClients: 4 })
  t.same(cellsOf(plan).map((c) => c.id).sort(), [id, `${id}-B`, 'sync-s1-c1-uv2', 'sync-s1-c1-uv8'])
  const [a, b] = [id, `${id}-B`].map((name) => cellsOf(plan).find((c) => c.id === name))
  t.match(a, { kind: 'async-cluster', nServers: servers, nClients: 4, uvThreadpoolSize: 8, config: { nServers: servers, nClients: 4 } })
  t.equal(a.variant, undefined)
  t.equal(b.variant, 'B')
  const { variant, ...copy } = b
  t.same({ ...a, id: '' }, { ...copy, id: '' }, 'the copy differs only in its label')
})

t.test('run schedules its rounds; the interleaved flags are refused there, --repeats everywhere', async (t) => {
  const plan = planSweep('run', ['--rounds=3', '--seed=2'], 'sync')
  t.same(plan.runs.map((r) => [r.cell.id, r.repeat]), [['sync-s1-c5', 1], ['sync-s1-c5', 2], ['sync-s1-c5', 3]])
  t.throws(() => planSweep('run', ['--budget=10'], 'sync'), /^--budget is for the interleaved commands/)
  t.throws(() => planSweep('quick', ['--repeats=3']), /^--repeats is now --rounds/)
  for (const [arg, message] of [['--budget=0', /^--budget must be a duration above 0/], ['--budget=2x', /^--budget must be a duration/],
    ['--margin=1.5', /^--margin must be a number above 0 and at most 1, got "1.5"/], ['--maxInterference=-1', /^--maxInterference must be a number above 0/],
    ['--window=0', /^--window must be an integer from 1/], ['--passes=x', /^--passes must be an integer/],
    ['--warmOps=-5', /^--warmOps must be an integer >= 0/]]) {
    t.throws(() => planSweep('quick', [arg]), { message }, arg)
  }
  t.match(planSweep('quick', ['--budget=2m', '--margin=0.1']).options, { budget: 120, margin: 0.1 })
  t.match(planSweep('quick', ['--budget=1.5h']).options, { budget: 5400 })
})

t.test('--aa sets or removes the A/A cell, and a bad one names the part that is wrong', async (t) => {
  const ids = (command, args) => cellsOf(planSweep(command, ['--kinds=async', '--nClients=2', ...args])).map((c) => c.id).sort()
  t.same(ids('sweep', ['--aa=off']), ['async-s1-c2'])
  t.same(ids('sweep', ['--aa=sync-cluster:3:1']), ['async-s1-c2', 'sync-cluster-s3-c1', 'sync-cluster-s3-c1-B'])
  t.same(ids('quick', ['--aa=sync:4:2']), ['async-s1-c2', 'sync-s1-c2', 'sync-s1-c2-B'], 'one process for a single-process kind')
  t.same(ids('quick', ['--aa=async:1:2']), ['async-s1-c2', 'async-s1-c2-B'], 'a cell of the grid is the A of its pair')
  for (const [arg, message] of [
    ['--aa=on', /^--aa must be off or KIND:nServers:nClients \(e\.g\. async-cluster:2:4\), got "on"$/],
    ['--aa=fast:2:4', new RegExp('KIND must be one of sync, async, sync-cluster, async-cluster, sync-reuseport, async-reuseport, sync-lb, async-lb, ' +
      'sync-pool, got "fast:2:4"$')],
    ['--aa=async-cluster:0:4', /its nServers must be an integer from 1 to 256, or auto, got "async-cluster:0:4"$/],
    ['--aa=async:1:x', /its nClients must be an integer from 1 to 256, got "async:1:x"$/]
  ]) {
    t.throws(() => planSweep('sweep', [arg]), { constructor: ConfigError, message }, arg)
  }
})

t.test('storage latency, async API and io_uring are dimensions; moot ones are not run twice', { skip: checkFuse() }, async (t) => {
  const plan = planSweep('sweep', ['--kinds=sync,async', '--nClients=4', '--ioDelay=off,1000', '--asyncApi=callback,filehandle',
    '--uvUseIoUring=0,1', '--aa=off', '--rounds=1'])
  const cells = cellsOf(plan)
  t.same(cells.map((c) => c.id).sort(), [
    'async-s1-c4-d1000-api-callback-iou0', 'async-s1-c4-d1000-api-callback-iou1', 'async-s1-c4-d1000-api-filehandle-iou0',
    'async-s1-c4-d1000-api-filehandle-iou1', 'async-s1-c4-doff-api-callback-iou0', 'async-s1-c4-doff-api-callback-iou1',
    'async-s1-c4-doff-api-filehandle-iou0', 'async-s1-c4-doff-api-filehandle-iou1',
    'sync-s1-c4-d1000-iou0', 'sync-s1-c4-d1000-iou1', 'sync-s1-c4-doff-iou0', 'sync-s1-c4-doff-iou1'], 'sync cells have no API')
  const filehandle = cells.find((c) => c.id === 'async-s1-c4-d1000-api-filehandle-iou1')
  t.match(filehandle, { ioDelay: 1000, ioDepth: 64, asyncApi: 'filehandle', uvUseIoUring: 1, config: { asyncApi: 'filehandle' } })
  t.match(cells.find((c) => c.id === 'sync-s1-c4-doff-iou0'), { ioDelay: 'off', ioDepth: '', asyncApi: '' }, 'no queue depth without FUSE')
  t.same(planSweep('run', ['--ioDelay=0', '--ioDepth=1,8'], 'async').runs.map((r) => r.cell.id).sort(),
    ['async-s1-c5-d0-qd1', 'async-s1-c5-d0-qd8'], 'ioDepth is a dimension')
})

t.test('a bad ioDelay, ioDepth, asyncApi or uvUseIoUring exits 2 naming the field', async (t) => {
  for (const [arg, message] of [
    ['--ioDelay=-5', /^--ioDelay must be off or an integer number of µs from 0 to 10000000, got "-5"$/],
    ['--ioDelay=1.5', /^--ioDelay must be off or an integer number of µs/],
    ['--ioDelay=slow', /^--ioDelay must be off or an integer number of µs/],
    ['--ioDepth=0', /^--ioDepth must be an integer from 1 to 4096, got "0"$/],
    ['--ioDepth=2.5', /^--ioDepth must be an integer from 1 to 4096, got "2.5"$/],
    ['--asyncApi=threads', /^--asyncApi must be one of callback, promises, promisify, filehandle, handle, stream, read, got "threads"$/],
    ['--uvUseIoUring=yes', /^--uvUseIoUring must be 0 or 1, got "yes"$/]
  ]) {
    t.throws(() => planSweep('sweep', [arg]), { constructor: ConfigError, message }, arg)
  }
})

t.test('ioDelay without FUSE exits 2 with one line saying what to install', async (t) => {
  const saved = process.env.PATH
  t.teardown(() => { process.env.PATH = saved })
  process.env.PATH = t.testdir() // no fusermount3 on it
  const why = checkFuse()
  t.ok(why, 'FUSE is unusable without fusermount3')
  t.throws(() => planSweep('run', ['--ioDelay=100'], 'sync'), { constructor: ConfigError, message: `--ioDelay needs the FUSE storage layer: ${why}` })
  t.match(planSweep('quick', []).notes, [/^skipped the storage-latency slice \(sync and async at ioDelay off, 1000\): /], 'quick says why it skipped the slice')
})

t.test('--framework is a dimension: each cell runs the app it names', async (t) => {
  const plan = planSweep('sweep', ['--kinds=sync', '--nClients=1', '--framework=express,http', '--aa=off', '--rounds=1'])
  const cells = cellsOf(plan)
  t.same(cells.map((c) => c.id).sort(), ['sync-s1-c1-fw-express', 'sync-s1-c1-fw-http'])
  t.same(cells.map((c) => [c.framework, c.config.framework]).sort(), [['express', 'express'], ['http', 'http']])
  t.throws(() => planSweep('sweep', ['--framework=koa']), /--framework must be one of express, http, got "koa"/)
})

t.test('fsync is a dimension: group runs for the async kinds only', async (t) => {
  const plan = planSweep('sweep', ['--kinds=sync,async-cluster', '--nServers=2', '--nClients=1', '--fsync=none,group', '--aa=off', '--rounds=1'])
  const cells = new Map(cellsOf(plan).map((c) => [c.id, c]))
  t.same([...cells.keys()].sort(), ['async-cluster-s2-c1-fs-group', 'async-cluster-s2-c1-fs-none', 'sync-s1-c1-fs-none'])
  t.equal(cells.get('async-cluster-s2-c1-fs-group').config.fsync, 'group', 'it reaches the cell\'s config')
  t.equal(planSweep('run', ['--fsync=each'], 'sync').runs[0].cell.config.fsync, 'each')
  t.throws(() => planSweep('run', ['--fsync=group'], 'sync'), new ConfigError('no cell to run: fsync=group needs an async kind'))
  t.throws(() => planSweep('quick', ['--fsync=some']), /--fsync must be one of none, each, group, got "some"/)
})
