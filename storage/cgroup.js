'use strict'
// Memory cgroups for --storage=cold: a child of the run's cgroup (storage/cgroup-base.js: on cgroup v2 the run may
// first move into a leaf of its own), named cbench-<owner pid>-<n>, whose limit keeps the server's page cache well
// below its data set. cgroup v1 (memory.limit_in_bytes, total_cache) and v2 (memory.max, file) alike. A guard
// process removes the child when its owner dies (SIGKILL included); cleanStaleCgroups removes what a guard could
// not. Page cache is charged to the cgroup of the process that first read the page. Reading never throws: a path
// that is not there is "no cgroups of ours here".

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { readStat, isAlive } = require('../lib/machine/proc')
const { hasProc, procPath, LINUX_ONLY } = require('../lib/platform')

const PREFIX = 'cbench-'
const NAME = /^cbench-(\d+)-\d+$/

// /proc/self/mountinfo: "id parent major:minor root mountpoint options [optional...] - type source superoptions".
// root is the cgroup the mount shows at its mountpoint (a container without a cgroup namespace sees its own there).
const unescape = (field) => field.replace(/\\([0-7]{3})/g, (_, oct) => String.fromCharCode(parseInt(oct, 8)))
function readCgroupMounts (text = fs.readFileSync(procPath('self', 'mountinfo'), 'utf8')) {
  return text.split('\n').filter(Boolean).map((line) => {
    const [head, tail] = line.split(' - ')
    const f = head.split(' ').map(unescape)
    const [type, , options = ''] = (tail ?? '').split(' ')
    return { root: f[3], mountpoint: f[4], type, options }
  }).filter((m) => m.type === 'cgroup' || m.type === 'cgroup2')
}

// What this machine says about itself; tests give a fake cgroup tree. parentOf: a process's parent pid, or 0.
const SYSTEM = {
  cgroups: () => {
    if (!hasProc()) throw new Error(`no /proc: ${LINUX_ONLY.storage}`)
    return fs.readFileSync(procPath('self', 'cgroup'), 'utf8')
  },
  mounts: () => readCgroupMounts(),
  pid: process.pid,
  parentOf: (pid) => readStat(pid)?.ppid ?? 0
}

// Each version's files: the limit, what no limit is, usage, and the cache's line in memory.stat.
const FILES = {
  1: { limit: 'memory.limit_in_bytes', none: '-1', usage: 'memory.usage_in_bytes', cache: 'total_cache', events: 'memory.oom_control' },
  2: { limit: 'memory.max', none: 'max', usage: 'memory.current', cache: 'file', events: 'memory.events' }
}

function readText (file) {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return null
  }
}
const words = (file) => (readText(file) ?? '').split(/\s+/).filter(Boolean)
const pidsIn = (dir) => words(path.join(dir, 'cgroup.procs')).map(Number)

/**
 * The memory cgroup this process is in, as a folder of this machine.
 * @param {{ cgroups(): string, mounts(): object[] }} [sys]
 * @returns {{ version: 1|2, dir: string, path: string } | { problem: string }} path: as /proc/self/cgroup names it
 */
function ownMemoryCgroup (sys = SYSTEM) {
  let lines, mounts
  try {
    lines = sys.cgroups().split('\n').filter(Boolean).map((line) => line.split(':'))
    mounts = sys.mounts()
  } catch (err) {
    return { problem: `cannot read this process's cgroups (${err.code || err.message})` }
  }
  const v1 = lines.find(([, controllers]) => controllers.split(',').includes('memory'))
  const v1Mount = mounts.find((m) => m.type === 'cgroup' && m.options.split(',').includes('memory'))
  const v2 = lines.find(([id, controllers]) => id === '0' && controllers === '')
  const v2Mount = mounts.find((m) => m.type === 'cgroup2')
  const [version, line, mount] = v1 && v1Mount ? [1, v1, v1Mount] : v2 && v2Mount ? [2, v2, v2Mount] : []
  if (!version) return { problem: 'there is no memory cgroup controller (neither a cgroup v1 memory hierarchy nor cgroup v2 with memory)' }
  const own = line.slice(2).join(':')
  const rel = path.posix.relative(mount.root ?? '/', own)
  const dir = path.join(mount.mountpoint, rel)
  if (rel.startsWith('..') || !fs.existsSync(dir)) {
    return { problem: `this process's memory cgroup ${own} is not under ${mount.mountpoint} (a container without a cgroup namespace of its own?)` }
  }
  if (version === 2 && !words(path.join(dir, 'cgroup.controllers')).includes('memory')) {
    const has = words(path.join(dir, 'cgroup.controllers')).join(' ') || 'none'
    return { problem: `the cgroup v2 tree has no memory controller at ${dir} (cgroup.controllers: ${has})` }
  }
  return { version, dir, path: own }
}

/** The cgroup at dir, of the given version (makeCgroup's object). */
function openCgroup (version, dir, home) {
  const f = FILES[version]
  const file = (name) => path.join(dir, name)
  const number = (name) => Number(fs.readFileSync(file(name), 'utf8').trim())
  return {
    version,
    dir,
    procs: file('cgroup.procs'),
    add: (pid) => fs.writeFileSync(file('cgroup.procs'), String(pid)),
    pids: () => pidsIn(dir),
    setLimit: (bytes) => fs.writeFileSync(file(f.limit), bytes === null ? f.none : String(Math.round(bytes))),
    memory () {
      const usage = number(f.usage)
      const stat = fs.readFileSync(file('memory.stat'), 'utf8')
      const cache = Number(new RegExp(`^${f.cache} (\\d+)$`, 'm').exec(stat)?.[1] ?? 0)
      return { usage, cache, other: Math.max(0, usage - cache) }
    },
    // Processes the kernel killed at the limit (the oom_kill line of v1's memory.oom_control, v2's memory.events).
    ooms: () => Number(/^oom_kill (\d+)$/m.exec(fs.readFileSync(file(f.events), 'utf8'))?.[1] ?? 0),
    remove: () => removeCgroup(dir, home)
  }
}

