'use strict'
// End to end through the FUSE delay layer: a cluster appending through the mount verifies, the
// row carries the measured storage latency and the daemon's cost, and no mount or daemon of the
// run is left after it ends, is killed with SIGKILL, or left a stale mount behind. An interleaved run
// measures the page cache's cells and the delayed ones in two phases, one after the other, and restarts a phase's own servers.

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { once } = require('node:events')
const { setTimeout: sleep } = require('node:timers/promises')
const t = require('tap')
const { parse } = require('csv-parse/sync')
const { startSweep, runSweep, resultsDir, readSummary, loggedPids } = require('../fixtures/sweep-run')
const { checkFuse } = require('../../storage')
const { delayfsMounts, cleanStaleMounts } = require('../../storage/stale')
const { isAlive } = require('../../lib/machine/proc')
const { groupMembers } = require('../../sweep/cell/process-group')

const skip = checkFuse()

const folders = (t) => {
  const root = t.testdir({ results: {}, data: {} })
  return { root, results: path.join(root, 'results'), args: [`--results=${path.join(root, 'results')}`, `--dataPath=${path.join(root, 'data')}`] }
}
// The delayfs mounts and daemons under a test's folder.
const mountsUnder = (root) => delayfsMounts().filter((m) => m.mountpoint.startsWith(root))
const daemonPids = (dir) => [...fs.readdirSync(path.join(dir, 'cells')).filter((f) => f.endsWith('.log'))
  .flatMap((f) => fs.readFileSync(path.join(dir, 'cells', f), 'utf8').matchAll(/storage: delayfs pid (\d+)/g))].map((m) => Number(m[1]))

t.test('two cluster workers append through a 200 µs mount: verified, latency and daemon cost recorded, nothing left', { skip }, async (t) => {
  const f = folders(t)
  const { code, stderr } = await runSweep(t, ['run', 'sync-cluster', '--nServers=2', '--nClients=2', '--nOperations=400',
    '--readsPerWrite=1', '--ioDelay=200', '--ioDelayQd4=300', ...f.args])
  t.equal(code, 0, stderr)
  const dir = resultsDir(f.results)
  const [row] = readSummary(dir)
  t.match(row, { cell: 'sync-cluster-s2-c2-rpw1-d200-d4-300', valid: 'true', ioDelay: '200', ioDelayQd4: '300', ioDepth: '64', uvUseIoUring: /^[01]$/ })
  t.match(fs.readFileSync(path.join(dir, 'cells', `${row.cell}-r1.log`), 'utf8'), /storage: delayfs pid \d+, ioDelay 200 µs, 300 µs at queue depth 4,/,
    'the mount was given the latency at depth 4')
  const json = JSON.parse(fs.readFileSync(path.join(dir, row.json), 'utf8'))
  t.equal(json.verification.ok, true, 'every acknowledged append is in the files once, whole, read back through the mount')
  t.ok(json.operations.completed === 400 && json.latency.PUT.count > 100, 'both workers appended')
  t.ok(Number(row.storageOps) >= 400, 'the daemon served the reads and writes')
  t.ok(Number(row.storageLatencyUs) >= 200, `measured latency ${row.storageLatencyUs} µs is at least the delay`)
  t.ok(Number(row.storageCpuPerReqUs) > 0, 'the daemon\'s CPU per request is recorded')
  t.same(mountsUnder(f.root), [], 'no mount is left')
  t.same(daemonPids(dir).filter(isAlive), [], 'no daemon is left')
})

