'use strict'
// --storage=cold on this machine's real disk and memory cgroups (root, vmtouch, fio; skipped with the reason
// elsewhere): the residency and device-read accounting on a file the test evicts itself, a cgroup's life with a
// process in it, a cold sweep's rows against a cached one's, and no cgroup left after SIGKILL of a cold sweep.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const { residency, evict, touch, readBytes, ramFolderProblem } = require('../../storage/cache')
const { makeCgroup, ownedCgroups } = require('../../storage/cgroup')
const { cgroupProblem, runBase } = require('../../storage/cgroup-base')
const { vmtouchProblem } = require('../../storage/cache')
const { fioProblem } = require('../../storage/device')
const { readResults } = require('../../report/data/read')
const { ROOT } = require('../../lib/config')

const MIB = 1048576
const FILE_BYTES = 16384
// The folders of this test on the checkout's disk (a tmpfs /tmp has no device to read from).
const scratch = (t) => {
  const dir = fs.mkdtempSync(path.join(ROOT, 'data', 'cold-test-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}
fs.mkdirSync(path.join(ROOT, 'data'), { recursive: true })
const why = cgroupProblem({ trial: false }) || vmtouchProblem() || fioProblem() || ramFolderProblem(path.join(ROOT, 'data'))
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// A node process that, once told to, reads the file whole, then waits for a line on stdin: alive, so its /proc/PID/io can be
// read. `read` resolves with the bytes it read from the device for the file alone: its count once started (node's own pages
// and modules it may have read in, as this VM pages out what stays idle) is taken off.
function reader (file, prefix = []) {
  const child = spawn([...prefix, process.execPath][0], [...prefix.slice(1), ...(prefix.length ? [process.execPath] : []), '-e',
    `console.log('ready'); process.stdin.once('data', () => { require('fs').readFileSync(${JSON.stringify(file)}); console.log('read'); ` +
    'process.stdin.once(\'data\', () => process.exit(0)) })'],
  { stdio: ['pipe', 'pipe', 'inherit'] })
  const line = () => new Promise((resolve) => child.stdout.once('data', resolve))
  const read = line().then(async () => {
    const before = readBytes(child.pid)
    child.stdin.write('\n')
    await line()
    return readBytes(child.pid) - before
  })
  const done = new Promise((resolve) => child.once('exit', resolve))
  return { child, read, end: () => { child.stdin.write('\n'); return done } }
}

t.test('residency and bytes from the device: a file the test evicts is read from the device once, then from the cache', { skip: why }, async (t) => {
  const file = path.join(scratch(t), 'eight')
  fs.writeFileSync(file, Buffer.alloc(8 * MIB, 'x'))
  await evict(file)
  t.same(residency(file), { resident: 0, pages: 2048, percent: 0 }, 'evicted: none of its 2048 pages cached')
  const cold = reader(file)
  const coldBytes = await cold.read
  await cold.end()
  t.ok(coldBytes >= 8 * MIB && coldBytes <= 9 * MIB, `the cold read took the file from the device: ${coldBytes} bytes`)
  t.equal(residency(file).percent, 100, 'and left it cached')
  const warm = reader(file)
  const warmBytes = await warm.read
  await warm.end()
  t.ok(warmBytes < 64 * 1024, `the second read came from the cache: ${warmBytes} bytes from the device`)
  t.equal(readBytes(2 ** 22 + 1), 0, 'a process that is gone read nothing')
})

t.test('a memory cgroup below the run\'s: a process joins it before it runs, its cache counts there, the limit holds, then it goes', { skip: why },
  async (t) => {
    const cg = makeCgroup({ base: runBase(), guard: false })
    t.teardown(() => cg.remove())
    t.match(path.basename(cg.dir), new RegExp(`^cbench-${process.pid}-\\d+$`))
    t.ok(ownedCgroups().includes(cg.dir), 'below this process\'s cgroup')
    const file = path.join(scratch(t), 'thirty-two')
    fs.writeFileSync(file, Buffer.alloc(32 * MIB, 'y'))
    await evict(file)
    cg.setLimit(null)
    // Node's own pages cached here first: else the reader would read them in and be charged for them too (this VM pages out
    // what stays idle), and the cgroup's cache would not be the file's alone.
    await touch(process.execPath)
    // env -i: without tap's loaders, whose modules it would read in too.
    const inside = reader(file, ['/usr/bin/env', '-i', '/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', cg.procs])
    await inside.read
    t.same(cg.pids(), [inside.child.pid], 'the process is in it')
    const { cache } = cg.memory()
    t.ok(cache >= 30 * MIB, `its reads are charged to it: ${Math.round(cache / MIB)} MiB of cache`)
    // 24 MiB under what it holds: only the cache can go (no swap), or the write fails (EBUSY).
    cg.setLimit(cg.memory().usage - 24 * MIB)
    t.ok(residency(file).percent <= 50, `a lower limit took the file out of the page cache: ${residency(file).percent.toFixed(1)}% cached`)
    await inside.end()
    t.same(cg.pids(), [], 'empty once the process ended')
    t.equal(cg.remove(), '')
    t.notOk(fs.existsSync(cg.dir), 'removed')
  })

// A cold sweep of one round into a fresh results folder; resolves with its exit status and stderr. --maxInterference=1:
// a pass is kept whatever else takes the CPU (a CI machine's neighbours: at 10% every pass would wait a minute for quiet).
function coldSweep (t, args) {
  const results = t.testdir()
  const child = spawn(process.execPath, [path.join(ROOT, 'sweep', 'index.js'), 'sweep', '--nServers=1', '--nClients=1', '--aa=off', '--rounds=1',
    '--maxRounds=1', '--passes=2', '--warmOps=200', '--maxInterference=1', '--nFiles=16384', `--fileBytes=${FILE_BYTES}`, `--results=${results}`,
    `--dataPath=${scratch(t)}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') }) // its guard removes its cgroups
  let err = ''
  child.stderr.on('data', (d) => { err += d })
  const exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, err, results })))
  return { child, exit }
}

t.test('a cold sweep: the cold cell read a file from the device per GET, the half-warm one half that, the cached one nothing', { skip: why },
  async (t) => {
    const { exit } = coldSweep(t, ['--kinds=async', '--storage=cache,cold', '--cacheShare=0,50'])
    const { code, err, results } = await exit
    t.equal(code, 0, err)
    const { rows, env } = readResults(path.join(results, fs.readdirSync(results)[0]))
    t.ok(env.device.qd1.meanUs > 0 && env.device.qd4.iops > 0, `the device measured: ${env.device.qd1.meanUs} µs at queue depth 1`)
    const cold = rows.find((r) => r.storage === 'cold' && r.cacheShare === 0)
    const half = rows.find((r) => r.storage === 'cold' && r.cacheShare === 50)
    const cached = rows.find((r) => r.storage === 'cache')
    t.equal(cold.cacheShare, 0)
    t.ok(cold.residencyBefore <= 1, `cold: ${cold.residencyBefore}% cached at the start`)
    t.ok(cold.residencyAfter <= 10, `cold: ${cold.residencyAfter}% cached at the end`)
    t.ok(cold.deviceBytesPerGet >= 0.9 * FILE_BYTES && cold.deviceBytesPerGet <= 1.5 * FILE_BYTES,
      `cold: ${cold.deviceBytesPerGet} bytes from the device per GET, about a file's ${FILE_BYTES}`)
    // The limit is the server's own memory + 32 MiB + the share of the data set: the half-warm cell's is 50% of the
    // 16384 files more (their own memory differs by a few MiB: 6.5 in one run).
    const room = (half.cacheLimitBytes - cold.cacheLimitBytes) / MIB
    t.ok(Math.abs(room - 16384 * FILE_BYTES / 2 / MIB) <= 16, `half warm's limit ${room.toFixed(1)} MiB above cold's: half the data set`)
    t.ok(Math.abs(half.residencyBefore - 50) <= 2, `half warm: ${half.residencyBefore}% cached at the start`)
    t.ok(half.deviceBytesPerGet >= 0.4 * FILE_BYTES && half.deviceBytesPerGet <= 0.7 * FILE_BYTES,
      `half warm: ${half.deviceBytesPerGet} bytes from the device per GET, about half a file`)
    // Read into the cache before the round; this machine may page out a little of it meanwhile (DAMON).
    t.ok(cached.residencyBefore >= 98 && cached.residencyAfter >= 90,
      `cache: ${cached.residencyBefore}% cached at the start, ${cached.residencyAfter}% at the end`)
    t.ok(cached.deviceBytesPerGet < 0.05 * FILE_BYTES, `cache: ${cached.deviceBytesPerGet} bytes from the device per GET, under 5% of a file`)
    t.same(ownedCgroups().filter((dir) => dir.includes('cbench-')), [], 'no cgroup left')
  })

t.test('after SIGKILL of a cold sweep no cgroup it made is left', { skip: why }, async (t) => {
  const { child, exit } = coldSweep(t, ['--kinds=sync', '--storage=cold', '--maxRounds=100', '--rounds=50', '--budget=600'])
  const mine = () => ownedCgroups().filter((dir) => path.basename(dir).startsWith(`cbench-${child.pid}-`))
  for (let waited = 0; mine().length === 0; waited += 100) {
    if (waited > 60000 || child.exitCode !== null) return t.fail(`no cgroup appeared (exit ${child.exitCode})`)
    await sleep(100)
  }
  await sleep(1000) // its server inside it
  child.kill('SIGKILL')
  t.equal((await exit).signal, 'SIGKILL')
  let left = mine()
  for (let waited = 0; left.length > 0 && waited < 20000; waited += 250) {
    await sleep(250)
    left = mine()
  }
  t.same(left, [], 'the guard removed it once the sweep and its server were gone')
  spawnSync('sync')
})
