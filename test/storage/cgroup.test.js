'use strict'
// storage/cgroup.js on fake cgroup trees (v1 and v2): which cgroup is this process's, the child made below
// it (v2: the memory controller delegated first), its limit and memory, its removal, and the clean-up
// of children whose owner is gone. The real v1 tree of this machine: storage/cold.sequential.test.js.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { ownMemoryCgroup, cgroupProblem, makeCgroup, cleanStaleCgroups, ownedCgroups } = require('../../storage/cgroup')

const DEAD_PID = 2 ** 22 + 1 // above the kernel's pid_max: never a live process

// A fake machine: /proc/self/cgroup's text and the cgroup mounts, over a folder of the test's.
function fakeV2 (t, { controllers = 'cpu io memory pids', subtree = '' } = {}) {
  const root = t.testdir({ 'run.scope': { 'cgroup.controllers': `${controllers}\n`, 'cgroup.subtree_control': subtree } })
  const mounts = () => [{ mountpoint: root, type: 'cgroup2', options: 'rw' }]
  return { root, dir: path.join(root, 'run.scope'), sys: { cgroups: () => '0::/run.scope\n', mounts } }
}
function fakeV1 (t) {
  const root = t.testdir({ process_api: { abc: {} } })
  return {
    root,
    dir: path.join(root, 'process_api', 'abc'),
    sys: {
      cgroups: () => '9:name=systemd:/\n4:memory:/process_api/abc\n3:cpuset:/\n0::/\n',
      mounts: () => [{ mountpoint: '/sys/fs/cgroup/cpuset', type: 'cgroup', options: 'rw,cpuset' }, { mountpoint: root, type: 'cgroup', options: 'rw,memory' }]
    }
  }
}

t.test('this process\'s memory cgroup: the v1 memory hierarchy, or v2 with memory; else why not', async (t) => {
  const v1 = fakeV1(t)
  t.same(ownMemoryCgroup(v1.sys), { version: 1, dir: v1.dir })
  const v2 = fakeV2(t)
  t.same(ownMemoryCgroup(v2.sys), { version: 2, dir: v2.dir })
  const bare = fakeV2(t, { controllers: 'cpu pids' })
  t.match(ownMemoryCgroup(bare.sys).problem, /^the cgroup v2 tree has no memory controller at .*run\.scope \(cgroup\.controllers: cpu pids\)$/)
  const none = { cgroups: () => '0::/\n', mounts: () => [] }
  t.match(ownMemoryCgroup(none).problem, /^there is no memory cgroup controller/)
  t.equal(cgroupProblem({ uid: 1000, sys: v2.sys }), 'it makes a memory cgroup for the server, which needs root: run as root (sudo)')
  t.match(cgroupProblem({ uid: 0, sys: none }), /^there is no memory cgroup controller/)
  t.equal(cgroupProblem({ uid: 0, sys: v1.sys }), '')
})

t.test('v2: memory delegated below the run\'s cgroup, a child per call, its files written and read, then removed', async (t) => {
  const { dir, sys } = fakeV2(t)
  const cg = makeCgroup({ sys, owner: 4242, guard: false })
  t.equal(fs.readFileSync(path.join(dir, 'cgroup.subtree_control'), 'utf8'), '+memory', 'the parent delegates memory')
  t.equal(cg.dir, path.join(dir, 'cbench-4242-1'))
  t.equal(cg.version, 2)
  t.equal(makeCgroup({ sys, owner: 4242, guard: false }).dir, path.join(dir, 'cbench-4242-2'), 'the next one does not reuse a name')
  cg.setLimit(96 * 1048576)
  t.equal(fs.readFileSync(path.join(cg.dir, 'memory.max'), 'utf8'), String(96 * 1048576))
  cg.setLimit(null)
  t.equal(fs.readFileSync(path.join(cg.dir, 'memory.max'), 'utf8'), 'max', 'no limit')
  fs.writeFileSync(path.join(cg.dir, 'memory.current'), '300000\n')
  fs.writeFileSync(path.join(cg.dir, 'memory.stat'), 'anon 100000\nfile 200000\nfile_mapped 1\n')
  t.same(cg.memory(), { usage: 300000, cache: 200000, other: 100000 })
  fs.writeFileSync(cg.procs, '')
  t.equal(cg.remove(), '')
  t.notOk(fs.existsSync(cg.dir), 'removed')
})

t.test('v2: a run\'s cgroup that holds processes cannot delegate memory: one line says so', async (t) => {
  const { dir, sys } = fakeV2(t)
  fs.rmSync(path.join(dir, 'cgroup.subtree_control'))
  fs.mkdirSync(path.join(dir, 'cgroup.subtree_control')) // writing it fails as the kernel's EBUSY would
  t.throws(() => makeCgroup({ sys, guard: false }), { message: new RegExp(`^cannot enable the memory controller below ${dir} \\(EISDIR\\)`) })
})

t.test('v1: the child\'s limit, usage and cache lines, and its processes', async (t) => {
  const { dir, sys } = fakeV1(t)
  const cg = makeCgroup({ sys, owner: 77, guard: false })
  t.equal(cg.dir, path.join(dir, 'cbench-77-1'))
  cg.setLimit(64 * 1048576)
  t.equal(fs.readFileSync(path.join(cg.dir, 'memory.limit_in_bytes'), 'utf8'), String(64 * 1048576))
  cg.setLimit(null)
  t.equal(fs.readFileSync(path.join(cg.dir, 'memory.limit_in_bytes'), 'utf8'), '-1')
  fs.writeFileSync(path.join(cg.dir, 'memory.usage_in_bytes'), '5000\n')
  fs.writeFileSync(path.join(cg.dir, 'memory.stat'), 'cache 10\nrss 20\ntotal_cache 4000\ntotal_rss 1000\n')
  t.same(cg.memory(), { usage: 5000, cache: 4000, other: 1000 }, 'hierarchical totals')
  fs.writeFileSync(cg.procs, '123\n456\n')
  t.same(cg.pids(), [123, 456])
})

t.test('children whose owner is gone are removed; a live owner\'s and other folders stay', async (t) => {
  const { dir, sys } = fakeV2(t)
  for (const name of [`cbench-${DEAD_PID}-1`, `cbench-${process.pid}-1`, 'other', 'cbench-x-1']) fs.mkdirSync(path.join(dir, name))
  fs.writeFileSync(path.join(dir, `cbench-${DEAD_PID}-1`, 'cgroup.procs'), '')
  const lines = []
  const removed = cleanStaleCgroups((line) => lines.push(line), { sys })
  t.same(removed, [path.join(dir, `cbench-${DEAD_PID}-1`)])
  t.same(lines, [`removed the memory cgroup ${path.join(dir, `cbench-${DEAD_PID}-1`)} left by an earlier run (its owner pid ${DEAD_PID} is gone)`])
  t.same(ownedCgroups({ sys }), [path.join(dir, `cbench-${process.pid}-1`)])
  t.ok(fs.existsSync(path.join(dir, 'other')) && fs.existsSync(path.join(dir, 'cbench-x-1')), 'not ours: kept')
})
