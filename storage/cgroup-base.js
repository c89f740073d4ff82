'use strict'
// Where a cold run makes its cells' memory cgroups (the base), and the trial that shows it can, before anything is
// written. cgroup v1: below the run's own cgroup. cgroup v2 forbids a cgroup with processes to give its children a
// controller ("no internal processes"), except the root: there the cells go straight below; elsewhere, when every
// process in the run's cgroup is this run's (its shells above it, its children), they move into a leaf,
// cbench-<pid>-run, memory is enabled for the children, and at exit (or, after SIGKILL, by a guard) all is put back.
// A cgroup that holds other processes is refused with the command that gives the run one of its own.

const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const { SYSTEM, ownMemoryCgroup, makeCgroup, removeCgroup, pidsIn, words } = require('./cgroup')

const LEAF = /^cbench-(\d+)-run$/
const TRIAL_LIMIT = 64 * 1048576

// This process's ancestors, itself included.
function ancestors (sys) {
  const found = new Set()
  for (let pid = sys.pid; pid > 0 && !found.has(pid); pid = sys.parentOf(pid)) found.add(pid)
  return found
}

// A pid is this run's when it is an ancestor, or below this process or the shell that started it.
function runsProcesses (sys) {
  const above = ancestors(sys)
  const roots = new Set([sys.pid, sys.parentOf(sys.pid)])
  return (pid) => {
    if (above.has(pid)) return true
    for (let p = pid, n = 0; p > 0 && n < 64; p = sys.parentOf(p), n++) if (roots.has(p)) return true
    return false
  }
}

const shellQuote = (arg) => /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`

// What to run instead, for this machine: the tail of the refusal's one line.
function advice (own, argv) {
  const command = ['./run_benchmark.sh', ...argv].map(shellQuote).join(' ')
  if (words('/proc/1/comm')[0] === 'systemd') return `in a scope of its own it works: sudo systemd-run --scope -p Delegate=yes --quiet -- ${command}`
  if (own.path === '/') {
    return 'as the only process of a container with a cgroup namespace and a writable cgroup tree it works: ' +
      `docker run --privileged --cgroupns=private IMAGE ${command}`
  }
  // A new cgroup right below the root, which may hold processes and takes the run whole.
  const top = own.dir.slice(0, own.dir.length - own.path.length) || '/'
  const fresh = path.join(top, 'cbench')
  return `in a cgroup of its own it works: sh -c ${shellQuote(`mkdir -p ${fresh} && echo $$ > ${fresh}/cgroup.procs && exec ${command}`)}`
}

// Writes a cgroup file; '' or why not.
function write (file, text) {
  try {
    fs.writeFileSync(file, text)
    return ''
  } catch (err) {
    return err.code || err.message
  }
}

// Every process of the leaf back to dir, memory no longer given below dir, and the leaf removed: '' or why not.
function release (dir, leaf) {
  write(path.join(dir, 'cgroup.subtree_control'), '-memory')
  return removeCgroup(leaf, dir)
}

// After SIGKILL of the owner: once its cells are gone (their guards, at most about 10 s), what release does.
const LEAF_GUARD = `while kill -0 "$1" 2>/dev/null && [ -d "$3" ]; do sleep 0.5; done
[ -d "$3" ] || exit 0
i=0; while ls -d "$2"/cbench-"$1"-[0-9]* >/dev/null 2>&1 && [ $i -lt 30 ]; do sleep 0.5; i=$((i+1)); done
echo -memory > "$2/cgroup.subtree_control" 2>/dev/null
for p in $(cat "$3/cgroup.procs"); do echo "$p" > "$2/cgroup.procs" 2>/dev/null; done
rmdir "$3"`

function holdLeaf (owner, dir, leaf, guard) {
  process.on('exit', () => release(dir, leaf))
  if (guard) spawn('/bin/sh', ['-c', LEAF_GUARD, 'cbench-cgroup-guard', String(owner), dir, leaf], { detached: true, stdio: 'ignore' }).unref()
}

/**
 * Where the cells go, made ready: on cgroup v2 memory enabled below it, this run moved into a leaf where needed.
 * @param {{ sys?: object, argv?: string[], guard?: boolean }} [how] argv: the command's arguments, for the advice
 * @returns {{ version: 1|2, dir: string, home: string, leaf?: string } | { problem: string }} home: where a cell's
 *   leftover processes go back to; leaf: the one this run made
 */
function cgroupBase ({ sys = SYSTEM, argv = process.argv.slice(2), guard = true } = {}) {
  const own = ownMemoryCgroup(sys)
  if (own.problem) return own
  if (own.version === 1) return { version: 1, dir: own.dir, home: own.dir }
  const control = (dir) => path.join(dir, 'cgroup.subtree_control')
  // The root cgroup (it has no cgroup.type) may hold processes and give controllers.
  if (!fs.existsSync(path.join(own.dir, 'cgroup.type'))) {
    const failed = words(control(own.dir)).includes('memory') ? '' : write(control(own.dir), '+memory')
    return failed ? { problem: `cannot enable the memory controller in the root cgroup (${failed})` } : { version: 2, dir: own.dir, home: own.dir }
  }
  // Already in a leaf: an earlier cold command of this shell, or this run's own (a trial before).
  const parent = path.dirname(own.dir)
  if (LEAF.test(path.basename(own.dir)) && words(control(parent)).includes('memory')) {
    const owner = Number(LEAF.exec(path.basename(own.dir))[1])
    if (owner !== sys.pid && !fs.existsSync(`/proc/${owner}`)) holdLeaf(sys.pid, parent, own.dir, false)
    return { version: 2, dir: parent, home: own.dir }
  }
  const ours = runsProcesses(sys)
  const others = pidsIn(own.dir).filter((pid) => !ours(pid))
  if (others.length > 0) {
    return {
      problem: `the cgroup ${own.path} holds processes that are not this run's (pid ${others.slice(0, 3).join(', ')}${others.length > 3 ? ', ...' : ''}), ` +
        `and cgroup v2 gives memory limits only below a cgroup without processes; ${advice(own, argv)}`
    }
  }
  const leaf = path.join(own.dir, `cbench-${sys.pid}-run`)
  const failed = mkdir(leaf) || enableBelow(own.dir, leaf)
  if (failed) {
    release(own.dir, leaf)
    return { problem: `cannot give memory limits below ${own.dir} (${failed}); ${advice(own, argv)}` }
  }
  holdLeaf(sys.pid, own.dir, leaf, guard)
  return { version: 2, dir: own.dir, home: leaf, leaf }
}

