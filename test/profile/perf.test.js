'use strict'
// profile/perf.js: where perf is missing or refuses, --profile says why in one line (and falls back to
// V8's stacks, which the report then says); where it works, a recording switched on around a window
// holds that window's samples and none from before it.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { perfAccess, perfProblem, startPerf, perfScript } = require('../../profile/perf')
const { parsePerfScript } = require('../../profile/perf-script')
const { AS_NOBODY, plainEnv, asNobodyProblem, openDir } = require('../fixtures/as-user')

t.test('what perf may see for a user, said in one line with the sysctl that shows more', async (t) => {
  const user = (paranoid, kptr = 0) => perfAccess({ uid: 1000, sysctl: (name) => (name === 'kptr_restrict' ? kptr : paranoid) })
  t.same(perfAccess({ uid: 0, sysctl: () => 3 }), { scope: 'cpus', line: 'profiles: perf samples every CPU, user space and kernel (root)' })
  t.equal(user(-1).scope, 'cpus')
  t.same(user(0, 1), { scope: 'cpus', line: 'profiles: perf samples every CPU, user space and kernel; kernel frames unnamed ' +
    '(kernel.kptr_restrict = 1: sudo sysctl -w kernel.kptr_restrict=0 names them)' })
  t.equal(user(1).scope, 'processes')
  t.match(user(1).line, /this run's processes, user space and kernel, .*; sudo sysctl -w kernel\.perf_event_paranoid=0 samples every CPU$/)
  t.equal(user(2).scope, 'user')
  t.match(user(2).line, /user space only .*the kernel categories are not sampled \(kernel\.perf_event_paranoid = 2\): sudo sysctl -w kernel\.perf_event_/)
  for (const paranoid of [3, 4, NaN]) {
    const no = user(paranoid)
    t.equal(no.scope, null, `paranoid ${paranoid}: no perf`)
    t.match(no.line, /^profiles: V8 stacks only \(main threads; not the thread pool or the kernel\): perf is not allowed to users here /)
    t.match(no.line, /\(kernel\.perf_event_paranoid = (3|4|unreadable)\); sudo sysctl -w kernel\.perf_event_paranoid=2 lets perf sample/)
    t.equal(no.line.split('\n').length, 1, 'one line')
  }
})

t.test('perf\'s probe records with the options of the real recording, the buffer size too', async (t) => {
  const dir = t.testdir({ perf: '#!/bin/sh\necho "$*" >> "$(dirname "$0")/calls"\n' })
  fs.chmodSync(path.join(dir, 'perf'), 0o755)
  const PATH = process.env.PATH
  process.env.PATH = `${dir}:${PATH}` // startPerf finds perf on this process's PATH
  t.teardown(() => { process.env.PATH = PATH })
  for (const [scope, pids] of [['cpus', []], ['user', [4242, 4343]], ['processes', [4242]]]) {
    fs.rmSync(path.join(dir, 'calls'), { force: true })
    t.equal(perfProblem(scope, { PATH: dir }), null)
    const perf = await startPerf({ file: path.join(dir, 'p.data'), logFd: 'ignore', frequency: 277, scope, pids })
    const calls = () => fs.readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n')
    for (let i = 0; i < 100 && calls().length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20)) // before stop's SIGINT
    await perf.stop()
    const [probe, real] = calls()
    const options = (line) => line.replace(/ -o \S+.*$/, '').replace(/ -D -1 --control \S+/, '').replace(/ -p [\d,]+/, ' -p PIDS')
    t.equal(options(probe), options(real), `${scope}: the same options`)
    t.match(real, { cpus: / -e cpu-clock -a --mmap-pages=8M /, user: / -e cpu-clock:u -p 4242,4343 /, processes: / -e cpu-clock -p 4242 / }[scope])
  }
})

const nobody = asNobodyProblem()
const noUserPerf = nobody || (spawnSync('/bin/sh', ['-c', 'cat /proc/sys/kernel/perf_event_paranoid'], { encoding: 'utf8' }).stdout.trim() !== '2' &&
  'needs kernel.perf_event_paranoid = 2 (this machine\'s): the user-space scope') || perfProblem()
