'use strict'
// profile/perf.js: where perf is missing or refuses, --profile says why in one line (and falls back to
// V8's stacks, which the report then says); where it works, a recording switched on around a window
// holds that window's samples and none from before it.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { perfProblem, startPerf, perfScript } = require('../../profile/perf')
const { parsePerfScript } = require('../../profile/perf-script')

t.test('no perf on the PATH: a line that names setup', async (t) => {
  const dir = t.testdir({})
  t.equal(perfProblem({ PATH: dir }), 'perf is not installed (./run_benchmark.sh setup installs linux-perf)')
})

t.test('a perf that refuses to record: its own last line', async (t) => {
  const dir = t.testdir({ perf: '#!/bin/sh\necho "Error: perf_event_paranoid setting is 4" >&2\nexit 255\n' })
  fs.chmodSync(path.join(dir, 'perf'), 0o755)
  t.equal(perfProblem({ PATH: dir }), 'perf record does not work here (Error: perf_event_paranoid setting is 4)')
})

const noPerf = perfProblem()
t.test('a recording holds the samples of the time it was switched on, not before', { skip: noPerf && `perf: ${noPerf}` }, async (t) => {
  const dir = t.testdir({})
  const file = path.join(dir, 'perf.data')
  const perf = await startPerf({ file, logFd: 'ignore', frequency: 999 })
  const spin = (ms) => { for (const end = Date.now() + ms; Date.now() < end;); }
  spin(200) // switched off: not recorded
  const on = process.hrtime.bigint()
  await perf.enable()
  spin(300)
  await perf.disable()
  await perf.stop()
  const mine = parsePerfScript(await perfScript(file)).filter((s) => s.pid === process.pid)
  t.ok(mine.length >= 10, `this process was sampled while on (${mine.length} samples; ~300 on an idle core)`)
  t.ok(mine.every((s) => s.timeNs >= Number(on)), 'and not before: the monotonic clock of process.hrtime')
  t.notOk(fs.existsSync(`${file}.txt`), 'the text is not left behind')
})
