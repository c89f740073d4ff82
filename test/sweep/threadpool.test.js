'use strict'
// threadpool (sweep/threadpool/, its preset in sweep/commands.js): the grid it thins, the list that must hold libuv's
// default, the probes run on real runtimes (a GET's file calls timed; libuv's pool or io_uring told apart by the threads
// a process starts), and the io_uring cells left out where libuv keeps the calls in its pool.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { PRESETS } = require('../../sweep/commands')
const { planCells } = require('../../sweep/plan/grid')
const { parseThreadpool, probeRuntimes, dropUnusedIoUring, PROBE_POOL } = require('../../sweep/threadpool/probes')
const { ConfigError } = require('../../lib/config')
const { checkFuse } = require('../../storage')
const { cachedNodes } = require('../../lib/install/node-versions')

const PROBE = path.join(__dirname, '../../sweep/threadpool/probe.js')
const count = (cells, test) => cells.filter(test).length

t.test('the grid: every size at 1 ms, 4 and 64 at a plain folder, sync and io_uring at pool 4, on 1 and 2 cores', { skip: checkFuse() }, async (t) => {
  const { plan } = parseThreadpool(PRESETS.threadpool, [])
  const cells = plan.cells
  t.equal(cells.length, 40)
  const sizes = (delay) => [...new Set(cells.filter((c) => c.ioDelay === delay && c.kind !== 'sync').map((c) => c.uvThreadpoolSize))]
    .sort((a, b) => a - b)
  t.same(sizes(1000), [1, 2, 4, 8, 16, 64], 'every size at 1 ms')
  t.same(sizes('off'), [4, 64], 'a plain folder: the default and the largest')
  t.same([...new Set(cells.map((c) => c.ioDelay))].sort(), [1000, 'off'], 'no other storage: its cells would take the 1 ms cells\' rounds')
  t.equal(count(cells, (c) => c.ioDelay === 1000), 28, '1 ms: 24 async cells, sync and io_uring on 1 and 2 cores')
  t.ok(cells.filter((c) => c.kind === 'sync').every((c) => c.uvThreadpoolSize === 4 && c.uvUseIoUring === 0), 'sync: its pool size is moot, once')
  t.same(cells.filter((c) => c.uvUseIoUring === 1).map((c) => `${c.kind} ${c.uvThreadpoolSize}`), Array(4).fill('async 4'), 'io_uring: async at 4')
  t.equal(count(cells, (c) => c.cpuset === 'split'), 20, 'half the cells on 1 server core')
  t.equal(plan.config.concurrency * cells[0].nClients, 96, '96 requests in flight, 1.5 x the largest pool')
  t.equal(plan.options.profile, true, 'one profiled round for the model')
})

t.test('a storage list of the user: every size at the slowest, 4 and 64 at the others', { skip: checkFuse() }, async (t) => {
  const { plan } = parseThreadpool(PRESETS.threadpool, ['--ioDelay=off,100,1000', '--kinds=async'])
  const sizes = (delay) => [...new Set(plan.cells.filter((c) => c.ioDelay === delay).map((c) => c.uvThreadpoolSize))].sort((a, b) => a - b)
  t.same([sizes('off'), sizes(100), sizes(1000)], [[4, 64], [4, 64], [1, 2, 4, 8, 16, 64]])
})

t.test('a pool list of the user is taken whole, and must hold libuv\'s default', { skip: checkFuse() }, async (t) => {
  const { plan } = parseThreadpool(PRESETS.threadpool, ['--uvThreadpoolSize=2,4', '--kinds=async'])
  t.same([...new Set(plan.cells.filter((c) => c.ioDelay === 'off').map((c) => c.uvThreadpoolSize))].sort(), [2, 4], 'size 2 at a plain folder too')
  t.throws(() => parseThreadpool(PRESETS.threadpool, ['--uvThreadpoolSize=8,16']), new ConfigError(
    '--uvThreadpoolSize=8,16: threadpool compares each pool size with libuv\'s default, 4: add 4 to the list'))
  t.throws(() => planCells(PRESETS.threadpool, ['--uvThreadpoolSize=0']), { message: '--uvThreadpoolSize must be an integer from 1 to 1024, got "0"' })
})

