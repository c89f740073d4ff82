'use strict'
// profile/attribute.js: samples cut by time window and process into per (cell, round) categories,
// top functions and folded stacks, on crafted samples and on the real perf and V8 recordings.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { attributeSamples, fromPerfScript, fromCpuprofile, foldedText, inclusiveUs } = require('../../profile/attribute')
const { parsePerfScript } = require('../../profile/perf-script')
const { cpuprofileSamples } = require('../../profile/cpuprofile')
const { CATEGORIES } = require('../../profile/categories')

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'profile')
const js = (name, file, line) => ({ name, file, line, kernel: false })
const native = (name) => ({ name, file: '/usr/bin/node', line: null, kernel: false })
const SORT = [native('Builtins_StringCompare'), js('sortLines', '/w/servers/lib/store.js', 12), js('', '/w/servers/lib/app.js', 40), native('uv_run')]
const READ = [js('readFileSync', 'node:fs', 441), js('', '/w/servers/lib/app.js', 40), native('uv_run')]
const libc = (name) => ({ name, file: 'libc.so.6', line: null, kernel: false })
const POOL = [libc('read'), native('worker'), libc('start_thread')]
const GC = [native('v8::internal::Scavenger::ScavengePage'), native('v8::platform::DefaultJobWorker::Run')]
const sample = (pid, tid, timeNs, weightNs, frames) => ({ pid, tid, timeNs, weightNs, frames })

const WINDOWS = [
  { cell: 'sync', round: 1, startNs: 1000, endNs: 2000, pids: [10] },
  { cell: 'async', round: 1, startNs: 2000, endNs: 3000, pids: [10, 20] },
  { cell: 'async', round: 2, startNs: 5000, endNs: 6000, pids: [20] }
]
const PROCESSES = new Map([[10, { role: 'worker', label: 'worker 1' }], [20, { role: 'primary', label: 'primary' }]])
const SAMPLES = [
  sample(10, 10, 1000, 4000, SORT), // sync 1, at its start
  sample(10, 10, 1999, 2000, READ), // sync 1, at its end
  sample(10, 11, 2000, 1000, POOL), // async 1: endNs of sync is outside sync
  sample(10, 12, 2500, 1500, GC), // async 1
  sample(20, 20, 2500, 3000, READ), // async 1, the primary
  sample(10, 10, 3000, 7000, SORT), // outside: at endNs
  sample(30, 30, 2500, 500, SORT), // outside: pid in no window
  sample(20, 20, 5500, 800, SORT) // async 2
]

t.test('a sample counts in the window of its pid and time, and at endNs or in no window it is outside', async (t) => {
  const { cells, outside } = attributeSamples(SAMPLES, { windows: WINDOWS, processes: PROCESSES })
  t.same([...cells.keys()], ['sync', 'async'])
  t.same([...cells.get('async').keys()], [1, 2])
  t.equal(cells.get('sync').get(1).sampledUs, 6)
  t.equal(cells.get('async').get(1).sampledUs, 5.5)
  t.equal(cells.get('async').get(2).sampledUs, 0.8)
  t.equal(outside, 7500, 'ns')
})

t.test('categories per cell cover every id and add up to the sampled time', async (t) => {
  const { cells } = attributeSamples(SAMPLES, { windows: WINDOWS, processes: PROCESSES })
  const sync = cells.get('sync').get(1).categories
  t.same(Object.keys(sync), CATEGORIES.map((c) => c.id))
  t.same(Object.fromEntries(Object.entries(sync).filter(([, us]) => us > 0)), { app: 4, fs: 2 })
  const async = cells.get('async').get(1).categories
  t.same(Object.fromEntries(Object.entries(async).filter(([, us]) => us > 0)), { pool: 1, gc: 1.5, primary: 3 })
  t.equal(cells.get('async').get(2).categories.primary, 0.8, 'every sample of the primary')
})

t.test('folded stacks run from the process label and thread to the leaf', async (t) => {
  const { cells } = attributeSamples(SAMPLES, { windows: WINDOWS, processes: PROCESSES })
  t.same([...cells.get('sync').get(1).folded], [
    ['worker 1;main;uv_run;(anonymous) /w/servers/lib/app.js:40;sortLines /w/servers/lib/store.js:12;Builtins_StringCompare', 4],
    ['worker 1;main;uv_run;(anonymous) /w/servers/lib/app.js:40;readFileSync node:fs:441', 2]
  ])
  t.same([...cells.get('async').get(1).folded.keys()].sort(), [
    'primary;main;uv_run;(anonymous) /w/servers/lib/app.js:40;readFileSync node:fs:441',
    'worker 1;gc helper;v8::platform::DefaultJobWorker::Run;v8::internal::Scavenger::ScavengePage',
    'worker 1;libuv pool;start_thread;worker;read'
  ])
  const other = attributeSamples([sample(10, 13, 1500, 1000, [native('v8::internal::compiler::GraphReducer::ReduceTop')])],
    { windows: WINDOWS, processes: PROCESSES })
  t.same([...other.cells.get('sync').get(1).folded.keys()], ['worker 1;thread;v8::internal::compiler::GraphReducer::ReduceTop'])
  const unknown = attributeSamples([sample(99, 99, 1500, 1000, [])], { windows: [{ ...WINDOWS[0], pids: [99] }], processes: PROCESSES })
  t.same([...unknown.cells.get('sync').get(1).folded], [['99;main', 1]], 'a process not listed is labelled by its pid')
})

