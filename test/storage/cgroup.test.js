'use strict'
// storage/cgroup.js and cgroup-base.js on fake cgroup trees (v1 and v2): which cgroup is this process's (mountinfo's
// root: a container without a cgroup namespace), where the cells go (v2: the root cgroup; a leaf this run moves into
// when every process there is its own; refused with advice when not), a cell's limit and memory, its removal, and the
// clean-up of cells whose owner is gone; reads that never throw. The real kernel: cgroup-v2.test.js (v2, in each
// layout) and cold.test.js (this machine's v1).

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { readCgroupMounts, ownMemoryCgroup, makeCgroup, removeCgroup, cleanStaleCgroups, ownedCgroups } = require('../../storage/cgroup')
const { cgroupBase, cgroupProblem, release, enableBelow } = require('../../storage/cgroup-base')

const DEAD_PID = 2 ** 22 + 1 // above the kernel's pid_max: never a live process

// A fake v2 machine: the run in /run.scope (or the root), whose processes and their parents are given.
// pid 100 is this process, 50 the shell that started it, 1 init.
function fakeV2 (t, { controllers = 'cpu io memory pids', procs = [100, 50], parents = {}, own = '/run.scope', root = false } = {}) {
  const files = { 'cgroup.controllers': `${controllers}\n`, 'cgroup.subtree_control': '', 'cgroup.procs': procs.join('\n') + '\n' }
  if (!root) files['cgroup.type'] = 'domain\n' // the root cgroup has none
  const top = t.testdir(root ? files : { 'cgroup.subtree_control': 'memory\n', [own.slice(1)]: files })
  const family = { 100: 50, 50: 1, 1: 0, ...parents }
  return {
    top,
    dir: root ? top : path.join(top, own),
    sys: {
      cgroups: () => `0::${root ? '/' : own}\n`,
      mounts: () => [{ root: '/', mountpoint: top, type: 'cgroup2', options: 'rw' }],
      pid: 100,
      parentOf: (pid) => family[pid] ?? 1
    }
  }
}
function fakeV1 (t) {
  const top = t.testdir({ process_api: { abc: {} } })
  return {
    dir: path.join(top, 'process_api', 'abc'),
    sys: {
      cgroups: () => '9:name=systemd:/\n4:memory:/process_api/abc\n3:cpuset:/\n0::/\n',
      mounts: () => [{ root: '/', mountpoint: '/sys/fs/cgroup/cpuset', type: 'cgroup', options: 'rw,cpuset' },
        { root: '/', mountpoint: top, type: 'cgroup', options: 'rw,memory' }]
    }
  }
}
const read = (...parts) => fs.readFileSync(path.join(...parts), 'utf8')

t.test('mountinfo: each cgroup mount with the cgroup it shows at its mountpoint and its controllers', async (t) => {
  const text = [
    '29 1 0:26 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755',
    '35 29 0:31 /docker/abc /sys/fs/cgroup/memory rw,nosuid,nodev - cgroup cgroup rw,memory',
    '40 29 0:35 / /sys/fs/cgroup/unified\\040dir rw - cgroup2 cgroup2 rw,nsdelegate'
  ].join('\n')
  t.same(readCgroupMounts(text), [
    { root: '/docker/abc', mountpoint: '/sys/fs/cgroup/memory', type: 'cgroup', options: 'rw,memory' },
    { root: '/', mountpoint: '/sys/fs/cgroup/unified dir', type: 'cgroup2', options: 'rw,nsdelegate' }
  ])
})

