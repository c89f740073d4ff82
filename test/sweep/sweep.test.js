'use strict'
// End to end: ./run_benchmark.sh with the real servers and client writes a complete results
// folder, records failed cells as invalid, stops cleanly on Ctrl-C, and leaves no process behind.

const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')
const t = require('tap')
const { startSweep, runSweep, resultsDir, readSummary, loggedPids, isGone } = require('../fixtures/sweep-run')
const { COLUMNS } = require('../../sweep/cell/cell')
const { uvThreadpoolSize, uvUseIoUring } = require('../../lib/results/environment')
const { groupMembers } = require('../../sweep/cell/process-group')
const { parseHgrm } = require('../../lib/results/hgrm')
const { hasProc } = require('../../lib/platform')
const { median } = require('../../lib/median')
const { parse } = require('csv-parse/sync')

const readCsvRows = (file) => parse(fs.readFileSync(file, 'utf8'), { columns: true })

const ENV_FIELDS = ['node', 'cpus', 'oversubscriptionNote', 'loadAverage', 'cpuModel', 'totalMemBytes', 'platform', 'release', 'uvThreadpoolSize',
  'uvUseIoUring', 'notes', 'schedPolicy', 'schedPolicyDefault', 'gitCommit', 'packages', 'command', 'argv', 'seed', 'config', 'startedAt', 'finishedAt']
// The columns before these are the original ones, unchanged and in their order.
// The columns of the first summary.csv: older readers find them by name in every folder since.
const FIRST_COLUMNS = ['cell', 'repeat', 'order', 'kind', 'nServers', 'nClients', 'uvThreadpoolSize', 'schedPolicy', 'readsPerWrite',
  'valueBytes', 'oversubscribed', 'valid', 'reason', 'wallTimeMs', 'opsPerSec', 'getMean', 'getP50', 'getP99', 'getMax', 'putMean',
  'putP50', 'putP99', 'putMax', 'errors', 'clientCpuUs', 'serverCpuUs', 'json']

const folders = (t) => {
  const root = t.testdir({ results: {}, data: {} })
  return {
    results: path.join(root, 'results'),
    data: path.join(root, 'data'),
    args: [`--results=${path.join(root, 'results')}`, `--dataPath=${path.join(root, 'data')}`]
  }
}

// Small windows and a short warm-up: the interleaved engine end to end in a few seconds.
// --maxInterference=1: other tests share the machine; only test/sweep/interleaved/rounds.test.js tests interference.
const SMALL = ['--rounds=2', '--maxRounds=2', '--passes=2', '--window=40', '--warmOps=40', '--maxInterference=1']

