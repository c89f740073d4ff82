'use strict'
// sweep/interleaved/profiled.js end to end on small windows: quick --profile runs its verdict rounds, then
// profiled rounds on fresh servers with the profilers' flags, whose passes perf (or, without it, V8) samples but a
// random quarter;
// profile/ holds each cell's rounds, categories that add up to what was sampled, folded stacks and a V8
// profile per serving process; the report explains; nothing of the profiled rounds is a summary row,
// and nothing is left behind (the profiles' folder, perf's JIT maps). The profiled rounds come in the verdict rounds' phases.

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { runSweep, resultsDir, readSummary, loggedPids } = require('../../fixtures/sweep-run')
const { perfProblem } = require('../../../profile/perf')
const { passPlan } = require('../../../sweep/interleaved/profiled')
const { mulberry32 } = require('../../../lib/random')
const { checkFuse } = require('../../../storage')

t.test('the passes of a profiled round: a random quarter unprofiled, V8 the last profiled pass of the first round if perf keeps one', async (t) => {
  const random = mulberry32(7)
  const plans = Array.from({ length: 400 }, (_, n) => ({ k: n % 2, plan: passPlan(n % 2, { passes: 8, profileRounds: 5 }, true, random) }))
  t.ok(plans.every(({ plan }) => plan.length === 8 && plan.filter((p) => p === null).length === 2), 'quick\'s 8 passes: 2 unprofiled')
  const off = new Set(plans.flatMap(({ plan }) => plan.map((p, i) => (p === null ? i + 1 : 0)).filter(Boolean)))
  t.same([...off].sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8], 'every pass is left unprofiled in some round: no fixed place')
  for (const { k, plan } of plans) {
    const profiled = plan.filter(Boolean)
    if (k === 0) t.same(profiled, [...Array(5).fill('perf'), 'v8'], 'round 0: V8 takes the last profiled pass')
    else t.same(profiled, Array(6).fill('perf'), 'later rounds: perf alone')
    if (k === 0 && profiled.length !== 6) break
  }
  t.same(passPlan(0, { passes: 2, profileRounds: 1 }, true, random).filter(Boolean), ['perf'], 'one profiled pass and one round: no V8 pass')
  t.same(passPlan(0, { passes: 2, profileRounds: 2 }, true, random).filter(Boolean), ['v8'], 'another round keeps perf\'s')
  t.same(passPlan(0, { passes: 5, profileRounds: 5 }, false, random).filter(Boolean), Array(4).fill('v8'), 'without perf, V8 takes every profiled pass')
  const again = mulberry32(7)
  t.same(passPlan(0, { passes: 8, profileRounds: 5 }, true, again), plans[0].plan, 'the run\'s seed decides')
})

const SMALL = ['--kinds=sync,async', '--ioDelay=off', '--nClients=1', '--aa=off', '--passes=3', '--window=20', '--warmOps=20', '--seed=3',
  '--rounds=1', '--maxRounds=1', '--maxInterference=1'] // no pass dropped for what else runs: the counts below are exact