t.test('an interleaved run measures the page cache\'s cells in rounds of their own, then the 1 ms cells in theirs', { skip }, async (t) => {
  const f = folders(t)
  const { code, stderr } = await runSweep(t, ['sweep', '--kinds=sync,async', '--nClients=1', '--aa=off', '--ioDelay=off,1000', '--passes=2',
    '--window=20', '--warmOps=20', '--rounds=3', '--maxRounds=3', '--restartEvery=2', '--maxInterference=1', '--seed=5', ...f.args])
  t.equal(code, 0, stderr)
  const dir = resultsDir(f.results)
  const csv = (name) => parse(fs.readFileSync(path.join(dir, name), 'utf8'), { columns: true })
  const roundsOf = (delayed) => [...new Set(csv('windows.csv').filter((w) => /-d1000/.test(w.cell) === delayed).map((w) => Number(w.round)))]
  t.same(roundsOf(false), [1, 2, 3], 'the page cache\'s cells: rounds 1 to 3')
  t.same(roundsOf(true), [4, 5, 6], 'then the 1 ms cells: rounds 4 to 6, none of them beside the page cache\'s')
  t.same(csv('rounds.csv').map((r) => r.cells), ['2', '2', '2', '2', '2', '2'], 'each round measures its phase\'s 2 cells')
  for (const row of readSummary(dir)) t.equal(row.valid, 'true', `${row.cell} round ${row.repeat}: a valid row`)
  t.equal(readSummary(dir).length, 12, 'each of the 4 cells has a row for each of its 3 rounds')
  const env = JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8'))
  t.match(env.rounds.stop, /^the page cache: 3 rounds \(--maxRounds\); storage or a link that waits: 3 rounds \(--maxRounds\)$/, 'each phase\'s stop')
  t.match(stderr, /the page cache: 2 cells, \d+ s of the budget/)
  // --restartEvery=2: a phase's third round on new servers (generation 2, then 3); the other phase's cells keep theirs.
  const logs = fs.readdirSync(path.join(dir, 'cells')).filter((name) => /-g\d+\.log$/.test(name)).sort()
  t.same(logs, ['async-s1-c1-d1000-g3.log', 'async-s1-c1-doff-g2.log', 'sync-s1-c1-d1000-g3.log', 'sync-s1-c1-doff-g2.log'],
    'each phase started its own cells again, once')
  t.match(stderr, /sweep: 2 servers up in [\d.]+ s; warming up/, 'a restart starts the phase\'s 2 servers, not all 4')
})

t.test('SIGKILL of the sweep mid-cell leaves no mount, daemon or server after 5 s', { skip }, async (t) => {
  const f = folders(t)
  const { child, done } = startSweep(t, ['run', 'async', '--nClients=1', '--nOperations=3000', '--rate=300',
    '--ioDelay=100', ...f.args])
  const log = () => {
    try {
      return fs.readFileSync(path.join(resultsDir(f.results), 'cells', 'async-s1-c1-d100-r1.log'), 'utf8')
    } catch {
      return ''
    }
  }
  for (let i = 0; i < 1200 && !/node client/.test(log()); i++) await sleep(50)
  t.match(log(), /storage: delayfs pid \d+/, 'the cell mounted')
  t.equal(mountsUnder(f.root).length, 1, 'the mount is live')
  const dir = resultsDir(f.results)
  const groups = loggedPids(dir)
  const daemons = daemonPids(dir)
  process.kill(child.pid, 'SIGKILL')
  await done
  const left = () => [...mountsUnder(f.root).map((m) => m.mountpoint), ...daemons.filter(isAlive),
    ...groups.flatMap((g) => groupMembers(g).map((m) => m.pid))]
  for (let i = 0; i < 100 && left().length > 0; i++) await sleep(50)
  t.same(left(), [], 'no mount, daemon, server or client is left')
})

t.test('a stale mount of an earlier run in its dataPath is unmounted at the next start, with one line; one elsewhere is left', { skip }, async (t) => {
  let elsewhere = null
  // Registered before the test folder, so that it runs before the folder is removed.
  t.teardown(() => elsewhere && cleanStaleMounts(() => {}, elsewhere))
  const f = folders(t)
  // An owner that mounts, then dies with its daemon by SIGKILL: the mount stays, dead.
  const deadMount = async (mnt) => {
    const backing = `${mnt}-backing`
    fs.mkdirSync(mnt)
    fs.mkdirSync(backing)
    const owner = spawn(process.execPath, [path.join(__dirname, '..', 'fixtures', 'storage-owner.js'), backing, mnt, 'wait'],
      { stdio: ['ignore', 'pipe', 'inherit'] })
    const [line] = await once(owner.stdout.setEncoding('utf8'), 'data')
    process.kill(Number(/ready (\d+)/.exec(line)[1]), 'SIGKILL')
    owner.kill('SIGKILL')
    await once(owner, 'exit')
  }
  const mnt = path.join(f.root, 'data', 'stale') // in the sweep's dataPath
  elsewhere = path.join(f.root, 'other') // another run's, which this sweep leaves alone
  await deadMount(mnt)
  await deadMount(elsewhere)
  t.equal(delayfsMounts().filter((m) => m.mountpoint === mnt || m.mountpoint === elsewhere).length, 2, 'two dead mounts are left')
  const { code, stderr } = await runSweep(t, ['run', 'sync', '--nClients=1', '--nOperations=50', ...f.args])
  t.equal(code, 0, stderr)
  t.equal(stderr.split('\n').filter((l) => l.includes(mnt)).length, 1, 'one line names it')
  t.match(stderr, /stale delayfs mount/)
  t.same(delayfsMounts().filter((m) => m.mountpoint === mnt), [], 'it is gone')
  t.notMatch(stderr, elsewhere, 'the one outside its dataPath is not its business')
  t.equal(cleanStaleMounts(() => {}, elsewhere).length, 1, 'and is still there for its own run to clean')
})
