'use strict'
// The one place that says which platform the code runs on and where it reads /proc. BENCH_PLATFORM and BENCH_PROC
// (inherited by every process a run starts) let a test run the whole path as if on a machine without Linux's /proc.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const PLATFORM = process.env.BENCH_PLATFORM || process.platform
const PROC_ROOT = process.env.BENCH_PROC || '/proc'
const isLinux = PLATFORM === 'linux'

let procSeen
/** Whether /proc can be read: Linux, and its root mounted (an empty /proc, as in a mount namespace, is none). */
function hasProc () {
  procSeen ??= isLinux && fs.existsSync(path.join(PROC_ROOT, 'self', 'stat'))
  return procSeen
}

/** A path under /proc: procPath(pid, 'stat'). */
const procPath = (...parts) => path.join(PROC_ROOT, ...parts.map(String))

/**
 * What needs Linux, in one line each: what is lost here and what would bring it. A command prints the lines of what it
 * uses once, at its start, where they cannot be had (notLinuxLines); a flag that needs one is refused with its line.
 */
const LINUX_ONLY = {
  storage: 'storage latency (--ioDelay: the FUSE delay layer) and the real disk (--storage=cold: cgroups) need Linux with FUSE ' +
    'and cgroups: those cells are left out',
  others: 'the CPU other processes took in a pass is judged from the machine\'s CPU times (os.cpus()) less what the run\'s ' +
    'own processes report (process.cpuUsage); steal and iowait are not measured (Linux\'s /proc/stat counts them)',
  blind: 'the CPU other processes took in a pass is not measured: os.cpus() has no CPU times here (libuv reads them from ' +
    '/proc/stat), so every pass is kept; Linux\'s /proc brings it',
  ports: 'how a cluster shares its port (read from /proc/net and /proc/PID/fd) is not measured here',
  profile: 'needs Linux: its pool and per-thread figures come from /proc/PID/task and its kernel stacks from perf (off Linux, ' +
    'node --cpu-prof profiles one server by hand)',
  cpuset: '--cpuset=split pins with taskset and needs Linux',
  netns: '--hosts=netns and --rtt need Linux (network namespaces and iproute2)',
  lb: 'the -lb kinds need Linux here (HAProxy\'s CPU and its leftovers are read from /proc)'
}

/**
 * The lines of what a command uses that needs Linux, when this is not Linux with /proc; [] on Linux.
 * @param {string[]} names keys of LINUX_ONLY
 * @returns {string[]} "not Linux (darwin): ..." or "no /proc here: ..." lines
 */
function notLinuxLines (names) {
  if (hasProc()) return []
  const where = isLinux ? 'no /proc here' : `not Linux (${PLATFORM})`
  return names.map((name) => `${where}: ${LINUX_ONLY[name === 'others' && os.cpus().length === 0 ? 'blind' : name]}`)
}

module.exports = { PLATFORM, PROC_ROOT, isLinux, hasProc, procPath, LINUX_ONLY, notLinuxLines }
