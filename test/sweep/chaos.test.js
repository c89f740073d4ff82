'use strict'
// The chaos suite: kill a worker, the server, the client, the sweep; fill the disk; remove the data
// folder; make a data file read-only, each mid-run, each with its expected outcome stated (the test
// name) and checked. In `npm test` it runs small (one kind each); `npm run chaos` (CHAOS=full)
// runs every kind and command at a larger size.

const t = require('tap')
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { startServer, stopChild, request } = require('../fixtures/server')
const { startClient, measuredPhase, allGone, tornLines } = require('../fixtures/chaos')
const { startSweep, runSweep, resultsDir, readSummary } = require('../fixtures/sweep-run')
const { mountTmpfs, fillDisk } = require('../fixtures/tmpfs')

const FULL = process.env.CHAOS === 'full'
const pick = (small, full) => (FULL ? full : small)
const ALL = ['sync', 'async', 'sync-cluster', 'async-cluster', 'sync-pool']
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const childrenOf = (pid) => fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
// An open loop: the run lasts nOperations / rate seconds whatever the fault does to the server.
const LOAD = ['--nClients=2', '--concurrency=2', '--readsPerWrite=1', '--nFiles=10', '--warmup=20',
  `--rate=${pick(400, 500)}`, `--nOperations=${pick(1600, 5000)}`]

// A server and a client on a fresh data folder; the fault strikes once the measured phase runs.
async function underLoad (t, kind, fault) {
  const root = t.testdir({ data: {} }) // the client's JSON goes beside the data folder, not in it
  const dataPath = path.join(root, 'data')
  const srv = await startServer(t, kind, { dataPath })
  const client = startClient(t, root, [`--serverPort=${srv.port}`, `--dataPath=${dataPath}`, ...LOAD])
  const early = await Promise.race([measuredPhase(srv).then(() => null), client.done])
  if (early) throw new Error(`the client ended before its measured phase: ${early.stderr}`)
  await sleep(500)
  await fault({ srv, client, dataPath })
  const done = await client.done
  if (done.signal === null) t.ok(done.report, `the client wrote its JSON${done.report ? '' : `: ${done.stderr}`}`)
  return { srv, client: done, dataPath }
}

function checkVerification (t, report) {
  t.match(report.verification, { checked: true, lost: 0, duplicated: 0, torn: 0, unknown: 0 }, 'no acknowledged write lost, no torn record')
}

// The fault is told once, then counted in one line per 10 s, and once more at exit. The bound grows with
// the run's own length: a slow machine's longer run is allowed its extra count lines.
function checkFewLines (t, srv, startedAt) {
  const lines = srv.stderr.split('\n').filter(Boolean)
  const bound = 2 + Math.ceil((Date.now() - startedAt) / 10000)
  t.ok(lines.length <= bound, `${lines.length} log lines in ${Math.round((Date.now() - startedAt) / 1000)} s (at most ${bound})`)
  t.notMatch(srv.stderr, /\n\s+at /, 'no stack trace')
  return lines
}

async function checkNothingLeft (t, marker, srv) {
  if (srv && srv.exited === null) {
    await stopChild(srv)
    t.equal(srv.exited.code, 0, 'the server stops cleanly on SIGTERM (exit 0)')
  }
  const { left } = await allGone(marker)
  t.same(left, [], 'no stray process')
}

