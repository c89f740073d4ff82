'use strict'
// The sweep with the balanced kinds, pinned cores and a separate host: a -lb cell spreads one
// client connection over both backends and leaves nothing of HAProxy; a netns run makes and
// removes its namespace, also when the sweep is SIGKILLed; bad values exit 2 naming the flag.

const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')
const { runSweep, startSweep, resultsDir, readSummary, loggedPids, isGone } = require('../fixtures/sweep-run')
const { checkHaproxy } = require('../../lib/haproxy-check')
const { checkNetns, listNamespaces, listLinks } = require('../../network/netns')
const { checkCpuset } = require('../../lib/machine/cpuset')

const SMALL = ['--nOperations=200', '--warmup=20', '--nFiles=4']

// A data set of the test's own, removed after it (not the checkout's data/, where a killed run's would stay).
function dataPath (t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placed-data-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return `--dataPath=${dir}`
}

// The pids the launcher of a -lb cell names in its log: HAProxy and the backends.
function balancerPids (dir) {
  const pids = []
  for (const file of fs.readdirSync(path.join(dir, 'cells')).filter((f) => f.endsWith('.log'))) {
    const text = fs.readFileSync(path.join(dir, 'cells', file), 'utf8')
    for (const m of text.matchAll(/haproxy pid (\d+) .*; backends (.*)/g)) {
      pids.push(Number(m[1]), ...[...m[2].matchAll(/pid (\d+)/g)].map((p) => Number(p[1])))
    }
  }
  return pids
}

t.test('bad --cpuset, --rtt, --hosts and --balance values exit 2 naming the flag, and make nothing', async (t) => {
  const results = t.testdir()
  for (const [flag, says] of [['--cpuset=half', '--cpuset must be shared or split, got "half"'],
    ['--rtt=fast', '--rtt must be an integer number of ms from 0 to 1000, got "fast"'],
    ['--hosts=vm', '--hosts must be one of local, netns, got "vm"'],
    ['--balance=random', '--balance must be one of roundrobin, leastconn, got "random"'],
    ['--rtt=0,5', '--rtt above 0 needs --hosts=netns (a round trip between two hosts), got --rtt=0,5 with --hosts=local']]) {
    const { code, stderr } = await runSweep(t, ['run', 'sync', flag, `--results=${results}`])
    t.equal(code, 2, flag)
    t.equal(stderr, `run_benchmark.sh: ${says}\n`)
  }
  t.same(fs.readdirSync(results), [], 'no results folder')
})

t.test('run sync-lb: one client connection reaches both backends; nothing of HAProxy is left', { skip: checkHaproxy() || false }, async (t) => {
  const results = t.testdir()
  const { code, stderr } = await runSweep(t, ['run', 'sync-lb', '--nServers=2', '--nClients=1', ...SMALL, `--results=${results}`, dataPath(t)])
  t.equal(code, 0, stderr)
  const dir = resultsDir(results)
  const [row] = readSummary(dir)
  t.match(row, { kind: 'sync-lb', nServers: '2', valid: 'true', balance: 'roundrobin', cpuset: 'shared', hosts: 'local' })
  const shares = row.workerShares.split(';').map(Number)
  t.equal(shares.length, 2)
  t.ok(shares.every((s) => s > 0.3), `both backends served: ${row.workerShares}`)
  t.equal(Number(row.balancerRequests), Number(row.serverRequests), 'HAProxy passed on what the backends counted')
  // HAProxy's CPU per request is its CPU over the requests it passed on, from the cell's JSON; 0 is a true value
  // (under a clock tick of CPU for a few hundred requests), a blank column is not.
  const { balancer } = JSON.parse(fs.readFileSync(path.join(dir, row.json), 'utf8')).serverStats
  t.ok(Number.isFinite(balancer.cpuUs) && balancer.cpuUs >= 0 && balancer.requests === Number(row.balancerRequests), `HAProxy: ${balancer.cpuUs} µs of CPU`)
  t.equal(row.balancerCpuPerReqUs, String(Math.round((balancer.cpuUs / balancer.requests) * 10) / 10), 'HAProxy\'s CPU per request')
  const pids = balancerPids(dir)
  t.equal(pids.length, 3, 'HAProxy and two backends were logged')
  t.same([...pids, ...loggedPids(dir)].filter((pid) => !isGone(pid)), [], 'none of them is left')
})

