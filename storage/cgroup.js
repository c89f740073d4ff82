'use strict'
// Memory cgroups for --storage=cold: a child of the cgroup this process is in (never another one), named
// cbench-<owner pid>-<n>, whose limit keeps the server's page cache well below its data set. cgroup v1
// (memory.limit_in_bytes, total_cache) and v2 (memory.max, file) alike. A guard
// process removes the child when its owner dies (SIGKILL included); cleanStaleCgroups removes what a
// guard could not. Page cache is charged to the cgroup of the process that first read the page.

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { readMounts } = require('./stale')
const { isAlive } = require('../lib/proc')

const PREFIX = 'cbench-'
const NAME = /^cbench-(\d+)-\d+$/
// What this machine says about itself; tests give a fake cgroup tree.
const SYSTEM = { cgroups: () => fs.readFileSync('/proc/self/cgroup', 'utf8'), mounts: readMounts }

// Each version's files: the limit, what no limit is, usage, and the cache's line in memory.stat.
const FILES = {
  1: { limit: 'memory.limit_in_bytes', none: '-1', usage: 'memory.usage_in_bytes', cache: 'total_cache' },
  2: { limit: 'memory.max', none: 'max', usage: 'memory.current', cache: 'file' }
}

/**
 * The memory cgroup this process is in.
 * @param {{ cgroups(): string, mounts(): object[] }} [sys]
 * @returns {{ version: 1|2, dir: string } | { problem: string }}
 */
function ownMemoryCgroup (sys = SYSTEM) {
  let lines
  try {
    lines = sys.cgroups().split('\n').filter(Boolean).map((line) => line.split(':'))
  } catch (err) {
    return { problem: `cannot read /proc/self/cgroup (${err.code || err.message})` }
  }
  const mounts = sys.mounts()
  const v1 = lines.find(([, controllers]) => controllers.split(',').includes('memory'))
  const v1Mount = mounts.find((m) => m.type === 'cgroup' && m.options?.split(',').includes('memory'))
  if (v1 && v1Mount) return { version: 1, dir: path.join(v1Mount.mountpoint, v1.slice(2).join(':')) }
  const v2 = lines.find(([id, controllers]) => id === '0' && controllers === '')
  const v2Mount = mounts.find((m) => m.type === 'cgroup2')
  if (v2 && v2Mount) {
    const dir = path.join(v2Mount.mountpoint, v2.slice(2).join(':'))
    const has = readText(path.join(dir, 'cgroup.controllers')) ?? ''
    if (has.split(/\s+/).includes('memory')) return { version: 2, dir }
    return { problem: `the cgroup v2 tree has no memory controller at ${dir} (cgroup.controllers: ${has.trim() || 'none'})` }
  }
  return { problem: 'there is no memory cgroup controller (neither a cgroup v1 memory hierarchy nor cgroup v2 with memory)' }
}

function readText (file) {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return null
  }
}

/**
 * Why --storage=cold cannot make memory cgroups here, or '' when it can: root, and a memory controller.
 * @param {{ uid?: number, sys?: object }} [how]
 * @returns {string}
 */
function cgroupProblem ({ uid = process.getuid(), sys = SYSTEM } = {}) {
  if (uid !== 0) return 'it makes a memory cgroup for the server, which needs root: run as root (sudo)'
  const own = ownMemoryCgroup(sys)
  return own.problem ?? ''
}

/**
 * Makes a child memory cgroup of this process's, with no limit yet.
 * @param {{ sys?: object, owner?: number, guard?: boolean }} [how] owner: whose it is (its name says so); guard: start the
 *   process that removes it when the owner is gone
 * @returns {{ version: 1|2, dir: string, procs: string, add(pid: number): void, pids(): number[], setLimit(bytes: number|null): void,
 *   memory(): { usage: number, cache: number, other: number }, remove(): string }} procs: the file a process
 *   writes its pid to, to join; memory: bytes in all, of page cache, and the rest; remove: '' or why not
 * @throws when the cgroup cannot be made
 */
function makeCgroup ({ sys = SYSTEM, owner = process.pid, guard = true } = {}) {
  const own = ownMemoryCgroup(sys)
  if (own.problem) throw new Error(own.problem)
  if (own.version === 2) enableMemory(own.dir)
  let dir
  for (let n = 1; !dir; n++) {
    const candidate = path.join(own.dir, `${PREFIX}${owner}-${n}`)
    try {
      fs.mkdirSync(candidate)
      dir = candidate
    } catch (err) {
      if (err.code !== 'EEXIST') throw new Error(`cannot make a memory cgroup in ${own.dir}: ${err.code || err.message}`)
    }
  }
  const cg = openCgroup(own.version, dir)
  if (guard) startGuard(owner, dir)
  return cg
}