for (const kind of pick(['sync-cluster'], ['sync-cluster', 'async-cluster'])) {
  t.test(`kill a worker (${kind}): it is re-forked; only requests in flight on it fail (reset, or lost in the hand-off); ` +
    'nothing acknowledged lost, nothing torn; client exit 0 if none failed, else 1', async (t) => {
    let victim
    const { srv, client, dataPath } = await underLoad(t, kind, async ({ srv }) => {
      victim = childrenOf(srv.pid)[0]
      process.kill(victim, 'SIGKILL')
    })
    const { report } = client
    const failed = report.errorCount + report.warmup.failed
    // A request in flight on the killed worker is reset; a reconnection the primary had just handed
    // to it (node:cluster's round robin) is lost with it and waits for the client's timeout.
    const kinds = new Set([...Object.keys(report.errors.GET), ...Object.keys(report.errors.PUT)])
    t.same([...kinds].filter((k) => k !== 'ECONNRESET' && k !== 'timeout'), [], 'failures are connection resets (or a connection lost in the hand-off) only')
    t.ok(failed <= 4, `${failed} failed: at most the 2 x 2 requests in flight`)
    t.equal(client.code, failed === 0 ? 0 : 1, 'exit status')
    checkVerification(t, report)
    t.match(srv.stderr, new RegExp(`worker ${victim} died \\(code null, signal SIGKILL\\); re-forking`))
    t.equal((await request(srv, { path: '/get?key=file-0' })).status, 200, 'the server answers')
    await checkNothingLeft(t, dataPath, srv)
  })
}

for (const kind of pick(['async', 'sync-pool'], ALL)) {
  t.test(`kill the server (${kind}): the client counts refused and reset requests, finishes, exits 1; ` +
    'what was acknowledged is there, nothing torn; no process left', async (t) => {
    let serverGone
    const { client, dataPath } = await underLoad(t, kind, async ({ srv, dataPath }) => {
      process.kill(srv.pid, 'SIGKILL')
      // At most 5 s (allGone's wait), the promise in the name; workers hear their primary's end at once (IPC).
      serverGone = await allGone(`--nServers=2 --dataPath=${dataPath}`) // the server's command line, not the client's
    })
    t.same(serverGone.left, [], `the server's processes are gone within 5 s (${serverGone.ms} ms after SIGKILL)`)
    const { report } = client
    t.equal(client.code, 1)
    t.ok(report.errorCount > 0, `${report.errorCount} requests failed`)
    const kinds = new Set([...Object.keys(report.errors.GET), ...Object.keys(report.errors.PUT)])
    t.same([...kinds].filter((k) => k !== 'ECONNREFUSED' && k !== 'ECONNRESET'), [], `failures: ${[...kinds].join(', ')}`)
    t.equal(report.operations.completed + report.operations.failed, report.operations.planned, 'every operation was tried')
    checkVerification(t, report)
    await checkNothingLeft(t, dataPath)
  })
}

for (const kind of pick(['sync'], ALL)) {
  t.test(`kill the client (${kind}): its client processes exit within 5 s; the server keeps serving; no record torn`, async (t) => {
    const { srv, client, dataPath } = await underLoad(t, kind, async ({ client }) => {
      client.child.kill('SIGKILL')
    })
    t.equal(client.signal, 'SIGKILL')
    // The server names dataPath too: only the client's processes must be gone. allGone waits 5 s at most, the
    // promise the test names; they notice the lost parent (IPC) at once, well under 0.5 s on a loaded machine.
    const { left, ms } = await allGone(`"dataPath":"${dataPath}"`)
    t.same(left, [], `no client process left (${ms} ms after the client ended)`)
    t.equal((await request(srv, { path: '/get?key=file-0' })).status, 200, 'the server answers')
    t.same(tornLines(dataPath), [], 'every line is a whole record')
    await checkNothingLeft(t, dataPath, srv)
  })
}

