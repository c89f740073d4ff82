'use strict'
// sweep/interleaved/rounds.js end to end on small windows: passes disturbed by other processes are dropped and
// run again, judged by the interference figure alone; rounds stop on precision, on the budget or
// at --maxRounds, never before --rounds clean ones; the report says what happened. The disturbance
// is scripted (test/fixtures/scripted-sweep.js), not made by busy processes: the test neither
// depends on how busy the machine is nor makes it busy for the tests that run beside it.

const { spawn } = require('node:child_process')
const { once } = require('node:events')
const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { parse } = require('csv-parse/sync')
const { runSweep, resultsDir, readSummary, loggedPids, isGone } = require('../../fixtures/sweep-run')

const SMALL = ['--kinds=sync,async', '--nClients=1', '--aa=off', '--passes=2', '--window=20', '--warmOps=20', '--seed=3']
const readCsv = (file) => parse(fs.readFileSync(file, 'utf8'), { columns: true })
const SCRIPTED = path.join(__dirname, '..', '..', 'fixtures', 'scripted-sweep.js')

function folders (t) {
  const root = t.testdir({ results: {}, data: {} })
  return { results: path.join(root, 'results'), args: [`--results=${path.join(root, 'results')}`, `--dataPath=${path.join(root, 'data')}`] }
}

// The sweep on a machine whose figures are `figures`, in the order it reads them; in its own process
// group, killed at the test's teardown (as test/fixtures/sweep-run.js runs ./run_benchmark.sh).
function runScripted (t, args, figures) {
  const child = spawn(process.execPath, [SCRIPTED, ...args],
    { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SCRIPTED_MACHINE: JSON.stringify(figures) } })
  let stderr = ''
  child.stdout.resume()
  child.stderr.on('data', (d) => { stderr += d })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL') })
  return once(child, 'close').then(([code]) => ({ code, stderr }))
}

// Shares of the machine's CPU between two samples (lib/machine/cpu-share.js interferenceBetween's fields).
const figures = (other, steal, interference) => ({ seconds: 0.4, own: 0.3, other, steal, iowait: 0, interference, runnable: 3, load1: 1.5 })
const BUSY = figures(0.4, 0.1, 0.5)
const STILL_BUSY = figures(0.3, 0, 0.3)
const QUIET = figures(0.01, 0, 0.01)
const CLEAN = figures(0.02, 0.01, 0.03)

t.test('passes that other processes disturbed are dropped and run again; too few clean ones make the round disturbed', async (t) => {
  const f = folders(t)
  // The machine after each pass, and while a dropped pass waits for it to be quiet (every 20 ms here).
  const script = [
    BUSY, STILL_BUSY, QUIET, CLEAN, BUSY, QUIET, BUSY, QUIET, // round 1: passes 1, 3 and 4 dropped, 2 kept
    BUSY, QUIET, BUSY, QUIET, BUSY, QUIET, BUSY, QUIET // round 2: every pass dropped
  ]
  const { code, stderr } = await runScripted(t, ['sweep', ...SMALL, '--rounds=1', '--maxRounds=3', '--maxInterference=0.05', '--budget=600', ...f.args], script)
  t.equal(code, 1, `exit 1: its rows are invalid\n${stderr}`)
  const dir = resultsDir(f.results)
  const passes = readCsv(path.join(dir, 'passes.csv'))
  const dropped = (interference) => ['false', String(interference)]
  t.same(passes.map((p) => [p.round, p.pass, p.kept, p.interference]), [
    ['1', '1', ...dropped(0.5)], ['1', '2', 'true', '0.03'], ['1', '3', ...dropped(0.5)], ['1', '4', ...dropped(0.5)],
    ['2', '1', ...dropped(0.5)], ['2', '2', ...dropped(0.5)], ['2', '3', ...dropped(0.5)], ['2', '4', ...dropped(0.5)]
  ], 'a pass is kept exactly when its interference is within --maxInterference; a round tries each of its 2 passes twice at most')
  t.same(passes.map((p) => [p.other, p.steal]), passes.map((p) => (p.kept === 'true' ? ['0.02', '0.01'] : ['0.4', '0.1'])),
    'each pass records the figures it was judged by: others and steal')
  // A dropped pass waited for a quiet sample: pass 1.1 through one busy one, 20 ms apart (a timer may
  // fire a millisecond early by the clock that measures the wait, so a sample's wait counts from 18 ms).
  t.ok(Number(passes[0].waitedMs) >= 36, `pass 1.1 waited ${passes[0].waitedMs} ms for two samples`)
  for (const p of passes.filter((x) => x.kept === 'false').slice(1)) {
    t.ok(Number(p.waitedMs) >= 18, `pass ${p.round}.${p.pass} waited ${p.waitedMs} ms for a sample`)
  }
  const windows = readCsv(path.join(dir, 'windows.csv'))
  const pass = (p) => `${p.round}.${p.pass} ${p.kept}`
  t.same(windows.map(pass).sort(), passes.flatMap((p) => [pass(p), pass(p)]).sort(), 'both cells ran a window in every pass, dropped or kept')
  const env = JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8'))
  t.match(env.rounds, { rounds: 2, disturbed: 2, stop: '2 disturbed rounds, more than --rounds=1' }, 'a disturbed round is run again, at most --rounds more')
  const rows = readSummary(dir)
  t.same(rows.map((r) => [r.repeat, r.valid, r.reason]), [1, 1, 2, 2].map((round) => [String(round), 'false',
    `disturbed: ${round === 1 ? '3 of 4' : '4 of 4'} passes had more than 5% of the CPU taken by others (${round === 1 ? 1 : 0} of 2 clean)`]))
  t.match(stderr, /stopped: 2 disturbed rounds, more than --rounds=1/)
  const page = fs.readFileSync(path.join(dir, 'report.html'), 'utf8').replace(/\s+/g, ' ')
  t.match(page, '7 of 8 passes and 2 rounds were disturbed by other work and measured again')
  t.ok(fs.existsSync(path.join(dir, 'charts', 'interference.svg')), 'the interference chart is drawn')
  t.same(loggedPids(dir).filter((pid) => !isGone(pid)), [], 'no process is left')
})

