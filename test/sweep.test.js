'use strict'
// End to end: ./run_benchmark.sh with the real servers and client writes a complete results
// folder, records failed cells as invalid, stops cleanly on Ctrl-C, and leaves no process behind.

const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')
const t = require('tap')
const { startSweep, runSweep, resultsDir, readSummary, loggedPids, isGone } = require('./fixtures/sweep-run')

const ENV_FIELDS = ['node', 'cpus', 'cpuModel', 'totalMemBytes', 'platform', 'release', 'uvThreadpoolSize',
  'schedPolicy', 'gitCommit', 'packages', 'command', 'argv', 'seed', 'config', 'startedAt', 'finishedAt']

const folders = (t) => {
  const root = t.testdir({ results: {}, data: {} })
  return { results: path.join(root, 'results'), data: path.join(root, 'data'), args: [`--results=${path.join(root, 'results')}`, `--dataPath=${path.join(root, 'data')}`] }
}

t.test('a small sweep writes every file of the results folder, all valid, and leaves no process', async (t) => {
  const f = folders(t)
  const { code, stdout, stderr } = await runSweep(t, ['sweep', '--kinds=sync,async-cluster', '--nServers=2', '--nClients=1,2',
    '--repeats=1', '--nOperations=300', '--seed=7', ...f.args])
  t.equal(code, 0, stderr)
  const dir = resultsDir(f.results)
  t.match(path.basename(dir), /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-sweep$/)
  t.equal(stdout, `${path.join(dir, 'report.html')}\n`, 'stdout is the report path')
  const env = JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8'))
  for (const field of ENV_FIELDS) t.ok(Object.hasOwn(env, field), `env.json has ${field}`)
  t.equal(env.seed, 7)
  t.equal(env.command, 'sweep')
  t.match(env.packages, { express: String, autocannon: String })
  t.ok(Date.parse(env.finishedAt) >= Date.parse(env.startedAt))

  const rows = readSummary(dir)
  t.same(rows.map((r) => r.cell).sort(), ['async-cluster-s2-c1', 'async-cluster-s2-c2', 'sync-s1-c1', 'sync-s1-c2'])
  t.same(rows.map((r) => r.order), ['1', '2', '3', '4'])
  for (const row of rows) {
    t.equal(row.valid, 'true', `${row.cell} is valid`)
    t.equal(row.reason, '')
    t.ok(Number(row.opsPerSec) > 0 && Number(row.getP99) > 0 && Number(row.serverCpuUs) > 0, `${row.cell} has figures`)
    t.equal(row.nServers, row.kind === 'sync' ? '1' : '2')
    const name = `cells/${row.cell}-r1`
    t.equal(row.json, `${name}.json`)
    t.equal(JSON.parse(fs.readFileSync(path.join(dir, row.json), 'utf8')).ok, true)
    t.match(fs.readFileSync(path.join(dir, `${name}.csv`), 'utf8'), /\n/)
    t.match(fs.readFileSync(path.join(dir, `${name}.log`), 'utf8'), /listening http:\/\/127\.0\.0\.1:\d+ /)
  }
  t.ok(fs.readFileSync(path.join(dir, 'report.html'), 'utf8').length > 0)
  t.ok(fs.readdirSync(path.join(dir, 'charts')).some((file) => file.endsWith('.svg')))
  t.same(fs.readdirSync(f.data), [], 'cell data folders are removed')
  const pids = loggedPids(dir)
  t.ok(pids.length >= 12, 'servers, workers and clients are logged')
  t.same(pids.filter((pid) => !isGone(pid)), [], 'no process is left')

  fs.rmSync(path.join(dir, 'report.html'))
  const again = await runSweep(t, ['report', dir])
  t.equal(again.code, 0, again.stderr)
  t.equal(again.stdout, `${path.join(dir, 'report.html')}\n`)
  t.ok(fs.existsSync(path.join(dir, 'report.html')), 'report DIR renders the report again')
  t.match(await runSweep(t, ['report', f.data]), { code: 2, stderr: /report needs one results folder/ })
})

t.test('Ctrl-C stops the current cell, keeps the finished ones and exits 130', async (t) => {
  const f = folders(t)
  // rate bounds each run below at 3 s, so the second run is still going when we interrupt it.
  const { child, done } = startSweep(t, ['run', 'sync', '--repeats=2', '--nClients=1', '--nOperations=600',
    '--rate=200', ...f.args])
  const secondLog = () => {
    try {
      return fs.readFileSync(path.join(resultsDir(f.results), 'cells', 'sync-s1-c1-r2.log'), 'utf8')
    } catch {
      return ''
    }
  }
  for (let i = 0; i < 400 && !/listening/.test(secondLog()); i++) await sleep(50)
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
    [['sweep', '--kinds=sync,fast'], /--kinds must be one of sync, async, sync-cluster, async-cluster, got "fast"/],
    [['quick', '--repeats=0'], /--repeats must be an integer from 1 to 1000, got "0"/],
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