const SWEEPS = {
  sweep: ['sweep', '--kinds=sync-cluster', '--nServers=2', '--aa=off', '--rounds=1', '--nClients=2', '--warmOps=100', '--window=40', '--passes=2',
    '--maxInterference=1', '--rate=200'],
  run: ['run', 'async-cluster', '--nServers=2', '--nClients=2', '--nOperations=4000', '--rate=200'],
  peak: ['peak', '--kinds=async-cluster', '--nServers=2', '--connections=4', '--duration=20']
}
for (const command of pick(['sweep'], Object.keys(SWEEPS))) {
  t.test(`kill ./run_benchmark.sh ${command} (SIGKILL) mid-cell: every process it started is gone within 5 s; the next run starts clean`, async (t) => {
    const root = t.testdir({ results: {}, data: {} })
    const folders = [`--results=${path.join(root, 'results')}`, `--dataPath=${path.join(root, 'data')}`]
    const { child, done } = startSweep(t, [...SWEEPS[command], ...folders])
    const started = command === 'peak' ? /listening http/ : /started pid \d+ .*node client/
    const cellLog = () => {
      try {
        const cells = path.join(resultsDir(path.join(root, 'results')), 'cells')
        return fs.readdirSync(cells).map((f) => fs.readFileSync(path.join(cells, f), 'utf8')).join('')
      } catch {
        return ''
      }
    }
    for (let i = 0; i < 600 && !started.test(cellLog()); i++) await sleep(50)
    t.match(cellLog(), started, 'the cell is running')
    await sleep(500)
    const marker = path.join(root, 'data')
    process.kill(child.pid, 'SIGKILL')
    await done
    // At most 5 s, the promise in the name; what the sweep started hears its end at once (lib/machine/parent-watch.js).
    const { left, ms } = await allGone(marker)
    t.same(left, [], `nothing left (after ${ms} ms)`)
    t.equal(fs.readdirSync(marker).length, 1, 'the killed sweep left its data root')
    const again = await runSweep(t, ['run', 'sync', '--nClients=1', '--nOperations=200', '--warmup=10', '--results=' + path.join(root, 'again'), folders[1]])
    t.equal(again.code, 0, `the next run is valid: ${again.stderr.split('\n').slice(-3).join(' | ')}`)
    t.match(again.stderr, /removed .*, left by a sweep that is gone/)
    t.same(fs.readdirSync(marker), [], 'and it removed the leftovers')
  })
}

t.test('fill the disk (a 256 KiB tmpfs): rows invalid with reason "disk full", the sweep goes on and exits 1; ' +
  'the server log says it in a few lines; no process left', async (t) => {
  const disk = mountTmpfs(t)
  if (!disk) return
  fillDisk(disk, 8 * 4096)
  const root = t.testdir()
  const args = pick(['run', 'async', '--rounds=2'],
    ['sweep', '--nServers=2', '--nClients=2', '--rounds=1', '--aa=off', '--warmOps=200', '--window=40', '--passes=2', '--maxInterference=1'])
  const { code, stderr } = await runSweep(t, [...args, '--nFiles=5', '--warmup=10', '--readsPerWrite=1', `--nOperations=${pick(1600, 3000)}`,
    `--results=${root}`, `--dataPath=${disk}`])
  t.equal(code, 1, 'exit 1: some runs invalid')
  const dir = resultsDir(root)
  const rows = readSummary(dir)
  t.ok(rows.length === pick(2, 4), `${rows.length} runs: the sweep went on after the first`)
  for (const row of rows) {
    t.equal(row.valid, 'false')
    t.match(row.reason, /^disk full: \d+ PUTs answered 507 Insufficient Storage$/, `${row.cell}: ${row.reason}`)
    // run KIND logs each run; an interleaved sweep each cell's server, for all its rounds.
    const perRun = path.join(dir, 'cells', `${row.cell}-r${row.repeat}.log`)
    const log = fs.readFileSync(fs.existsSync(perRun) ? perRun : path.join(dir, 'cells', `${row.cell}.log`), 'utf8')
    const serverLines = log.split('\n').filter((l) => /^\[\d+\] /.test(l))
    const seconds = JSON.parse(fs.readFileSync(path.join(dir, row.json), 'utf8')).wallTimeMs / 1000
    t.ok(serverLines.length <= 3 + Math.ceil(seconds / 10), `${row.cell}: ${serverLines.length} server log lines in a ${seconds.toFixed(1)} s run`)
    t.match(log, /PUT failed: disk full \(ENOSPC\)/)
    const json = JSON.parse(fs.readFileSync(path.join(dir, row.json), 'utf8'))
    t.match(json.verification, { lost: 0, torn: 0, unknown: 0, duplicated: 0 }, `${row.cell}: nothing lost, nothing torn`)
  }
  t.match(fs.readFileSync(path.join(dir, 'report.html'), 'utf8'), /disk full: \d+ PUTs answered 507/, 'the report says it')
  t.notMatch(stderr, /\n\s+at /, 'no stack trace')
  t.same((await allGone(disk)).left, [], 'no stray process')
})