// Through a shell that drops NODE_OPTIONS: tap puts its own module there, whose file reads start the pool before the probe looks.
const probe = (node, mode, files, env) => {
  const out = spawnSync('/bin/sh', ['-c', 'unset NODE_OPTIONS; exec "$0" "$@"', node, PROBE, mode, ...files],
    { env: { ...process.env, UV_THREADPOOL_SIZE: String(PROBE_POOL), ...env }, encoding: 'utf8' })
  t.equal(out.status, 0, out.stderr)
  return JSON.parse(out.stdout)
}

t.test('the probe: a GET\'s file calls timed, and the pool told from io_uring by the threads started', async (t) => {
  const dir = t.testdir(Object.fromEntries(Array.from({ length: 8 }, (_, k) => [`f${k}`, 'x'.repeat(4096)])))
  const files = fs.readdirSync(dir).map((f) => path.join(dir, f))
  const { usPerCall } = probe(process.execPath, 'hold', files)
  t.ok(usPerCall > 0 && usPerCall < 100000, `a cached 4 KiB file read in ${usPerCall} µs`)
  t.equal(probe(process.execPath, 'threads', files, { UV_USE_IO_URING: '0' }).threadsStarted, PROBE_POOL, 'the pool: all its threads started')
  const disabled = fs.existsSync('/proc/sys/kernel/io_uring_disabled') && fs.readFileSync('/proc/sys/kernel/io_uring_disabled', 'utf8').trim() !== '0'
  const uv = process.versions.uv.split('.').map(Number)
  // libuv 1.45 to 1.48 (Node 20) send these calls to io_uring when asked; later ones (Node 22 on) keep them in the pool.
  const sends = !disabled && uv[0] === 1 && uv[1] >= 45 && uv[1] < 49
  const iou = probe(process.execPath, 'threads', files, { UV_USE_IO_URING: '1' }).threadsStarted
  t.equal(iou < PROBE_POOL, sends, `UV_USE_IO_URING=1 on libuv ${process.versions.uv}: ${iou} threads started`)
  const later = cachedNodes().find((n) => Number(n.version.slice(1).split('.')[0]) >= 22)
  if (later) t.equal(probe(later.path, 'threads', files, { UV_USE_IO_URING: '1' }).threadsStarted, PROBE_POOL, `${later.version} keeps them in its pool`)
})

t.test('probeRuntimes: each storage of the plan probed once, its folder removed', async (t) => {
  const dataPath = t.testdir()
  const cell = { runtime: 'node-sweep', runtimeBin: process.execPath, runtimeArgs: [], storage: 'cache', ioDelay: 'off' }
  const probes = await probeRuntimes([cell, { ...cell, uvUseIoUring: 1 }], dataPath, () => {})
  t.equal(probes.hold.length, 1)
  t.match(probes.hold[0], { runtime: 'node-sweep', storage: 'cache', ioDelay: 'off' })
  t.same(probes.ioUring.map((p) => p.runtime), ['node-sweep'])
  t.same(fs.readdirSync(dataPath), [], 'nothing left')
})

t.test('the io_uring cells are left out, saying why, only where libuv keeps the calls in its pool', async (t) => {
  const cells = [{ id: 'a', runtime: 'node-v26.12.1', uv: '1.52.1', uvUseIoUring: 1 }, { id: 'b', runtime: 'node-v26.12.1', uvUseIoUring: 0 },
    { id: 'c', runtime: 'node-v20.20.2', uvUseIoUring: 1 }]
  const { cells: kept, notes } = dropUnusedIoUring(cells, [{ runtime: 'node-v26.12.1', used: false, threadsStarted: 7 },
    { runtime: 'node-v20.20.2', used: true, threadsStarted: 1 }])
  t.same(kept.map((c) => c.id), ['b', 'c'])
  t.same(notes, ['left out the io_uring cells on Node v26.12.1: its libuv 1.52.1 keeps fs.readFile\'s calls in its thread pool even with ' +
    'UV_USE_IO_URING=1 (a probe started 7 of a pool of 7 threads)'])
})
