'use strict'
// lib/machine/cpu-share.js: what else used the machine between two samples, as shares of all its CPU:
// the run's own process tree, other processes (exact per-thread run time), steal and iowait.

const { spawn, spawnSync } = require('node:child_process')
const path = require('node:path')
const fs = require('node:fs')
const os = require('node:os')
const t = require('tap')
const { sampleMachine, interferenceBetween, processTree, processTable } = require('../../lib/machine/cpu-share')

const CPUS = os.availableParallelism()
const cpu = (fields) => ({ user: 0, nice: 0, system: 0, idle: 0, iowait: 0, irq: 0, softirq: 0, steal: 0, ...fields })
const sample = (at, processes, fields = {}) => ({ at, cpu: cpu(fields), processes: new Map(processes), runnable: 3, load1: 0.5 })

t.test('the shares of own and other processes come from their run time over the whole machine\'s', async (t) => {
  // One second on every core: other processes ran 0.5 s of it in all, ours 1 s.
  const a = sample(0, [[10, { ns: 1e9, own: true }], [20, { ns: 5e9, own: false }], [30, { ns: 7e9, own: false }]], { user: 100, idle: 100 })
  const b = sample(1000, [[10, { ns: 2e9, own: true }], [20, { ns: 5.2e9, own: false }], [30, { ns: 7.2e9, own: false }], [40, { ns: 0.1e9, own: false }]],
    { user: 100 + 50 * CPUS, idle: 100 + 50 * CPUS, steal: 0 })
  const f = interferenceBetween(a, b)
  t.match(f, { seconds: 1, own: Number((1 / CPUS).toFixed(4)), other: Number((0.5 / CPUS).toFixed(4)), steal: 0, runnable: 3, load1: 0.5 })
  t.equal(f.interference, f.other + f.steal)
  t.ok(Math.abs(f.other - 0.5 / CPUS) < 1e-4, 'a process that began meanwhile counts from its start (pid 40: 0.1 s)')
})

t.test('steal and iowait are shares of the ticks /proc/stat counted, and steal is interference', async (t) => {
  const a = sample(0, [], { user: 0, idle: 0 })
  const b = sample(1000, [], { user: 60, idle: 20, iowait: 10, steal: 10 })
  t.match(interferenceBetween(a, b), { steal: 0.1, iowait: 0.1, interference: 0.1, other: 0 })
})

t.test('a process that ended between the samples is not seen, and a share never passes 1', async (t) => {
  const a = sample(0, [[20, { ns: 0, own: false }], [21, { ns: 0, own: false }]])
  const b = sample(100, [[20, { ns: 50e9, own: false }]])
  t.equal(interferenceBetween(a, b).other, 1)
})

t.test('without /proc: others are the machine\'s busy time less the run\'s own; steal, iowait, runnable not measured', async (t) => {
  // 2 s of CPU time in all (every core's, from os.cpus()), 1.2 s of it busy: this process 0.1 s, its servers and clients 0.5 s.
  const a = { at: 0, busyMs: 1000, totalMs: 5000, selfUs: 2e6, load1: 0.4 }
  const b = { at: 1000, busyMs: 2200, totalMs: 7000, selfUs: 2.1e6, load1: 0.7 }
  t.same(interferenceBetween(a, b, 0.5e6), { seconds: 1, own: 0.3, other: 0.3, steal: null, iowait: null, interference: 0.3, runnable: null, load1: 0.7 })
  t.equal(interferenceBetween(a, { ...b, busyMs: 1500 }, 0.5e6).other, 0, 'less busy than the run\'s own: none, not below 0')
  const blind = { ...a, busyMs: null, totalMs: 0 } // os.cpus() has no times (Linux without /proc)
  t.same(interferenceBetween(blind, { ...blind, at: 500, load1: 0.7 }, 0.5e6),
    { seconds: 0.5, own: null, other: null, steal: null, iowait: null, interference: null, runnable: null, load1: 0.7 })
})