t.test('top functions are the self time of the leaf, with the category it had most', async (t) => {
  const samples = [sample(10, 10, 1100, 3000, SORT), sample(10, 10, 1200, 1000, [SORT[0], native('v8::Function::Call')]), sample(10, 10, 1300, 2000, READ)]
  const { cells } = attributeSamples(samples, { windows: WINDOWS, processes: PROCESSES })
  t.same([...cells.get('sync').get(1).functions], [
    ['Builtins_StringCompare', { us: 4, category: 'app' }],
    ['readFileSync node:fs:441', { us: 2, category: 'fs' }]
  ])
})

t.test('foldedText writes sorted `stack value` lines rounded to 3 decimals', async (t) => {
  const folded = new Map([['b;main;f', 1.23456], ['a;main;g', 2], ['a;libuv pool;h', 0.0004]])
  t.equal(foldedText(folded), 'a;libuv pool;h 0\na;main;g 2\nb;main;f 1.235\n')
  t.equal(foldedText(new Map()), '')
})

t.test('inclusiveUs sums the stacks with a matching frame, not matching the label or thread', async (t) => {
  const { cells } = attributeSamples(SAMPLES, { windows: WINDOWS, processes: PROCESSES })
  const async = cells.get('async').get(1).folded
  t.equal(inclusiveUs(async, /^readFileSync node:fs:/), 3)
  t.equal(inclusiveUs(async, /^worker$/), 1, "libuv's worker frame, not the label 'worker 1'")
  t.equal(inclusiveUs(async, /main|primary/), 0, 'the label and the thread are not frames')
  const global = /servers/g
  t.equal(inclusiveUs(cells.get('sync').get(1).folded, global), 6)
  t.equal(inclusiveUs(cells.get('sync').get(1).folded, global), 6, 'a global RegExp gives the same answer twice')
})

t.test("perf's samples keep their period as weight, each in the category its stacks say (counted by hand)", async (t) => {
  const perf = parsePerfScript(fs.readFileSync(path.join(FIXTURES, 'perf-script.txt'), 'utf8'))
  const samples = fromPerfScript(perf)
  t.same(Object.keys(samples[0]).sort(), ['frames', 'pid', 'tid', 'timeNs', 'weightNs'])
  t.ok(samples.every((s) => s.weightNs === 1001001))
  const windows = [{ cell: 'sync', round: 1, startNs: 0, endNs: 2e13, pids: [15963] }]
  const processes = new Map([[15963, { role: 'single', label: 'single' }]])
  const { cells, outside } = attributeSamples(samples, { windows, processes })
  const cell = cells.get('sync').get(1)
  t.equal(outside, 3 * 1001001, 'the three samples of the other pid')
  t.equal(Math.round(cell.sampledUs * 1000), 41 * 1001001)
  // perf-script.txt's 41 samples of pid 15963, read one by one against profile/categories.js's rules.
  const byHand = { app: 4, express: 1, http: 2, fs: 4, pool: 2, callbacks: 3, gc: 6, engine: 2, 'kernel-net': 3, 'kernel-fs': 4, 'kernel-wake': 4,
    'kernel-other': 2, other: 4 }
  t.same(Object.fromEntries(Object.entries(cell.categories).filter(([, us]) => us > 0).map(([k, us]) => [k, Math.round(us * 1000 / 1001001)])), byHand)
  t.equal(Math.round(inclusiveUs(cell.folded, /^readFile(Sync)? node:fs:/) * 1000), 4 * 1001001, 'with the kernel copy and page fault under readFileSync')
  t.ok([...cell.folded.keys()].some((k) => k.startsWith('single;libuv pool;start_thread;worker;')))
  t.ok([...cell.folded.keys()].some((k) => k.startsWith('single;gc helper;start_thread;')))
})

t.test('V8 samples become ns on the main thread, without (idle)', async (t) => {
  const profile = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'small.cpuprofile'), 'utf8'))
  const v8 = cpuprofileSamples(profile)
  const samples = fromCpuprofile(v8, 4242)
  t.equal(samples.length, v8.length - 16, 'the 16 (idle) samples dropped')
  t.notOk(samples.some((s) => s.frames[0].name === '(idle)'))
  t.ok(samples.every((s) => s.pid === 4242 && s.tid === 4242))
  t.equal(samples[0].timeNs, v8[0].timeUs * 1000)
  t.equal(samples[0].weightNs, v8[0].weightUs * 1000)
  const windows = [{ cell: 'c', round: 1, startNs: 0, endNs: profile.endTime * 1000, pids: [4242] }]
  const { cells, outside } = attributeSamples(samples, { windows, processes: new Map() })
  const cell = cells.get('c').get(1)
  t.equal(outside, 0)
  t.equal(cell.categories.gc, v8.filter((s) => s.frames[0].name === '(garbage collector)').reduce((a, s) => a + s.weightUs, 0))
  t.ok(cell.categories.app > 0)
  t.equal(cell.functions.get('sortFile file:///tmp/prof/servers/sort-file.js:3').category, 'app')
  // Given the main thread's CPU over the profile, the wall-time weights are scaled to add up to it, shares kept.
  const wallUs = samples.reduce((a, s) => a + s.weightNs, 0) / 1000
  const scaled = fromCpuprofile(v8, 4242, wallUs / 2)
  t.equal(Math.round(scaled.reduce((a, s) => a + s.weightNs, 0) / 1000), Math.round(wallUs / 2), 'the CPU, where the wall time was')
  t.ok(scaled.every((s, k) => Math.abs(s.weightNs - samples[k].weightNs / 2) < 1e-6), 'every sample halved')
  t.same(fromCpuprofile(v8, 4242, 0), samples, 'no CPU measured: the wall-time weights')
})