t.test('--cpuset=split pins the client and the server to the cores each row names', { skip: checkCpuset() || false }, async (t) => {
  const results = t.testdir()
  const { code, stderr } = await runSweep(t, ['run', 'async', '--cpuset=split', '--nClients=1', ...SMALL, `--results=${results}`, dataPath(t)])
  t.equal(code, 0, stderr)
  const dir = resultsDir(results)
  t.match(readSummary(dir)[0], { cpuset: 'split', serverCpus: '0', clientCpus: '1', valid: 'true' })
  const log = fs.readFileSync(path.join(dir, 'cells', fs.readdirSync(path.join(dir, 'cells')).find((f) => f.endsWith('.log'))), 'utf8')
  t.match(log, /started pid \d+ \(its own process group\): \S*taskset -c 0 node servers\/async\.js/)
  t.match(log, /started pid \d+ \(its own process group\): \S*taskset -c 1 node client/)
})

t.test('--hosts=netns --rtt=0,1: rows from the namespace, and it is gone at the end', { skip: checkNetns() || false }, async (t) => {
  const results = t.testdir()
  const sweep = startSweep(t, ['run', 'sync', '--hosts=netns', '--rtt=0,1', '--nClients=1', ...SMALL, `--results=${results}`, dataPath(t)])
  const { code, stderr } = await sweep.done
  t.equal(code, 0, stderr)
  t.match(stderr, new RegExp(`server side in namespace cbench-${sweep.child.pid} at 10\\.213\\.`))
  const rows = readSummary(resultsDir(results)).sort((a, b) => a.rtt - b.rtt)
  t.match(rows, [{ hosts: 'netns', rtt: '0', valid: 'true' }, { hosts: 'netns', rtt: '1', valid: 'true' }])
  t.ok(rows.every((r) => r.rttMethod === 'netem' || r.rttMethod === 'relay'))
  t.notOk(listNamespaces().includes(`cbench-${sweep.child.pid}`), 'no namespace left')
  t.notOk(listLinks().includes(`cbh${sweep.child.pid}`), 'no link left')
})

t.test('SIGKILL of a netns sweep: its namespace, link and server are gone within 5 s', { skip: checkNetns() || false }, async (t) => {
  const results = t.testdir()
  const sweep = startSweep(t, ['run', 'sync', '--hosts=netns', '--nClients=1', '--nOperations=200000', '--warmup=20', `--results=${results}`, dataPath(t)])
  const ns = `cbench-${sweep.child.pid}`
  let dir = null
  for (let i = 0; i < 300 && !dir; i++) {
    await sleep(100)
    try {
      const found = resultsDir(results)
      const started = (f) => /started pid \d+ .*node client/.test(fs.readFileSync(path.join(found, 'cells', f), 'utf8'))
      if (fs.readdirSync(path.join(found, 'cells')).some(started)) dir = found
    } catch {}
  }
  t.ok(dir, 'the client started')
  t.ok(listNamespaces().includes(ns), 'the namespace exists while it runs')
  const pids = loggedPids(dir)
  process.kill(sweep.child.pid, 'SIGKILL')
  await sweep.done
  for (let i = 0; i < 50 && (listNamespaces().includes(ns) || !pids.every(isGone)); i++) await sleep(100)
  t.notOk(listNamespaces().includes(ns), 'namespace removed by the guard')
  t.notOk(listLinks().includes(`cbh${sweep.child.pid}`), 'link removed')
  t.same(pids.filter((pid) => !isGone(pid)), [], 'no process of the run is left')
})

const SCRIPT = path.join(__dirname, '..', '..', 'run_benchmark.sh')
const AS_NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']
const asNobody = () => {
  if (process.getuid() !== 0) return 'needs root to become another user'
  const reach = require('node:child_process').spawnSync(AS_NOBODY[0], [...AS_NOBODY.slice(1), 'test', '-x', SCRIPT])
  return reach.status === 0 ? false : 'an unprivileged user cannot reach this checkout (a folder on its path is closed, e.g. one made by mktemp -d)'
}

t.test('a user who cannot make namespaces gets one line why, exit 2, and nothing made', { skip: asNobody() }, async (t) => {
  const { execFile } = require('node:child_process')
  const results = t.testdir()
  fs.chmodSync(results, 0o777)
  const script = SCRIPT
  // env -i: tap's coverage hook adds its variables to every child, and nobody cannot write its files.
  const { code, stderr } = await new Promise((resolve) => execFile('env', ['-i', 'PATH=/usr/local/bin:/usr/bin:/bin', ...AS_NOBODY, script,
    'run', 'sync', '--hosts=netns', `--results=${results}`], { timeout: 30000 }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stderr })))
  t.equal(code, 2)
  t.equal(stderr, 'run_benchmark.sh: --hosts=netns: network namespaces need root (CAP_SYS_ADMIN and CAP_NET_ADMIN): run as root, or use --hosts=local\n')
  t.same(fs.readdirSync(results), [], 'no results folder')
})
