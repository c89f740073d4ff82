'use strict'
// sweep/rounds.js end to end on small windows: passes disturbed by other processes are dropped and
// run again, judged by the interference figure alone; rounds stop on precision, on the budget or
// at --maxRounds, never before --rounds clean ones; the report says what happened.

const { spawn } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { parse } = require('csv-parse/sync')
const { runSweep, resultsDir, readSummary, loggedPids, isGone } = require('./fixtures/sweep-run')

const SMALL = ['--kinds=sync,async', '--nClients=1', '--aa=off', '--passes=2', '--window=20', '--warmOps=20', '--seed=3']
const readCsv = (file) => parse(fs.readFileSync(file, 'utf8'), { columns: true })

function folders (t) {
  const root = t.testdir({ results: {}, data: {} })
  return { results: path.join(root, 'results'), args: [`--results=${path.join(root, 'results')}`, `--dataPath=${path.join(root, 'data')}`] }
}

// Two busy loops outside the sweep's process tree (setsid), one per core, for `seconds`.
function busyLoops (t, seconds) {
  const loops = [0, 1].map(() => spawn('setsid', [process.execPath, '-e', `const end = Date.now() + ${seconds * 1000}; while (Date.now() < end);`],
    { stdio: 'ignore', env: { ...process.env, NODE_OPTIONS: '' } }))
  t.teardown(() => { for (const loop of loops) if (loop.exitCode === null) loop.kill('SIGKILL') })
  return loops
}

t.test('passes that other processes disturbed are dropped and run again; too few clean ones make the round disturbed', async (t) => {
  const f = folders(t)
  busyLoops(t, 60)
  // A short budget: a dropped pass waits for the machine to be quiet, but not past the budget.
  const { code, stderr } = await runSweep(t, ['sweep', ...SMALL, '--rounds=1', '--maxRounds=3', '--maxInterference=0.05', '--budget=4', ...f.args])
  t.equal(code, 1, 'exit 1: its rows are invalid')
  const dir = resultsDir(f.results)
  const passes = readCsv(path.join(dir, 'passes.csv'))
  const dropped = passes.filter((p) => p.kept === 'false')
  t.ok(dropped.length > 0, `${dropped.length} of ${passes.length} passes dropped`)
  for (const p of dropped) {
    t.ok(Number(p.interference) > 0.05 && Math.abs(Number(p.other) + Number(p.steal) - Number(p.interference)) < 2e-4,
      `pass ${p.round}.${p.pass}: ${p.interference} > 0.05, other plus steal`)
  }
  for (const p of passes.filter((x) => x.kept === 'true')) t.ok(Number(p.interference) <= 0.05, 'a kept pass was within the limit')
  t.equal(passes.filter((p) => p.round === '1').length, 4, 'round 1 tried each of its 2 passes twice at most: 4 passes')
  const env = JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8'))
  t.match(env.rounds, { disturbed: 2, stop: '2 disturbed rounds, more than --rounds=1' }, 'a disturbed round is run again, at most --rounds more')
  const rows = readSummary(dir)
  t.same(rows.map((r) => r.reason.replace(/\d+/g, 'N')), rows.map(() => 'disturbed: N of N passes had more than N% of the CPU taken by others (N of N clean)'))
  t.match(stderr, /stopped: 2 disturbed rounds, more than --rounds=1/)
  const page = fs.readFileSync(path.join(dir, 'report.html'), 'utf8').replace(/\s+/g, ' ')
  t.match(page, new RegExp(`${dropped.length} of ${passes.length} passes and 2 rounds were disturbed by other work and measured again`))
  t.ok(fs.existsSync(path.join(dir, 'charts', 'interference.svg')), 'the interference chart is drawn')
  t.same(loggedPids(dir).filter((pid) => !isGone(pid)), [], 'no process is left')
})

t.test('rounds stop once every headline interval is narrow enough to decide, not before --rounds', async (t) => {
  const f = folders(t)
  const { code, stderr } = await runSweep(t, ['sweep', ...SMALL, '--rounds=6', '--maxRounds=30', '--margin=0.99', '--maxInterference=1', ...f.args])
  t.equal(code, 0, stderr)
  const env = JSON.parse(fs.readFileSync(path.join(resultsDir(f.results), 'env.json'), 'utf8'))
  t.match(env.rounds, { disturbed: 0, stop: 'every headline interval is narrow enough to decide (under 99% wide)' })
  t.ok(env.rounds.rounds >= 6, `${env.rounds.rounds} rounds, not fewer than --rounds=6`)
  // When the interval first gets narrow enough depends on the measurements; that it stops right then does not.
  const log = readCsv(path.join(resultsDir(f.results), 'rounds.csv'))
  const precise = log.map((r) => r.precision.startsWith('1 of 1 intervals narrow enough to decide (under 99% wide'))
  t.equal(precise.length, env.rounds.rounds, 'one line per round')
  t.same(precise.slice(0, 5), [false, false, false, false, false], 'no interval before 6 rounds (95% needs 6)')
  t.same(precise.slice(5), [...precise.slice(5, -1).map(() => false), true], 'it stops at the first round whose interval is narrow enough')
})

t.test('a budget too small still runs --rounds rounds, then stops', async (t) => {
  const f = folders(t)
  // 0.1 s: starting the servers alone takes longer, so every round after --rounds would overrun it.
  const { code, stderr } = await runSweep(t, ['sweep', ...SMALL, '--rounds=2', '--maxRounds=30', '--budget=0.1', '--maxInterference=1', ...f.args])
  t.equal(code, 0, stderr)
  const env = JSON.parse(fs.readFileSync(path.join(resultsDir(f.results), 'env.json'), 'utf8'))
  t.match(env.rounds, { rounds: 2, stop: 'another round would overrun the budget of 0.1 s' })
  t.equal(readSummary(resultsDir(f.results)).length, 4, 'two cells, two rounds')
})

t.test('--restartEvery starts every server afresh, warmed up again, every N rounds', async (t) => {
  const f = folders(t)
  const { code, stderr } = await runSweep(t, ['sweep', ...SMALL, '--rounds=3', '--maxRounds=3', '--restartEvery=2', '--maxInterference=1', ...f.args])
  t.equal(code, 0, stderr)
  const dir = resultsDir(f.results)
  const logs = fs.readdirSync(path.join(dir, 'cells')).filter((name) => name.endsWith('.log') && name !== 'pool.log').sort()
  t.same(logs, ['async-s1-c1-g2.log', 'async-s1-c1.log', 'sync-s1-c1-g2.log', 'sync-s1-c1.log'], 'rounds 1-2 on the first servers, round 3 on new ones')
  t.match(stderr, /warmed up in .*\n(.*\n)*.*warmed up in/, 'warmed up twice')
  t.ok(readSummary(dir).every((r) => r.valid === 'true'), 'every round valid, verification per generation included')
  t.same(loggedPids(dir).filter((pid) => !isGone(pid)), [], 'no process is left')
})
