'use strict'
// lib/serving/profiler.js and lib/serving/fs-waits.js: a window is profiled only while the folder holds `on`; the
// profile lands there; fs calls are timed while watched and fs is whole again after.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { createProfiler, profileEnv, ON, PERF_FLAGS } = require('../../lib/serving/profiler')
const { watchFs } = require('../../lib/serving/fs-waits')

t.test('without BENCH_PROFILE_DIR there is no profiler', async (t) => {
  t.equal(createProfiler({}), null)
})

t.test('profileEnv keeps the NODE_OPTIONS given and adds the flags that name JS in perf stacks', async (t) => {
  const env = profileEnv('/x/profile/v8', { NODE_OPTIONS: '--max-old-space-size=100' })
  t.equal(env.BENCH_PROFILE_DIR, '/x/profile/v8')
  t.equal(env.NODE_OPTIONS, ['--max-old-space-size=100', ...PERF_FLAGS].join(' '))
})

t.test('a window is profiled only while the folder holds `on`, by V8 when it says so, and its profile is written there', async (t) => {
  const dir = t.testdir()
  const profiler = createProfiler({ BENCH_PROFILE_DIR: dir })
  await profiler.start()
  t.same(await profiler.stop(), {}, 'no `on`: nothing started, nothing written')
  fs.writeFileSync(path.join(dir, ON), 'waits')
  await profiler.start()
  fs.readFileSync(__filename)
  await new Promise((resolve) => setTimeout(resolve, 20)) // the main thread sleeps in epoll
  const waited = await profiler.stop()
  t.same(Object.keys(waited), ['fsWaits'], '`waits` (a window perf samples): the fs waits alone')
  t.equal(waited.fsWaits.syncCalls, 1, 'the window\'s own fs call, not the profiler\'s reads of /proc')
  t.ok(waited.fsWaits.sleeps >= 1, `the threads' sleeps were counted (${waited.fsWaits.sleeps})`)
  fs.writeFileSync(path.join(dir, ON), 'v8')
  await profiler.start()
  // 50 ms of this process's CPU (a neighbour may take the core for part of the wall time), at most 5 s.
  const [cpu0, end] = [process.cpuUsage(), Date.now() + 5000]
  while (process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system < 50000 && Date.now() < end) fs.readFileSync(__filename)
  const { profile, fsWaits, mainCpuUs } = await profiler.stop()
  t.equal(path.dirname(profile), dir)
  t.ok(mainCpuUs > 1000 && mainCpuUs < 10e6, `the main thread's CPU while V8 sampled (${mainCpuUs} µs of a 50 ms busy loop)`)
  const doc = JSON.parse(fs.readFileSync(profile, 'utf8'))
  t.ok(doc.samples.length > 5 && doc.nodes.length > 1, `V8 samples (${doc.samples.length})`)
  t.ok(fsWaits.syncCalls > 10 && fsWaits.syncUs > 0, 'the sync reads were timed')
  t.same(fs.readdirSync(dir).sort(), [ON, path.basename(profile)].sort(), 'no temporary file left')
})

t.test('watchFs times sync calls once (not their inner calls) and pool calls busy or queued, then puts fs back', async (t) => {
  const dir = t.testdir({ a: 'x'.repeat(1000) })
  const file = path.join(dir, 'a')
  const before = [fs.readFileSync, fs.readFile, fs.promises.open]
  const w = watchFs(2)
  t.not(fs.readFileSync, before[0], 'wrapped while watching')
  for (let k = 0; k < 5; k++) fs.readFileSync(file)
  await Promise.all(Array.from({ length: 6 }, () => new Promise((resolve, reject) => fs.readFile(file, (err) => (err ? reject(err) : resolve())))))
  const fh = await fs.promises.open(file)
  await fh.readFile()
  await fh.close()
  const got = w.stop()
  t.equal(got.syncCalls, 5, 'readFileSync counted once each (its inner readSync calls are not)')
  t.equal(got.poolCalls, 9, '6 readFile, then open, readFile and close of a FileHandle')
  t.ok(got.poolBusyUs > 0, 'busy time')
  t.ok(got.poolQueuedUs > 0, 'six at once on a pool of 2: some waited')
  t.same([fs.readFileSync, fs.readFile, fs.promises.open], before, 'fs is whole again')
  const fh2 = await fs.promises.open(file)
  t.equal(Object.getPrototypeOf(fh2).readFile.name, 'readFile', 'FileHandle is whole again')
  await fh2.close()
})

t.test('watchFs counts the pool trips libuv makes, not the calls JS makes', async (t) => {
  // readFile is open, fstat, one read per 512 KiB chunk and close; a read stream reads 64 KiB at a time until a read finds the end.
  const dir = t.testdir({ small: 'x'.repeat(16384), big: 'y'.repeat(1048576 + 1) })
  const trips = async (fn) => {
    const w = watchFs(4)
    await fn()
    return w.stop().poolTrips
  }
  const readFile = (f) => new Promise((resolve, reject) => fs.readFile(path.join(dir, f), (err) => (err ? reject(err) : resolve())))
  t.equal(await trips(() => readFile('small')), 4, 'a 16 KiB readFile: open, fstat, read, close')
  t.equal(await trips(() => readFile('big')), 6, 'a 1 MiB + 1 B readFile: three chunks')
  t.equal(await trips(() => fs.promises.readFile(path.join(dir, 'small'))), 4, 'fs.promises.readFile: as many, its close a FileHandle\'s')
  t.equal(await trips(() => fs.readFileSync(path.join(dir, 'big'))), 0, 'readFileSync: none')
  const stream = () => new Promise((resolve) => fs.createReadStream(path.join(dir, 'small')).resume().on('close', resolve))
  t.equal(await trips(stream), 4, 'a read stream of 16 KiB: open, read, the read that finds the end, close')
})
