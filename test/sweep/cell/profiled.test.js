'use strict'
// sweep/cell/profiled.js end to end: run --profile measures its run as without it, then profiled rounds of
// fresh servers, a profiled and an unprofiled run in each (and V8's run in the first, with perf); profile/
// holds the cell's rounds with the requests of its profiled runs, a V8 profile per serving process named
// alike across servers, and nothing is left behind.

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { runSweep, resultsDir, readSummary, loggedPids } = require('../../fixtures/sweep-run')
const { perfProblem } = require('../../../profile/perf')
const { runsOf } = require('../../../sweep/cell/profiled')

t.test('each profiled round runs the cell profiled and not, in turns; V8 gets a run of its own in the first with perf', async (t) => {
  t.same(runsOf(0, 'perf'), ['perf', null, 'v8'])
  t.same(runsOf(1, 'perf'), [null, 'perf'])
  t.same(runsOf(0, 'v8'), ['v8', null])
  t.same(runsOf(3, 'v8'), [null, 'v8'])
})

t.test('run --profile writes profile/ from its profiled runs, after a run measured as without it', async (t) => {
  const root = t.testdir({ results: {}, data: {} })
  const { code, stderr } = await runSweep(t, ['run', 'sync-cluster', '--nServers=2', '--nClients=1', '--nOperations=300', '--warmup=20',
    '--profile', '--profileRounds=2', `--results=${path.join(root, 'results')}`, `--dataPath=${path.join(root, 'data')}`])
  t.equal(code, 0, stderr)
  t.match(stderr, /profiled round 2 of 2/)
  const dir = resultsDir(path.join(root, 'results'))
  t.same(readSummary(dir).map((r) => r.repeat), ['1'], 'summary.csv: the run alone')
  const doc = JSON.parse(fs.readFileSync(path.join(dir, 'profile', 'profile.json'), 'utf8'))
  const noPerf = perfProblem()
  t.equal(doc.mode, noPerf ? 'v8' : 'perf')
  const id = 'sync-cluster-s2-c1'
  t.same(Object.keys(doc.cells), [id])
  const cell = doc.cells[id]
  t.same(cell.rounds.map((r) => r.round), [1, 2])
  for (const r of cell.rounds) {
    t.equal(r.requests, 300, `round ${r.round}: the requests of its one profiled run`)
    t.ok(r.serverCpuUs > 0 && r.sampledUs > 0, 'measured and sampled (300 requests: tens of perf\'s samples)')
    t.ok(r.opsPerSec.profiled > 0 && r.opsPerSec.unprofiled > 0, 'the throughput of the profiled and the unprofiled run')
    t.ok(r.waits.syncCalls > 0 && r.waits.poolCalls === 0, 'the sync fs calls were timed')
  }
  if (!noPerf) t.ok(cell.rounds[0].opsPerSec.v8 > 0 && cell.rounds[1].opsPerSec.v8 === null, 'V8\'s run: in the first round alone')
  t.same(cell.cpuprofiles, ['primary', 'worker-1', 'worker-2'].map((p) => `profile/${id}/${p}.cpuprofile`),
    'a V8 profile of every serving process, named by its role (a fresh server\'s as the last one\'s)')
  t.same(new Set(cell.processes.map((p) => p.label)), new Set(['primary', 'worker 1', 'worker 2']))
  const runs = fs.readdirSync(path.join(dir, 'profile', 'cells')).filter((f) => f.endsWith('.json')).sort()
  const expected = [`${id}-p1-off`, `${id}-p1-${doc.mode}`, ...(noPerf ? [] : [`${id}-p1-v8`]), `${id}-p2-off`, `${id}-p2-${doc.mode}`]
  t.same(runs, expected.map((name) => `${name}.json`).sort(), 'each profiled round\'s runs, named by their profiler')
  t.match(fs.readFileSync(path.join(dir, 'report.html'), 'utf8'), /<section id="why">/, 'the report explains')
  t.notOk(fs.existsSync(path.join(dir, 'profile', 'v8')), 'the processes\' profiles folder is gone')
  const left = [...loggedPids(dir), ...loggedPids(dir, 'profile/cells')].filter((pid) => fs.existsSync(`/tmp/perf-${pid}.map`))
  t.same(left, [], 'no JIT map of a server is left in /tmp')
})