t.test('as a user at paranoid 2, perf on this process follows a child started later, its pool threads included, in user space only',
  { skip: noUserPerf }, async (t) => {
    const dir = openDir(t.testdir({}))
    const script = `const { startPerf, perfScript } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'profile', 'perf'))})
const { spawnSync } = require('node:child_process')
;(async () => {
  const perf = await startPerf({ file: ${JSON.stringify(path.join(dir, 'u.data'))}, logFd: 'ignore', frequency: 999, scope: 'user', pids: [process.pid] })
  await perf.enable()
  // A child started after perf: 4 pool threads read a file over and over for 400 ms.
  spawnSync(process.execPath, ['-e', "const fs = require('fs'); const end = Date.now() + 400; " +
    "const go = () => { if (Date.now() < end) fs.readFile(process.execPath, go) }; for (let i = 0; i < 4; i++) go()"])
  await perf.disable()
  await perf.stop()
  process.stdout.write(await perfScript(${JSON.stringify(path.join(dir, 'u.data'))}))
})()`
    const res = spawnSync(...plainEnv(process.execPath, ['-e', script]),
      { ...AS_NOBODY, cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28, timeout: 60000, killSignal: 'SIGKILL' })
    t.equal(res.status, 0, res.stderr)
    const samples = parsePerfScript(res.stdout)
    const child = samples.filter((s) => s.pid !== res.pid && s.comm === 'node')
    const threads = new Set(child.filter((s) => s.tid !== s.pid).map((s) => s.tid))
    t.ok(child.length > 20, `the child was sampled (${child.length} samples)`)
    t.ok(threads.size >= 1, `and its other threads (${threads.size})`)
    t.same(samples.flatMap((s) => s.frames).filter((f) => f.kernel), [], 'no kernel frame')
  })

t.test('no perf on the PATH: a line that names setup', async (t) => {
  const dir = t.testdir({})
  t.equal(perfProblem('cpus', { PATH: dir }), 'perf is not installed (./run_benchmark.sh setup installs it)')
})

t.test('a perf that refuses to record: its own last line', async (t) => {
  const dir = t.testdir({ perf: '#!/bin/sh\necho "Error: perf_event_paranoid setting is 4" >&2\nexit 255\n' })
  fs.chmodSync(path.join(dir, 'perf'), 0o755)
  t.equal(perfProblem('cpus', { PATH: dir }), 'perf record does not work here (Error: perf_event_paranoid setting is 4)')
})

const noPerf = perfProblem()
t.test('a recording holds the samples of the time it was switched on, not before', { skip: noPerf && `perf: ${noPerf}` }, async (t) => {
  const dir = t.testdir({})
  const file = path.join(dir, 'perf.data')
  const perf = await startPerf({ file, logFd: 'ignore', frequency: 999 })
  const spin = (ms) => { for (const end = Date.now() + ms; Date.now() < end;); }
  // 300 ms of this process's own CPU (at most 10 s of the clock): a busy machine slows it, never thins its samples.
  const burn = (ms) => {
    const cpuMs = () => { const { user, system } = process.cpuUsage(); return (user + system) / 1000 }
    for (const end = cpuMs() + ms, stop = Date.now() + 10000; cpuMs() < end && Date.now() < stop;) spin(5)
  }
  spin(200) // switched off: not recorded
  const on = process.hrtime.bigint()
  await perf.enable()
  burn(300)
  await perf.disable()
  await perf.stop()
  const mine = parsePerfScript(await perfScript(file)).filter((s) => s.pid === process.pid)
  t.ok(mine.length >= 10, `this process was sampled while on (${mine.length} samples; ~300 on an idle core)`)
  t.ok(mine.every((s) => s.timeNs >= Number(on)), 'and not before: the monotonic clock of process.hrtime')
  t.notOk(fs.existsSync(`${file}.txt`), 'the text is not left behind')
})