/**
 * Moves every process of dir into leaf, then enables memory for dir's children; '' or why not. The run's shell may fork
 * while they move (a job, a polling loop): a child born in dir before its parent moved keeps dir busy, and the kernel
 * answers EBUSY. What is left in dir then moves too and the write is tried again, a few times.
 * @param {string} dir
 * @param {string} leaf
 * @param {{ procs?: (dir: string) => number[], writeFile?: (file: string, text: string) => string }} [io] for tests
 */
function enableBelow (dir, leaf, { procs = pidsIn, writeFile = write } = {}) {
  let failed = ''
  for (let k = 0; k < 10; k++) {
    for (const pid of procs(dir)) {
      const why = writeFile(path.join(leaf, 'cgroup.procs'), String(pid))
      if (why && why !== 'ESRCH') return `moving pid ${pid} into ${leaf}: ${why}`
    }
    failed = writeFile(path.join(dir, 'cgroup.subtree_control'), '+memory')
    if (failed !== 'EBUSY') return failed
  }
  return failed
}

function mkdir (dir) {
  try {
    fs.mkdirSync(dir)
    return ''
  } catch (err) {
    return err.code === 'EEXIST' ? '' : err.code || err.message
  }
}

let base = null
/** cgroupBase, made once per run. @throws when it cannot be */
function runBase () {
  base ??= cgroupBase()
  if (base.problem) throw new Error(base.problem)
  return base
}

/**
 * Why --storage=cold cannot make memory cgroups here, or '': root first, then a trial of what a cell does (make a
 * cgroup, set a limit, run a process in it, read its memory, remove it). In well under a second.
 * @param {{ uid?: number, trial?: boolean }} [how] trial: false for the cheap checks only
 * @returns {string}
 */
function cgroupProblem ({ uid = process.getuid(), trial = true } = {}) {
  if (uid !== 0) return 'it makes a memory cgroup for the server, which needs root: run as root (sudo)'
  if (!trial) return ownMemoryCgroup().problem ?? ''
  let cg
  try {
    cg = makeCgroup({ base: runBase(), guard: false })
    cg.setLimit(TRIAL_LIMIT)
    const res = spawnSync('/bin/sh', ['-c', 'echo $$ > "$0" && exec head -c 1048576 /dev/zero', cg.procs], { stdio: 'ignore' })
    if (res.status !== 0) throw new Error(`a process could not join it (${res.error?.code ?? `exit ${res.status}`})`)
    cg.memory()
    return ''
  } catch (err) {
    return err.message
  } finally {
    cg?.remove()
  }
}

module.exports = { cgroupBase, runBase, cgroupProblem, release, enableBelow }