/**
 * Makes a child memory cgroup in the run's base (cgroup-base.js), with no limit yet.
 * @param {{ base: { version: 1|2, dir: string, home: string }, owner?: number, guard?: boolean }} how base: where cells
 *   go and home, where a cell's leftover processes go back to; owner: whose it is (its name says so); guard: start
 *   the process that removes it when the owner is gone
 * @returns {{ version: 1|2, dir: string, procs: string, add(pid: number): void, pids(): number[], setLimit(bytes: number|null): void,
 *   memory(): { usage: number, cache: number, other: number }, ooms(): number, remove(): string }} procs: the file a process
 *   writes its pid to, to join; memory: bytes in all, of page cache, and the rest; ooms: processes killed at the limit;
 *   remove: '' or why not
 * @throws when the cgroup cannot be made
 */
function makeCgroup ({ base, owner = process.pid, guard = true }) {
  for (let n = 1; ; n++) {
    const dir = path.join(base.dir, `${PREFIX}${owner}-${n}`)
    try {
      fs.mkdirSync(dir)
    } catch (err) {
      if (err.code === 'EEXIST') continue
      throw new Error(`cannot make a memory cgroup in ${base.dir}: ${err.code || err.message}`)
    }
    if (guard) startGuard(owner, dir, base.home)
    return openCgroup(base.version, dir, base.home)
  }
}

// Moves what is left to home (a cgroup with processes cannot go), then removes the folder. A process that exits
// while it is moved is gone (ESRCH), and one that has just exited may keep the folder busy a moment (EBUSY): the
// move and the removal are tried again for up to 2 s. io: the kernel's answers, for tests.
function removeCgroup (dir, home = path.dirname(dir), { tries = 20, pause = 100, io = { pids: pidsIn, write: fs.writeFileSync, rmdir: fs.rmdirSync } } = {}) {
  for (let k = 1; ; k++) {
    try {
      for (const pid of io.pids(dir)) {
        try {
          io.write(path.join(home, 'cgroup.procs'), String(pid))
        } catch (err) {
          if (err.code !== 'ESRCH') throw err
        }
      }
      io.rmdir(dir)
      return ''
    } catch (err) {
      if (err.code === 'ENOENT') return ''
      // A fake tree (tests) holds the files a real one shows by itself.
      if (err.code === 'ENOTEMPTY' && !isCgroupFs(dir)) {
        fs.rmSync(dir, { recursive: true, force: true })
        return ''
      }
      if (err.code !== 'EBUSY' || k >= tries) return `${err.code || err.message}`
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause)
    }
  }
}

const isCgroupFs = (dir) => {
  try {
    return readCgroupMounts().some((m) => (dir + '/').startsWith(m.mountpoint + '/'))
  } catch {
    return false
  }
}

// A detached shell that waits for the owner to go, then for the cgroup's processes (the servers end
// when their parent does: lib/machine/parent-watch.js) for at most 10 s, and removes it. It ends by itself
// when the cgroup is removed first (the normal end of a run).
const GUARD = `while kill -0 "$1" 2>/dev/null && [ -d "$2" ]; do sleep 0.5; done
[ -d "$2" ] || exit 0
i=0; while [ -s "$2/cgroup.procs" ] && [ $i -lt 20 ]; do sleep 0.5; i=$((i+1)); done
for p in $(cat "$2/cgroup.procs"); do echo "$p" > "$3/cgroup.procs"; done
rmdir "$2"`

function startGuard (owner, dir, home) {
  spawn('/bin/sh', ['-c', GUARD, 'cbench-cgroup-guard', String(owner), dir, home], { detached: true, stdio: 'ignore' }).unref()
}

// The cbench- cells in a folder, or none when it cannot be read.
function cellsIn (dir) {
  try {
    return fs.readdirSync(dir).filter((name) => NAME.test(name))
  } catch {
    return []
  }
}

/**
 * Removes the cbench- cgroups below this process's memory cgroup whose owner is gone. Never throws.
 * @param {(line: string) => void} log one line per cgroup
 * @param {{ sys?: object }} [how]
 * @returns {string[]} the removed folders
 */
function cleanStaleCgroups (log, { sys = SYSTEM } = {}) {
  const own = ownMemoryCgroup(sys)
  if (own.problem) return []
  const removed = []
  for (const name of cellsIn(own.dir)) {
    const owner = NAME.exec(name)[1]
    if (isAlive(Number(owner))) continue
    const dir = path.join(own.dir, name)
    const failed = removeCgroup(dir)
    log(failed ? `could not remove the memory cgroup ${dir} left by an earlier run: ${failed}`
      : `removed the memory cgroup ${dir} left by an earlier run (its owner pid ${owner} is gone)`)
    if (!failed) removed.push(dir)
  }
  return removed
}

/** The cbench- cells in the folder where this run makes them (its own cgroup, or the one above its leaf). */
function ownedCgroups ({ sys = SYSTEM } = {}) {
  const own = ownMemoryCgroup(sys)
  if (own.problem) return []
  const dir = /^cbench-\d+-run$/.test(path.basename(own.dir)) ? path.dirname(own.dir) : own.dir
  return cellsIn(dir).map((name) => path.join(dir, name))
}

module.exports = { SYSTEM, readCgroupMounts, ownMemoryCgroup, makeCgroup, removeCgroup, cleanStaleCgroups, ownedCgroups, pidsIn, words }