t.test('a disturbed round measured again does not fail the run: its rows are invalid, the exit status 0', async (t) => {
  const f = folders(t)
  const script = [BUSY, QUIET, BUSY, QUIET, BUSY, QUIET, BUSY, QUIET] // round 1: every pass dropped; then a quiet machine
  const { code, stderr } = await runScripted(t, ['sweep', ...SMALL, '--rounds=1', '--maxRounds=2', '--maxInterference=0.05', '--budget=600', ...f.args], script)
  t.equal(code, 0, `exit 0: round 1 was measured again\n${stderr}`)
  const dir = resultsDir(f.results)
  t.match(JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8')).rounds, { disturbed: 1 })
  const rows = readSummary(dir)
  t.same(rows.filter((r) => r.repeat === '1').map((r) => r.valid), ['false', 'false'], 'round 1\'s rows are invalid')
  t.ok(rows.filter((r) => r.repeat !== '1').every((r) => r.valid === 'true') && rows.length > 2, 'the rounds after it are valid')
})

t.test('rounds stop once every headline interval is narrow enough to decide, not before --rounds', async (t) => {
  const f = folders(t)
  // Windows of 20 operations are noisy: a quiet machine needs about 10 rounds, a loaded one more. --maxRounds is
  // far above either, so that the interval, not the cap, ends the run.
  const { code, stderr } = await runSweep(t, ['sweep', ...SMALL, '--rounds=6', '--maxRounds=100', '--margin=0.99', '--maxInterference=1', ...f.args])
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
  const { code, stderr } = await runSweep(t, ['sweep', ...SMALL, '--rounds=2', '--maxRounds=30', '--budget=0.1', '--maxInterference=1',
    '--freshFiles=false', ...f.args])
  t.equal(code, 0, stderr)
  const env = JSON.parse(fs.readFileSync(path.join(resultsDir(f.results), 'env.json'), 'utf8'))
  t.match(env.rounds, { rounds: 2, stop: 'another round would overrun the budget of 0.1 s' })
  t.equal(readSummary(resultsDir(f.results)).length, 4, 'two cells, two rounds')
  // With --freshFiles=false the files grow through the run, and the report's first screen says how far (the answer depends on it).
  const page = fs.readFileSync(path.join(resultsDir(f.results), 'report.html'), 'utf8').replace(/\s+/g, ' ')
  const [, first, last] = /The files held up to ([\d.]+) records each after round 1 and ([\d.]+) by the end/.exec(page) ?? []
  t.ok(Number(last) > Number(first) && Number(first) >= 1, `the files grew: ${first} records after round 1, ${last} by the end`)
  t.match(stderr, `sweep: The files held up to ${first} records each after round 1 and ${last} by the end`, 'and the terminal says so')
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

t.test('by default every round starts from the files as created: each round appends to files of the same sizes', async (t) => {
  const f = folders(t)
  // asyncApi=handle keeps its descriptors open across rounds: the files are emptied in place, never replaced under it.
  // A data set (--fileBytes) is written again before each round: every file holds it at the end.
  const { code, stderr } = await runSweep(t, ['sweep', ...SMALL, '--asyncApi=handle', '--rounds=3', '--maxRounds=3',
    '--fileBytes=4096', '--keepData=true', '--maxInterference=1', ...f.args])
  t.equal(code, 0, stderr)
  const dir = resultsDir(f.results)
  const rows = readSummary(dir)
  t.equal(rows.length, 6, 'two cells, three rounds')
  t.ok(rows.every((r) => r.valid === 'true'), 'every round valid: its acknowledged records found, nothing lost or unknown')
  for (const cell of ['sync-s1-c1', 'async-s1-c1-api-handle']) {
    const docs = [1, 2, 3].map((round) => JSON.parse(fs.readFileSync(path.join(dir, 'cells', `${cell}-r${round}.json`), 'utf8')))
    const found = docs.map((d) => d.verification)
    t.equal(new Set(docs.map((d) => d.runId)).size, 3, `${cell}: each round's files created by load generators opened afresh`)
    // Each round: nFiles created records and the round's PUTs; files that kept growing would hold more every round.
    t.same(found.map((v) => v.records), [found[0].records, found[0].records, found[0].records], `${cell}: the same records each round`)
    t.ok(found.every((v) => v.ok && v.records === v.acknowledged), `${cell}: each round's files hold its acknowledged records`)
  }
  const data = path.join(path.dirname(f.results), 'data')
  const files = fs.readdirSync(data, { recursive: true }).filter((name) => /(^|\/)file-\d+$/.test(name)).map((name) => path.join(data, name))
  t.ok(files.length > 0 && files.every((file) => fs.statSync(file).size >= 4096), `the data set in each of ${files.length} files at the end`)
  const v = JSON.parse(fs.readFileSync(path.join(dir, 'cells', 'sync-s1-c1-r3.json'), 'utf8')).verification
  const page = fs.readFileSync(path.join(dir, 'report.html'), 'utf8').replace(/\s+/g, ' ')
  t.match(page, `Every round started from the files as created: at most ${(v.records / v.files).toFixed(1)} records a file`)
  t.match(stderr, 'sweep: Every round started from the files as created: at most', 'and the terminal says so')
})