for (const kind of pick(['sync-cluster', 'sync-pool'], ALL)) {
  t.test(`remove the data folder mid-run (${kind}): PUTs get 500 and GETs 404, the log says "the data folder is gone" once then counts; ` +
    'the client exits 1 and reports the records gone with the folder as lost; recreating it makes PUTs succeed', async (t) => {
    const startedAt = Date.now()
    const { srv, client, dataPath } = await underLoad(t, kind, async ({ dataPath }) => {
      // Renamed away at once, then removed: a recursive remove of the live folder races the server's
      // PUTs, which create files in it while it is being emptied (ENOTEMPTY).
      const gone = `${dataPath}.gone`
      fs.renameSync(dataPath, gone)
      fs.rmSync(gone, { recursive: true, force: true, maxRetries: 10 })
    })
    const { report } = client
    t.equal(client.code, 1)
    t.same(Object.keys(report.errors.PUT), ['http-500'])
    t.same(Object.keys(report.errors.GET), ['http-404'])
    t.ok(report.verification.lost > 0, `${report.verification.lost} acknowledged records went with the folder`)
    t.equal(report.verification.torn, 0)
    t.equal((await request(srv, { method: 'POST', path: '/put?key=file-0', body: 'x\n' })).body, 'internal error\n', 'no path in the answer')
    fs.mkdirSync(dataPath)
    t.equal((await request(srv, { method: 'POST', path: '/put?key=file-0', body: 'back\n' })).status, 200)
    await stopChild(srv)
    t.match(checkFewLines(t, srv, startedAt)[0], /PUT failed: the data folder is gone \(ENOENT\)/)
    await checkNothingLeft(t, dataPath)
  })
}

for (const kind of pick(['async-cluster'], ALL)) {
  t.test(`make a data file read-only mid-run (${kind}): PUTs to it get 500 and the log says why once then counts; ` +
    'other files keep working; nothing acknowledged lost, nothing torn; client exit 1', async (t) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'chaos-readonly-')) // chattr needs a real disk, tap's testdir is removed before teardowns
    const dataPath = path.join(root, 'data')
    fs.mkdirSync(dataPath)
    const victim = path.join(dataPath, 'file-3')
    const root0 = process.getuid() === 0
    t.teardown(() => {
      if (root0 && fs.existsSync(victim)) execFileSync('chattr', ['-i', victim])
      fs.rmSync(root, { recursive: true, force: true })
    })
    const startedAt = Date.now()
    const srv = await startServer(t, kind, { dataPath })
    const client = startClient(t, root, [`--serverPort=${srv.port}`, `--dataPath=${dataPath}`, ...LOAD])
    await measuredPhase(srv)
    await sleep(500)
    // root writes to a 0444 file: only the immutable flag stops it.
    if (root0) execFileSync('chattr', ['+i', victim])
    else fs.chmodSync(victim, 0o444)
    const { code, report } = await client.done
    t.equal(code, 1)
    t.same(Object.keys(report.errors.PUT), ['http-500'])
    const putsToVictim = report.operations.planned / 2 / 10
    t.ok(report.errors.PUT['http-500'] <= putsToVictim, `${report.errors.PUT['http-500']} failed PUTs, all to the read-only file`)
    t.same(report.errors.GET, {}, 'reads keep working')
    checkVerification(t, report)
    await stopChild(srv)
    t.match(checkFewLines(t, srv, startedAt)[0], /PUT failed: (operation not permitted \(EPERM\)|permission denied \(EACCES\))/)
    await checkNothingLeft(t, dataPath)
  })
}