t.test('quick --profile writes profile/ from its profiled rounds and the report explains each comparison', async (t) => {
  const root = t.testdir({ results: {}, data: {} })
  const { code, stderr } = await runSweep(t, ['quick', '--profile', '--profileRounds=2', ...SMALL,
    `--results=${path.join(root, 'results')}`, `--dataPath=${path.join(root, 'data')}`])
  t.equal(code, 0, stderr)
  const dir = resultsDir(path.join(root, 'results'))
  t.same(readSummary(dir).map((r) => r.repeat), ['1', '1'], 'summary.csv: the verdict round alone')
  const doc = JSON.parse(fs.readFileSync(path.join(dir, 'profile', 'profile.json'), 'utf8'))
  const noPerf = perfProblem()
  t.equal(doc.mode, noPerf ? 'v8' : 'perf')
  t.equal(doc.note, noPerf ?? '')
  const cells = ['sync-s1-c1-doff', 'async-s1-c1-doff']
  t.same(Object.keys(doc.cells).sort(), [...cells].sort())
  for (const id of cells) {
    const cell = doc.cells[id]
    t.same(cell.rounds.map((r) => r.round), [2, 3], `${id}: the profiled rounds, numbered after the verdict round`)
    for (const r of cell.rounds) {
      // 2 of the 3 passes profiled: round 2 (the first profiled) one perf's and one V8's; round 3 both perf's (without perf: V8's).
      const windows = noPerf || r.round === 3 ? 2 : 1
      t.equal(r.requests, windows * 20, `${id} round ${r.round}: the requests of its ${windows} profiled windows`)
      t.ok(r.serverCpuUs > 0, 'measured')
      t.ok(r.opsPerSec.profiled > 0 && r.opsPerSec.unprofiled > 0, 'the throughput of profiled and unprofiled windows')
    }
    // A window of 20 requests lasts a few ms, a perf sample every 4 ms on each CPU: a round may get none.
    t.ok(cell.rounds.reduce((a, r) => a + r.sampledUs, 0) > 0, `${id}: sampled`)
    const waits = cell.rounds[0].waits
    t.ok(id.startsWith('sync') ? waits.syncCalls > 0 && waits.poolCalls === 0 : waits.poolCalls > 0 && waits.syncCalls === 0,
      `${id}: its fs calls were timed where they wait`)
    // Its pool threads' work, sampled in each window: async's only (a few ms of windows, every 10 ms: 0 is possible).
    t.equal(cell.rounds.every((r) => Number.isFinite(r.waits.poolHeldUs)), id.startsWith('async'), `${id}: its pool threads sampled, or not`)
    t.equal(cell.rounds.every((r) => Number.isFinite(r.waits.poolBoundUs) && r.waits.poolWindowUs > 0), id.startsWith('async'),
      `${id}: its loop sampled for waits on a full pool over its windows' time, or not`)
    t.match(fs.readFileSync(path.join(dir, cell.folded), 'utf8'), /^single;main;/m, `${id}: folded stacks, by process and thread`)
    t.same(cell.cpuprofiles, [`profile/${id}/single.cpuprofile`], `${id}: V8's profile of its one process`)
    t.ok(JSON.parse(fs.readFileSync(path.join(dir, cell.cpuprofiles[0]), 'utf8')).samples.length > 0, 'with samples')
    t.ok(fs.existsSync(path.join(dir, 'profile', `${id}.html`)), `${id}: its flame graph`)
  }
  t.ok(fs.existsSync(path.join(dir, 'profile', 'diff-sync-s1-c1-doff-vs-async-s1-c1-doff.html')), 'the comparison\'s differential flame graph')
  t.match(fs.readFileSync(path.join(dir, 'report.html'), 'utf8'), /<section id="why">[\s\S]*sync vs async, 1 process/, 'the report explains')
  t.notOk(fs.existsSync(path.join(dir, 'profile', 'v8')), 'the processes\' profiles folder is gone')
  // Each cell's server logs: the verdict round's server (<cell>.log) ran without the profilers' flags, the profiled
  // rounds' (<cell>-g2.log, the second generation) with them.
  const flagged = (file) => /^# profile: the server starts with the profilers' flags/m.test(fs.readFileSync(path.join(dir, 'cells', file), 'utf8'))
  for (const id of cells) t.same([`${id}.log`, `${id}-g2.log`].map(flagged), [false, true], `${id}: flags on the profiled rounds' server only`)
  const left = loggedPids(dir).filter((pid) => fs.existsSync(`/tmp/perf-${pid}.map`))
  t.same(left, [], 'no JIT map of a server is left in /tmp')
})

t.test('the profiled rounds come in phases too: the page cache\'s cells, then the 1 ms cells, each in rounds of their own', { skip: checkFuse() },
  async (t) => {
    const root = t.testdir({ results: {}, data: {} })
    const { code, stderr } = await runSweep(t, ['quick', '--profile', '--profileRounds=1', ...SMALL, '--ioDelay=off,1000',
      `--results=${path.join(root, 'results')}`, `--dataPath=${path.join(root, 'data')}`])
    t.equal(code, 0, stderr)
    const doc = JSON.parse(fs.readFileSync(path.join(resultsDir(path.join(root, 'results')), 'profile', 'profile.json'), 'utf8'))
    const rounds = Object.fromEntries(Object.entries(doc.cells).map(([id, cell]) => [id, cell.rounds.map((r) => r.round)]))
    t.same(rounds, { 'sync-s1-c1-doff': [3], 'async-s1-c1-doff': [3], 'sync-s1-c1-d1000': [4], 'async-s1-c1-d1000': [4] },
      'verdict rounds 1 (the page cache) and 2 (1 ms), then profiled round 3 for the page cache\'s cells and 4 for the 1 ms cells')
    t.match(stderr, /profiled round 1 of 1 \(the page cache\)[^]*profiled round 1 of 1 \(storage or a link that waits\)/)
  })

t.test('--profile profiles this machine only, and not capacity\'s searches', async (t) => {
  const capacity = await runSweep(t, ['capacity', '--profile'])
  t.equal(capacity.code, 2)
  t.match(capacity.stderr, '--profile is for sweep, quick, versions and run')
  const remote = await runSweep(t, ['quick', '--profile', '--serverHost=127.0.0.1'])
  t.equal(remote.code, 2)
  t.match(remote.stderr, '--profile profiles servers on this machine; with --serverHost the server runs on 127.0.0.1')
})