t.test('this process\'s memory cgroup: v1, v2 with memory, a container\'s view; else why not, never a throw', async (t) => {
  const v1 = fakeV1(t)
  t.match(ownMemoryCgroup(v1.sys), { version: 1, dir: v1.dir, path: '/process_api/abc' })
  // A v1 container without a cgroup namespace: /proc/self/cgroup names the host's path, the mount shows it at its top.
  const inside = { ...v1.sys, mounts: () => [{ root: '/process_api/abc', mountpoint: v1.dir, type: 'cgroup', options: 'rw,memory' }] }
  t.same(ownMemoryCgroup(inside), { version: 1, dir: v1.dir, path: '/process_api/abc' })
  const lost = { ...v1.sys, cgroups: () => '4:memory:/docker/gone\n' }
  t.match(ownMemoryCgroup(lost).problem, /^this process's memory cgroup \/docker\/gone is not under .* \(a container without a cgroup namespace/)
  t.same(cleanStaleCgroups(() => t.fail('no line'), { sys: lost }), [], 'the stale sweep: nothing, no throw')
  t.same(ownedCgroups({ sys: lost }), [])
  // t.testdir is one folder a test: the v2 tree replaces the v1 one
  const v2 = fakeV2(t)
  t.match(ownMemoryCgroup(v2.sys), { version: 2, dir: v2.dir, path: '/run.scope' })
  const bare = fakeV2(t, { controllers: 'cpu pids' })
  t.match(ownMemoryCgroup(bare.sys).problem, /^the cgroup v2 tree has no memory controller at .*run\.scope \(cgroup\.controllers: cpu pids\)$/)
  t.match(ownMemoryCgroup({ cgroups: () => '0::/\n', mounts: () => [] }).problem, /^there is no memory cgroup controller/)
  t.match(ownMemoryCgroup({ cgroups: () => { throw Object.assign(new Error('x'), { code: 'ENOENT' }) }, mounts: () => [] }).problem, /\(ENOENT\)$/)
  t.equal(cgroupProblem({ uid: 1000 }), 'it makes a memory cgroup for the server, which needs root: run as root (sudo)')
})

t.test('v2 base: in a cgroup that holds only this run, the run moves into a leaf and memory is given below', async (t) => {
  // 7 is a child of this process (a server), 60 a job of the shell that started it: both this run's.
  const { dir, sys } = fakeV2(t, { procs: [1, 50, 100, 7, 60], parents: { 7: 100, 60: 50 } })
  const base = cgroupBase({ sys, guard: false, argv: [] })
  const leaf = path.join(dir, 'cbench-100-run')
  t.same(base, { version: 2, dir, home: leaf, leaf })
  t.equal(read(dir, 'cgroup.subtree_control'), '+memory', 'memory given below the run\'s cgroup')
  t.equal(read(leaf, 'cgroup.procs'), '60', 'every process written into the leaf (a fake file keeps the last)')
  const cell = makeCgroup({ base, owner: 100, guard: false })
  t.equal(cell.dir, path.join(dir, 'cbench-100-1'), 'cells beside the leaf')
  fs.writeFileSync(cell.procs, '7\n')
  t.equal(cell.remove(), '')
  t.equal(read(leaf, 'cgroup.procs'), '7', 'a cell\'s leftover process goes back to the leaf, not the parent')
  fs.writeFileSync(path.join(leaf, 'cgroup.controllers'), 'memory\n')
  t.same(ownedCgroups({ sys: { ...sys, cgroups: () => '0::/run.scope/cbench-100-run\n' } }), [], 'cells are looked for beside the leaf')
  fs.mkdirSync(path.join(dir, 'cbench-100-2'))
  t.same(ownedCgroups({ sys: { ...sys, cgroups: () => '0::/run.scope/cbench-100-run\n' } }), [path.join(dir, 'cbench-100-2')])
  fs.rmdirSync(path.join(dir, 'cbench-100-2'))
  for (const file of ['cgroup.procs', 'cgroup.controllers']) fs.rmSync(path.join(leaf, file))
  t.equal(release(dir, leaf), '', 'released')
  t.equal(read(dir, 'cgroup.subtree_control'), '-memory', 'memory taken back')
  t.notOk(fs.existsSync(leaf), 'the leaf removed')
})

t.test('v2 base: the run already in a leaf (an earlier command of its shell) makes its cells beside it', async (t) => {
  const { top, sys } = fakeV2(t, { own: '/run.scope/cbench-42-run' })
  fs.writeFileSync(path.join(top, 'run.scope', 'cgroup.subtree_control'), 'memory\n')
  t.same(cgroupBase({ sys, guard: false }), { version: 2, dir: path.join(top, 'run.scope'), home: path.join(top, 'run.scope', 'cbench-42-run') })
})

t.test('v2 base: the root cgroup gives memory straight below, with this run in it', async (t) => {
  const { dir, sys } = fakeV2(t, { root: true, procs: [1, 2, 3, 100] })
  t.same(cgroupBase({ sys, guard: false }), { version: 2, dir, home: dir })
  t.equal(read(dir, 'cgroup.subtree_control'), '+memory')
})

t.test('v2 base: a cgroup with processes that are not this run\'s is refused with what to run, and nothing changes', async (t) => {
  const { dir, sys } = fakeV2(t, { procs: [1, 50, 100, 900], parents: { 900: 1 } })
  const got = cgroupBase({ sys, guard: false, argv: ['sweep', '--storage=cold', '--kinds=sync,async', '--x=a b'] })
  t.match(got.problem, /^the cgroup \/run\.scope holds processes that are not this run's \(pid 900\), and cgroup v2 gives memory limits only below/)
  t.match(got.problem, /; in a cgroup of its own it works: sh -c 'mkdir -p .*\/cbench && echo \$\$ > .*\/cbench\/cgroup\.procs && exec /)
  t.match(got.problem, /exec \.\/run_benchmark\.sh sweep --storage=cold --kinds=sync,async '\\''--x=a b'\\'''$/, 'the command, quoted for a shell')
  t.equal(read(dir, 'cgroup.subtree_control'), '', 'memory not enabled')
  t.notOk(fs.existsSync(path.join(dir, 'cbench-100-run')), 'no leaf')
  // A container's cgroup namespace root: the advice is a container of its own.
  const ctr = fakeV2(t, { root: false, own: '/ctr', procs: [1, 100, 900], parents: { 900: 1 } })
  const inCtr = { ...ctr.sys, cgroups: () => '0::/\n', mounts: () => [{ root: '/', mountpoint: ctr.dir, type: 'cgroup2', options: 'rw' }] }
  const inContainer = cgroupBase({ sys: inCtr, guard: false, argv: ['quick'] }).problem
  t.match(inContainer, /it works: docker run --privileged --cgroupns=private IMAGE \.\/run_benchmark\.sh quick$/)
})

t.test('v2 base: when giving memory below fails, the processes go back and the leaf is removed', async (t) => {
  const { dir, sys } = fakeV2(t)
  fs.rmSync(path.join(dir, 'cgroup.subtree_control'))
  fs.mkdirSync(path.join(dir, 'cgroup.subtree_control')) // writing it fails, as the kernel's EBUSY would
  t.match(cgroupBase({ sys, guard: false, argv: [] }).problem, new RegExp(`^cannot give memory limits below ${dir} \\(EISDIR\\); `))
  t.notOk(fs.existsSync(path.join(dir, 'cbench-100-run')), 'no leaf left')
})

t.test('cells: v2 and v1 files, a new name per call, processes, removal', async (t) => {
  const { dir, sys } = fakeV2(t, { root: true })
  const base = cgroupBase({ sys, guard: false })
  const cg = makeCgroup({ base, owner: 4242, guard: false })
  t.equal(cg.dir, path.join(dir, 'cbench-4242-1'))
  t.equal(makeCgroup({ base, owner: 4242, guard: false }).dir, path.join(dir, 'cbench-4242-2'), 'the next one does not reuse a name')
  cg.setLimit(96 * 1048576)
  t.equal(read(cg.dir, 'memory.max'), String(96 * 1048576))
  cg.setLimit(null)
  t.equal(read(cg.dir, 'memory.max'), 'max', 'no limit')
  fs.writeFileSync(path.join(cg.dir, 'memory.current'), '300000\n')
  fs.writeFileSync(path.join(cg.dir, 'memory.stat'), 'anon 100000\nfile 200000\nfile_mapped 1\n')
  t.same(cg.memory(), { usage: 300000, cache: 200000, other: 100000 })
  fs.writeFileSync(path.join(cg.dir, 'memory.events'), 'low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\noom_group_kill 0\n')
  t.equal(cg.ooms(), 2, 'v2: memory.events\' oom_kill')
  t.equal(cg.remove(), '')
  t.notOk(fs.existsSync(cg.dir), 'removed')

  const v1 = fakeV1(t)
  const c1 = makeCgroup({ base: cgroupBase({ sys: v1.sys }), owner: 77, guard: false })
  t.equal(c1.dir, path.join(v1.dir, 'cbench-77-1'), 'v1: below the run\'s own cgroup')
  c1.setLimit(64 * 1048576)
  t.equal(read(c1.dir, 'memory.limit_in_bytes'), String(64 * 1048576))
  c1.setLimit(null)
  t.equal(read(c1.dir, 'memory.limit_in_bytes'), '-1')
  fs.writeFileSync(path.join(c1.dir, 'memory.usage_in_bytes'), '5000\n')
  fs.writeFileSync(path.join(c1.dir, 'memory.stat'), 'cache 10\nrss 20\ntotal_cache 4000\ntotal_rss 1000\n')
  t.same(c1.memory(), { usage: 5000, cache: 4000, other: 1000 }, 'hierarchical totals')
  fs.writeFileSync(path.join(c1.dir, 'memory.oom_control'), 'oom_kill_disable 0\nunder_oom 0\noom_kill 1\n')
  t.equal(c1.ooms(), 1, 'v1: memory.oom_control\'s oom_kill')
  fs.writeFileSync(c1.procs, '123\n456\n')
  t.same(c1.pids(), [123, 456])
})

t.test('cells whose owner is gone are removed; a live owner\'s and other folders stay', async (t) => {
  const { dir, sys } = fakeV1(t)
  for (const name of [`cbench-${DEAD_PID}-1`, `cbench-${process.pid}-1`, 'other', 'cbench-x-1']) fs.mkdirSync(path.join(dir, name))
  fs.writeFileSync(path.join(dir, `cbench-${DEAD_PID}-1`, 'cgroup.procs'), '')
  const lines = []
  const removed = cleanStaleCgroups((line) => lines.push(line), { sys })
  t.same(removed, [path.join(dir, `cbench-${DEAD_PID}-1`)])
  t.same(lines, [`removed the memory cgroup ${path.join(dir, `cbench-${DEAD_PID}-1`)} left by an earlier run (its owner pid ${DEAD_PID} is gone)`])
  t.same(ownedCgroups({ sys }), [path.join(dir, `cbench-${process.pid}-1`)])
  t.ok(fs.existsSync(path.join(dir, 'other')) && fs.existsSync(path.join(dir, 'cbench-x-1')), 'not ours: kept')
  fs.rmSync(dir, { recursive: true })
  fs.writeFileSync(dir, '') // there, yet no folder to read
  t.same(cleanStaleCgroups(() => t.fail('no line'), { sys }), [], 'the run\'s cgroup unreadable: nothing, no throw')
  t.same(ownedCgroups({ sys }), [])
})

t.test('v2 base: a process born in the run\'s cgroup while the others move (EBUSY) moves too, and memory is given', async (t) => {
  // The kernel's files, as a script: the first listing has the shell and the run, the second the shell's newborn child.
  const listings = [[50, 100], [61], []]
  const writes = []
  const io = {
    procs: () => listings.shift() ?? [],
    writeFile: (file, text) => {
      writes.push(`${path.basename(file)} ${text}`)
      return file.endsWith('subtree_control') && listings.length > 1 ? 'EBUSY' : ''
    }
  }
  t.equal(enableBelow('/cg/run.scope', '/cg/run.scope/cbench-100-run', io), '')
  t.same(writes, ['cgroup.procs 50', 'cgroup.procs 100', 'cgroup.subtree_control +memory', 'cgroup.procs 61', 'cgroup.subtree_control +memory'])
  const busy = { procs: () => [7], writeFile: (file) => file.endsWith('subtree_control') ? 'EBUSY' : '' }
  t.equal(enableBelow('/cg/x', '/cg/x/leaf', busy), 'EBUSY', 'a cgroup that stays busy is said so, after a few tries')
  t.equal(enableBelow('/cg/x', '/cg/x/leaf', { procs: () => [7], writeFile: () => 'EACCES' }), 'moving pid 7 into /cg/x/leaf: EACCES')
})

t.test('removal: a process gone while it moves (ESRCH) and a cgroup busy a moment (EBUSY) still end removed', async (t) => {
  const errno = (code) => Object.assign(new Error(code), { code })
  // The kernel as removeCgroup meets it: pids listed, each write of a pid, each rmdir answered from a script.
  function kernel ({ pids = [7], writes = [], rmdirs = [] }) {
    const calls = { writes: [], rmdirs: 0 }
    const io = {
      pids: () => pids,
      write: (file, pid) => { calls.writes.push([file, pid]); const code = writes.shift(); if (code) throw errno(code) },
      rmdir: () => { calls.rmdirs++; const code = rmdirs.shift(); if (code) throw errno(code) }
    }
    return { io, calls }
  }
  let k = kernel({ pids: [7, 8], writes: ['ESRCH'] })
  t.equal(removeCgroup('/cg/cell', '/cg/home', { io: k.io, pause: 1 }), '', 'a pid that exited while it moved')
  t.same(k.calls.writes, [['/cg/home/cgroup.procs', '7'], ['/cg/home/cgroup.procs', '8']], 'the others still move home')
  k = kernel({ rmdirs: ['EBUSY', 'EBUSY'] })
  t.equal(removeCgroup('/cg/cell', '/cg/home', { io: k.io, pause: 1 }), '', 'busy twice, then removed')
  t.equal(k.calls.rmdirs, 3)
  t.equal(k.calls.writes.length, 3, 'what is in it moves again before each try')
  k = kernel({ rmdirs: Array(50).fill('EBUSY') })
  t.equal(removeCgroup('/cg/cell', '/cg/home', { io: k.io, pause: 1, tries: 5 }), 'EBUSY', 'busy for good: why, after the tries')
  t.equal(k.calls.rmdirs, 5)
  k = kernel({ writes: ['EACCES'] })
  t.equal(removeCgroup('/cg/cell', '/cg/home', { io: k.io, pause: 1 }), 'EACCES', 'any other failure at once')
  t.equal(k.calls.rmdirs, 0)
})