// cgroup v2: a child has the memory controller only if its parent lists it in cgroup.subtree_control.
function enableMemory (dir) {
  const file = path.join(dir, 'cgroup.subtree_control')
  if ((readText(file) ?? '').split(/\s+/).includes('memory')) return
  try {
    fs.writeFileSync(file, '+memory')
  } catch (err) {
    throw new Error(`cannot enable the memory controller below ${dir} (${err.code || err.message})` +
      (err.code === 'EBUSY' ? ': that cgroup holds processes; run the benchmark in a cgroup of its own that delegates memory' : ''))
  }
}

/** The cgroup at dir, of the given version (makeCgroup's object). */
function openCgroup (version, dir) {
  const f = FILES[version]
  const file = (name) => path.join(dir, name)
  const number = (name) => Number(fs.readFileSync(file(name), 'utf8').trim())
  const pids = () => (readText(file('cgroup.procs')) ?? '').split('\n').filter(Boolean).map(Number)
  return {
    version,
    dir,
    procs: file('cgroup.procs'),
    add: (pid) => fs.writeFileSync(file('cgroup.procs'), String(pid)),
    pids,
    setLimit: (bytes) => fs.writeFileSync(file(f.limit), bytes === null ? f.none : String(Math.round(bytes))),
    memory () {
      const usage = number(f.usage)
      const stat = fs.readFileSync(file('memory.stat'), 'utf8')
      const cache = Number(new RegExp(`^${f.cache} (\\d+)$`, 'm').exec(stat)?.[1] ?? 0)
      return { usage, cache, other: Math.max(0, usage - cache) }
    },
    remove: () => removeCgroup(dir, pids)
  }
}

// Moves what is left to the parent (a cgroup with processes cannot go), then removes the folder.
function removeCgroup (dir, pids = () => (readText(path.join(dir, 'cgroup.procs')) ?? '').split('\n').filter(Boolean)) {
  try {
    for (const pid of pids()) fs.writeFileSync(path.join(path.dirname(dir), 'cgroup.procs'), String(pid))
    fs.rmdirSync(dir)
    return ''
  } catch (err) {
    if (err.code === 'ENOENT') return ''
    // A fake tree (tests) holds the files a real one shows by itself.
    if (err.code === 'ENOTEMPTY' && !isCgroupFs(dir)) {
      fs.rmSync(dir, { recursive: true, force: true })
      return ''
    }
    return `${err.code || err.message}`
  }
}

const isCgroupFs = (dir) => readMounts().some((m) => ['cgroup', 'cgroup2'].includes(m.type) && (dir + '/').startsWith(m.mountpoint + '/'))

// A detached shell that waits for the owner to go, then for the cgroup's processes (the servers end
// when their parent does: lib/parent-watch.js) for at most 10 s, and removes it. It ends by itself
// when the cgroup is removed first (the normal end of a run).
const GUARD = `while kill -0 "$1" 2>/dev/null && [ -d "$2" ]; do sleep 0.5; done
[ -d "$2" ] || exit 0
i=0; while [ -s "$2/cgroup.procs" ] && [ $i -lt 20 ]; do sleep 0.5; i=$((i+1)); done
for p in $(cat "$2/cgroup.procs"); do echo "$p" > "$2/../cgroup.procs"; done
rmdir "$2"`

function startGuard (owner, dir) {
  const child = spawn('/bin/sh', ['-c', GUARD, 'cbench-cgroup-guard', String(owner), dir], { detached: true, stdio: 'ignore' })
  child.unref()
}

/**
 * Removes the cbench- cgroups below this process's memory cgroup whose owner is gone.
 * @param {(line: string) => void} log one line per cgroup
 * @param {{ sys?: object }} [how]
 * @returns {string[]} the removed folders
 */
function cleanStaleCgroups (log, { sys = SYSTEM } = {}) {
  const own = ownMemoryCgroup(sys)
  if (own.problem) return []
  const removed = []
  for (const name of fs.readdirSync(own.dir)) {
    const owner = NAME.exec(name)?.[1]
    if (!owner || isAlive(Number(owner))) continue
    const dir = path.join(own.dir, name)
    const failed = removeCgroup(dir)
    log(failed ? `could not remove the memory cgroup ${dir} left by an earlier run: ${failed}`
      : `removed the memory cgroup ${dir} left by an earlier run (its owner pid ${owner} is gone)`)
    if (!failed) removed.push(dir)
  }
  return removed
}

/** The cbench- cgroups below this process's memory cgroup. */
function ownedCgroups ({ sys = SYSTEM } = {}) {
  const own = ownMemoryCgroup(sys)
  return own.problem ? [] : fs.readdirSync(own.dir).filter((name) => NAME.test(name)).map((name) => path.join(own.dir, name))
}

module.exports = { ownMemoryCgroup, cgroupProblem, makeCgroup, cleanStaleCgroups, ownedCgroups }