t.test('a thread that ended while the table was read drops only its own time, not its process', async (t) => {
  // A /proc where process 77 lists two threads and only one still has its schedstat (the other ended between the
  // listing and the read): the process stays, with the live thread's time; missing, its whole time would count
  // as new in the next sample.
  const root = t.testdir({
    self: { stat: '1 (node) R 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0' },
    77: {
      stat: '77 (node) S 1 77 77 0 -1 0 0 0 0 0 30 5 0 0 20 0 3 0 100 0 0',
      cmdline: 'node',
      task: { 77: { schedstat: '5000 10 2\n' }, 78: {} }
    }
  })
  const code = 'const { processTable } = require("./lib/machine/cpu-share"); process.stdout.write(JSON.stringify([...processTable()]))'
  const env = { ...process.env, BENCH_PLATFORM: 'linux', BENCH_PROC: root }
  const res = spawnSync(process.execPath, ['-e', code], { cwd: path.join(__dirname, '..', '..'), env, encoding: 'utf8' })
  t.equal(res.status, 0, res.stderr)
  t.same(JSON.parse(res.stdout), [[77, { ppid: 1, ns: 5000, labelled: false }]])
})

// The live processes whose command line holds `label`.
const naming = (label) => fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number).filter((pid) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(label)
  } catch {
    return false
  }
})

t.test('on this machine, a busy child is the run\'s own and a detached busy process is another\'s', async (t) => {
  // Each works 2 ms in every 10 until killed (10 s at most): it runs between the two samples however busy
  // the machine is, and leaves most of a core to the tests beside this one.
  const burn = 'setInterval(() => { const end = Date.now() + 2; while (Date.now() < end); }, 10); setTimeout(() => process.exit(), 10000)'
  const label = `cbench-stranger-${process.pid}`
  const env = { ...process.env, NODE_OPTIONS: '' }
  const child = spawn(process.execPath, ['-e', burn], { stdio: 'ignore', env })
  t.teardown(() => child.kill('SIGKILL'))
  const setsid = spawn('setsid', ['--fork', process.execPath, '-e', burn, label], { stdio: 'ignore', env })
  await new Promise((resolve) => setsid.once('exit', resolve)) // setsid --fork returns at once: its child is no longer ours
  const [stranger] = naming(label)
  t.ok(stranger, 'the detached process is found by its label')
  t.teardown(() => { try { process.kill(stranger, 'SIGKILL') } catch {} })
  const a = sampleMachine()
  await new Promise((resolve) => setTimeout(resolve, 250))
  const b = sampleMachine()
  t.ok(a.processes.get(child.pid)?.own, 'the child is in our tree')
  t.ok(b.processes.get(child.pid).ns > a.processes.get(child.pid).ns, 'its run time grows, in ns')
  t.equal(a.processes.get(stranger)?.own, false, 'the detached process is not')
  t.ok(b.processes.get(stranger).ns > a.processes.get(stranger).ns, 'and it ran meanwhile, as someone else\'s')
  t.ok(interferenceBetween(a, b).other > 0, 'which counts as other')
  t.ok(processTree(processTable(), process.pid).has(process.pid), 'a tree holds its root')
})

t.test('with other hosts, a detached process whose command line holds the run\'s label is the run\'s own', async (t) => {
  const label = `cbench-label-${process.pid}`
  const env = { ...process.env, NODE_OPTIONS: '' }
  const stranger = spawn('setsid', ['--fork', process.execPath, '-e', 'setTimeout(() => {}, 3000)', label], { stdio: 'ignore', env })
  await new Promise((resolve) => stranger.once('exit', resolve)) // its child is no longer ours
  const labelled = () => [...sampleMachine(process.pid, label).processes].filter(([pid]) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(label)
    } catch {
      return false
    }
  })
  const found = labelled()
  t.equal(found.length, 1, 'the labelled process')
  t.ok(found[0][1].own, 'counted as the run\'s own')
  t.notOk(sampleMachine().processes.get(found[0][0]).own, 'without the label, another\'s')
  process.kill(found[0][0], 'SIGKILL')
})