t.test('a small sweep writes every file of the results folder, all valid, with the A/A cell, and leaves no process', async (t) => {
  const f = folders(t)
  const { code, stdout, stderr } = await runSweep(t, ['sweep', '--kinds=sync,async-cluster', '--nServers=2', '--nClients=2',
    '--schedPolicy=none', '--aa=async-cluster:2:1', ...SMALL, '--seed=7', ...f.args])
  t.equal(code, 0, stderr)
  const dir = resultsDir(f.results)
  t.match(path.basename(dir), /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-sweep$/)
  t.equal(stdout, `${path.join(dir, 'report.html')}\n${fs.readFileSync(path.join(dir, 'answer.txt'), 'utf8')}`, 'stdout is the report path, then the verdicts')
  const env = JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8'))
  for (const field of ENV_FIELDS) t.ok(Object.hasOwn(env, field), `env.json has ${field}`)
  t.equal(env.seed, 7)
  t.equal(env.command, 'sweep')
  t.match(env.packages, { express: String, autocannon: String })
  t.ok(Date.parse(env.finishedAt) >= Date.parse(env.startedAt))
  t.match(env.rounds, { rounds: 2, disturbed: 0, stop: '2 rounds (--maxRounds)', timing: { start: Number, warm: Number, measured: Number } })
  t.match(stderr, /sweep: 2 rounds \(0 disturbed\); stopped: 2 rounds \(--maxRounds\)/)
  t.match(env.fingerprint, { cpuModel: String, cores: Number, costs: { poolTripUs: { estimate: Number }, httpRoundTripUs: { estimate: Number } } },
    'the machine\'s fingerprint, measured as the run started')
  t.match(stderr, /^sweep: machine: .+ cores, .+; pool trip [\d.,]+ µs \[/m, 'its line, printed')

  t.same(env.grid.aa, { kind: 'async-cluster', nServers: 2, nClients: 1 })
  t.same(env.grid.schedPolicy, ['none'])

  const header = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8').split('\n')[0].split(',')
  t.same(header, COLUMNS)
  t.same(FIRST_COLUMNS.filter((c) => !header.includes(c)), [], 'every column of the first summary.csv is there')
  t.equal(new Set(header).size, header.length, 'no column twice')
  const rows = readSummary(dir)
  // A policy given (even one) is a dimension: in the ids, and in every server's environment.
  const aa = 'async-cluster-s2-c1-sp-none'
  const ids = ['async-cluster-s2-c1-sp-none', 'async-cluster-s2-c1-sp-none-B', 'async-cluster-s2-c2-sp-none', 'sync-s1-c2-sp-none']
  t.same([...new Set(rows.map((r) => r.cell))].sort(), ids)
  t.same(rows.map((r) => [r.repeat, r.order]), [1, 2, 3, 4, 5, 6, 7, 8].map((order) => [String(order <= 4 ? 1 : 2), String(order)]), 'a row per cell and round')
  for (const row of rows) {
    t.equal(row.valid, 'true', `${row.cell} r${row.repeat} is valid`)
    t.equal(row.reason, '')
    t.ok(Number(row.opsPerSec) > 0 && Number(row.getP99) > 0 && Number(row.serverCpuUs) > 0, `${row.cell} has figures`)
    t.equal(row.nServers, row.kind === 'sync' ? '1' : '2')
    t.equal(row.variant, row.cell === `${aa}-B` ? 'B' : '', `${row.cell} variant`)
    t.match(row, { uvThreadpoolSize: String(uvThreadpoolSize()), schedPolicy: 'none' }, 'the effective thread-pool size, the policy given')
    t.match(row, { runtime: `node-${env.node}`, v8: /^\d+\./, uv: /^1\./ }, 'without --node every cell runs on the sweep\'s Node, and says which')
    const name = `cells/${row.cell}-r${row.repeat}`
    t.equal(row.json, `${name}.json`)
    const json = JSON.parse(fs.readFileSync(path.join(dir, row.json), 'utf8'))
    t.equal(json.ok, true)
    t.match(json.windows, { operations: 40, kept: 2 }, 'two kept windows of 40 operations')
    t.match(json.verification, { checked: true, ok: true, lost: 0 }, 'every acknowledged write so far is in the files')
    t.match(fs.readFileSync(path.join(dir, `${name}.csv`), 'utf8'), /^PUT\/GET,Min,Mean,101% of Mean,Max/)
    for (const op of ['GET', 'PUT']) {
      const hgrm = parseHgrm(fs.readFileSync(path.join(dir, `${name}-${op}.hgrm`), 'utf8'))
      t.equal(hgrm.totalCount, json.latency[op].count, `${name}-${op}.hgrm counts the round's ${op}s`)
      const p50 = hgrm.rows.find((r) => r.percentile === 0.5).valueMs * 1000
      t.ok(Math.abs(p50 - json.latency[op].p50) <= 1, `and has its p50 (${p50} µs)`)
      t.ok(fs.existsSync(path.join(dir, 'hgrm', `${row.cell}-${op}.hgrm`)), `the report wrote ${row.cell}'s merged ${op} spectrum`)
    }
    const log = fs.readFileSync(path.join(dir, `cells/${row.cell}.log`), 'utf8')
    t.match(log, /listening http:\/\/127\.0\.0\.1:\d+ /, 'one server per cell for the whole run, its log named after the cell')
    t.match(log, `# server environment: UV_THREADPOOL_SIZE=${uvThreadpoolSize()} NODE_CLUSTER_SCHED_POLICY=none UV_USE_IO_URING=${uvUseIoUring()}\n`)
    checkCost(t, row, json)
  }
  const records = (name) => fs.readFileSync(path.join(dir, name), 'utf8').trim().split('\n')
  t.equal(records('rounds.csv').length, 3, 'rounds.csv: a header and a line per round')
  const passes = readCsvRows(path.join(dir, 'passes.csv'))
  t.ok(passes.filter((p) => p.kept === 'true').length === 4, 'passes.csv: 2 clean passes per round')
  for (const p of passes) t.ok(Number(p.interference) >= 0 && Number(p.interference) <= 1, `pass ${p.round}.${p.pass}: interference ${p.interference}`)
  const windows = readCsvRows(path.join(dir, 'windows.csv'))
  t.equal(windows.length, 4 * passes.length, 'windows.csv: every cell once per pass')
  const verdicts = JSON.parse(fs.readFileSync(path.join(dir, 'verdicts.json'), 'utf8'))
  t.match(verdicts.comparisons.find((v) => v.aa && v.metric === 'opsPerSec'), { a: aa, b: `${aa}-B`, n: 2, verdict: 'undecided' },
    'two rounds give no 95% interval: every verdict is undecided')
  const bound = rows.filter((r) => r.clientBound === 'true').map((r) => r.cell)
  t.equal(/\n\* client-bound in most valid repeats/.test(stderr), bound.length > 0, 'the table has the footnote iff a row is client-bound')
  for (const id of ids) t.match(stderr, new RegExp(`\\n${id}${bound.includes(id) ? ' \\*' : ''} +2/2 `), `${id} is in the table`)
  t.ok(fs.readFileSync(path.join(dir, 'report.html'), 'utf8').length > 0)
  t.ok(fs.readdirSync(path.join(dir, 'charts')).some((file) => file.endsWith('.svg')))
  t.same(fs.readdirSync(f.data), [], 'cell data folders are removed')
  const pids = loggedPids(dir)
  // Without /proc a group's members are not seen, only the processes started: the servers and clients.
  t.ok(pids.length >= (hasProc() ? 10 : 6), `servers, workers and client processes are logged (${pids.length})`)
  t.same(pids.filter((pid) => !isGone(pid)), [], 'no process is left')

  fs.rmSync(path.join(dir, 'report.html'))
  const again = await runSweep(t, ['report', dir])
  t.equal(again.code, 0, again.stderr)
  t.equal(again.stdout, stdout, 'the same path and verdict lines')
  t.ok(fs.existsSync(path.join(dir, 'report.html')), 'report DIR renders the report again')
  t.match(await runSweep(t, ['report', f.data]), { code: 2, stderr: /report needs one results folder/ })
})

// The telemetry and CPU-per-request columns of a valid row, against its JSON.
function checkCost (t, row, json) {
  const measured = json.operations.completed + json.operations.failed
  t.equal(Number(row.serverRequests), measured, `${row.cell}: the server counted the measured operations`)
  t.equal(measured, 2 * 40)
  t.ok(Number(row.fairness) > 0 && Number(row.fairness) <= 1, `${row.cell}: fairness ${row.fairness} in (0, 1]`)
  t.ok(Number(row.meanUtilization) > 0 && Number(row.meanUtilization) <= 1, `${row.cell}: utilization ${row.meanUtilization}`)
  // 80 operations may take less than the delay monitor's 10 ms sampling interval: then no sample, and both are empty.
  const sampled = row.eldP50Us !== ''
  t.ok(sampled ? Number.isFinite(Number(row.eldP50Us)) && Number(row.eldP99Us) >= Number(row.eldP50Us) : row.eldP99Us === '',
    `${row.cell}: delay p50 ${row.eldP50Us} <= p99 ${row.eldP99Us}`)
  const shares = row.workerShares.split(';').map(Number)
  t.equal(shares.length, Number(row.nServers), `${row.cell}: one share per worker`)
  t.ok(Math.abs(shares.reduce((a, b) => a + b, 0) - 1) < 0.01, `${row.cell}: shares ${row.workerShares} add up to 1`)
  const { user, system } = json.clientCpuUs
  t.equal(Number(row.clientCpuPerReqUs), Number(((user + system) / measured).toFixed(1)))
  t.equal(Number(row.serverCpuPerReqUs), Number((json.serverStats.totals.cpuUs / measured).toFixed(1)))
  const bound = Number(row.clientCpuPerReqUs) > Number(row.serverCpuPerReqUs) && Number(row.meanUtilization) < 0.8
  t.equal(row.clientBound, String(bound), `${row.cell}: clientBound follows the rule`)
}

t.test('--fairWindows: after the first round the slower cell\'s windows shrink, and every round still verifies', async (t) => {
  const f = folders(t)
  // GETs of 1 MiB files against 1 KiB ones: the one cell about twice as slow as the other (a like pair, sync and its A/A copy,
  // came out within the rounding of a window's size in some runs, and neither was resized).
  const { code, stderr } = await runSweep(t, ['sweep', '--kinds=sync', '--nServers=1', '--nClients=2', '--fileBytes=1024,1048576', '--nFiles=4',
    '--readsPerWrite=inf', '--getBody=bytes', '--fairWindows=true', '--aa=off', ...SMALL, '--seed=8', ...f.args])
  t.equal(code, 0, stderr)
  const dir = resultsDir(f.results)
  const resized = [...stderr.matchAll(/^sweep: ([\w-]+): windows of (\d+) operations \(\d+ ms\), not (\d+) \(\d+ ms\)$/gm)]
  // The slower in round 1 (the median of its kept windows' times, windows.csv): most often the 1 MiB cell, but a busy machine
  // has made the 1 KiB cell's windows the longer.
  const round1 = readCsvRows(path.join(dir, 'windows.csv')).filter((w) => w.round === '1' && w.kept === 'true')
  const msOf = (id) => median(round1.filter((w) => w.cell === id).map((w) => Number(w.wallUs)))
  const [slower] = ['sync-s1-c2-rpwinf-fb1024', 'sync-s1-c2-rpwinf-fb1048576'].sort((a, b) => msOf(b) - msOf(a))
  t.same(resized.map((m) => m[1]), [slower], `the slower cell in round 1 resized (${slower}), the other not`)
  for (const [, id, ops, before] of resized) {
    const windows = (round) => JSON.parse(fs.readFileSync(path.join(dir, 'cells', `${id}-r${round}.json`), 'utf8')).windows.operations
    t.same([windows(1), windows(2)], [Number(before), Number(ops)], `${id}: round 1 at --window, round 2 resized`)
    t.ok(Number(ops) < Number(before) && Number(ops) >= 10 * (id.includes('-c4') ? 4 : 2), `${id}: ${ops} operations, fewer, not under 10 per client process`)
  }
  const rows = readCsvRows(path.join(dir, 'summary.csv'))
  t.same(rows.map((r) => [r.valid, r.reason]), Array(4).fill(['true', '']), 'every row of 2 cells × 2 rounds valid: the files\' bytes checked')
  // GETs only: the files never change, so they are not created again before round 2 (a 1 MiB data set written again for nothing).
  const runIds = (id) => [1, 2].map((round) => JSON.parse(fs.readFileSync(path.join(dir, 'cells', `${id}-r${round}.json`), 'utf8')).runId)
  t.equal(new Set(runIds('sync-s1-c2-rpwinf-fb1048576')).size, 1, 'the same files and load generators in both rounds')
})

t.test('Ctrl-C stops the current cell, keeps the finished ones and exits 130', async (t) => {
  const f = folders(t)
  // rate bounds each run below at 3 s, so the second run is still going when we interrupt it.
  const { child, done } = startSweep(t, ['run', 'sync', '--rounds=2', '--nClients=1', '--nOperations=600',
    '--rate=200', ...f.args])
  const secondLog = () => {
    try {
      return fs.readFileSync(path.join(resultsDir(f.results), 'cells', 'sync-s1-c1-r2.log'), 'utf8')
    } catch {
      return ''
    }
  }
  for (let i = 0; i < 1200 && !/listening/.test(secondLog()); i++) await sleep(50)
  t.match(secondLog(), /listening/, 'the second run started')
  process.kill(-child.pid, 'SIGINT')
  const { code, stderr } = await done
  t.equal(code, 130)
  t.match(stderr, /interrupted: 1 of 2 runs kept/)
  const dir = resultsDir(f.results)
  const rows = readSummary(dir)
  t.same(rows.map((r) => [r.cell, r.repeat, r.valid]), [['sync-s1-c1', '1', 'true']])
  t.equal(JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8')).interrupted, true)
  t.same(loggedPids(dir).filter((pid) => !isGone(pid)), [], 'no process is left')
  t.same(fs.readdirSync(f.data), [], 'data folders are removed')
})

t.test('SIGKILL of the sweep mid-cell leaves no server, worker or client process',
  { skip: !hasProc() && 'a group\'s workers are seen in /proc, not here' }, async (t) => {
    const f = folders(t)
    const { child, done } = startSweep(t, ['run', 'sync-cluster', '--nServers=2', '--nClients=2', '--nOperations=2000',
      '--rate=200', ...f.args])
    const log = () => {
      try {
        return fs.readFileSync(path.join(resultsDir(f.results), 'cells', 'sync-cluster-s2-c2-r1.log'), 'utf8')
      } catch {
        return ''
      }
    }
    for (let i = 0; i < 1200 && !/started pid \d+ .*node client/.test(log()); i++) await sleep(50)
    t.match(log(), /node client/, 'the client is running')
    const pids = loggedPids(resultsDir(f.results))
    t.ok(pids.length >= 2, 'the server and the client were started')
    // Each started pid leads a process group; workers and client processes are its members. Counted
    // before the kill: the server watches the sweep and may be stopping by the time `done` resolves.
    const running = groupMembers(pids[0]).length
    process.kill(child.pid, 'SIGKILL') // the sweep alone: its children must notice by themselves
    await done
    t.ok(running >= 3, 'a primary and its two workers were running')
    const alive = () => pids.flatMap((pgid) => groupMembers(pgid).map((m) => m.pid))
    // A server stops within its grace (4.5 s, then SIGKILL to its workers); a busy machine can stretch that: 15 s allowed.
    for (let i = 0; i < 300 && alive().length > 0; i++) await sleep(50)
    t.same(alive(), [], 'every process the sweep started is gone')
  })

t.test('a busy port gives an invalid row with the server\'s reason, and exit 1', async (t) => {
  const f = folders(t)
  const blocker = net.createServer().listen(0, '127.0.0.1')
  await new Promise((resolve) => blocker.on('listening', resolve))
  t.teardown(() => blocker.close())
  const { code } = await runSweep(t, ['run', 'sync', `--serverPort=${blocker.address().port}`, ...f.args])
  t.equal(code, 1)
  const [row] = readSummary(resultsDir(f.results))
  t.equal(row.valid, 'false')
  t.match(row.reason, /^server exited \(code 1\) before it was ready: .*already in use/)
})

t.test('a server that is not ready in time gives an invalid row and no process left', async (t) => {
  const f = folders(t)
  const { code } = await runSweep(t, ['run', 'async-cluster', '--nServers=2', '--nClients=1', '--readyTimeout=1', '--keepData=true', ...f.args])
  t.equal(code, 1)
  const dir = resultsDir(f.results)
  const [row] = readSummary(dir)
  t.equal(row.valid, 'false')
  t.equal(row.reason, 'server not ready within 0.001 s')
  t.same(loggedPids(dir).filter((pid) => !isGone(pid)), [])
  const [dataRoot] = fs.readdirSync(f.data)
  t.same(fs.readdirSync(path.join(f.data, dataRoot)).sort(), ['async-cluster-s2-c1-r1', 'async-cluster-s2-c1-r1.json'], '--keepData keeps the data')
})

t.test('a bad flag exits 2 with one line naming the flag and value, and writes nothing', async (t) => {
  const f = folders(t)
  for (const [args, message] of [
    [['quick', '--nClients=1,zero'], /--nClients must be an integer from 1 to 256, got "zero" in "1,zero"/],
    [['sweep', '--kinds=sync,fast'],
      /--kinds must be one of sync, async, sync-cluster, async-cluster, sync-reuseport, async-reuseport, sync-lb, async-lb, sync-pool, got "fast"/],
    [['quick', '--rounds=0'], /--rounds must be an integer from 1 to 1000, got "0"/],
    [['quick', '--repeats=3'], /--repeats is now --rounds/],
    [['quick', '--budget=soon'], /--budget must be a duration above 0/],
    [['run', 'sync', '--passes=3'], /--passes is for the interleaved commands/],
    [['run', 'sync', '--profileRounds=3'], /--profileRounds is how many profiled rounds --profile adds: give --profile too/],
    [['run'], /run needs a KIND/],
    [['fly'], /unknown command "fly"/]
  ]) {
    const { code, stdout, stderr } = await runSweep(t, [...args, ...f.args])
    t.equal(code, 2, args.join(' '))
    t.equal(stdout, '')
    t.match(stderr, message)
    t.equal(stderr.trim().split('\n').length, 1, 'one line')
  }
  t.same(fs.readdirSync(f.results), [])
})
