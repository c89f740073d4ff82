'use strict'
// delayfs mounts as /proc/mounts lists them, lazy unmounting, and the clean-up of mounts that an
// earlier run left behind (dead daemon or dead owner). Used by storage/mount.js and at start-up.

const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { readStat, isAlive } = require('../lib/machine/proc')
const { hasProc, procPath } = require('../lib/platform')

// /proc/mounts escapes space, tab, newline and backslash as \ooo.
const unescape = (field) => field.replace(/\\([0-7]{3})/g, (_, oct) => String.fromCharCode(parseInt(oct, 8)))

/** Every mount in /proc/mounts as { source, mountpoint, type, options }; none without /proc (no delayfs mounts there). */
function readMounts () {
  if (!hasProc()) return []
  return fs.readFileSync(procPath('mounts'), 'utf8').split('\n').filter(Boolean).map((line) => {
    const [source, mountpoint, type, options] = line.split(' ').map(unescape)
    return { source, mountpoint, type, options }
  })
}

/**
 * The delayfs mounts; the source is `delayfs:<ownerPid>:<daemonPid>:<backing>`.
 * @returns {Array<{ mountpoint: string, backing: string, ownerPid: number, daemonPid: number }>}
 */
function delayfsMounts () {
  const found = []
  for (const m of readMounts()) {
    const parts = /^delayfs:(\d+):(\d+):(.*)$/s.exec(m.source)
    if (m.type !== 'fuse.delayfs' || !parts) continue
    found.push({ mountpoint: m.mountpoint, backing: parts[3], ownerPid: Number(parts[1]), daemonPid: Number(parts[2]) })
  }
  return found
}

const isMounted = (mountpoint) => readMounts().some((m) => m.mountpoint === mountpoint)

// A pid reused by another program is not our daemon.
const isDaemonAlive = (pid) => isAlive(pid) && readStat(pid)?.comm === 'delayfs'

/** Lazily unmounts (a busy mount goes too); returns null on success, else the reason. */
function lazyUnmount (mountpoint) {
  const res = spawnSync('fusermount3', ['-u', '-z', '--', mountpoint], { encoding: 'utf8' })
  if (!isMounted(mountpoint)) return null
  const alt = spawnSync('umount', ['-l', '--', mountpoint], { encoding: 'utf8' })
  if (!isMounted(mountpoint)) return null
  const why = (r) => (r.error ? r.error.message : `${r.stderr}`.trim()) || `exit ${r.status}`
  return `fusermount3: ${why(res)}; umount: ${why(alt)}`
}

// /proc/mounts names real paths; a dead mount itself cannot be resolved, so its parent is.
function realPath (dir) {
  try {
    return fs.realpathSync(dir)
  } catch {
    return path.join(fs.realpathSync(path.dirname(path.resolve(dir))), path.basename(dir))
  }
}

/**
 * Unmounts delayfs mounts whose daemon or owner process is gone; never one whose daemon and owner live.
 * @param {function(string): void} [log] gets one line per mount (default: stderr)
 * @param {string|null} [under] only mounts in this folder (a sweep's dataPath, so that runs with
 *   other data folders, such as concurrent test runs, keep theirs); null: every one
 * @returns {Array<{ mountpoint: string, backing: string, ownerPid: number, daemonPid: number }>} the unmounted ones
 */
function cleanStaleMounts (log = (line) => process.stderr.write(`${line}\n`), under = null) {
  const root = under && realPath(under)
  const inside = (mountpoint) => root === null || mountpoint === root || mountpoint.startsWith(root + path.sep)
  const cleaned = []
  for (const mount of delayfsMounts().filter((m) => inside(m.mountpoint))) {
    const daemon = isDaemonAlive(mount.daemonPid)
    if (daemon && isAlive(mount.ownerPid)) continue
    const why = daemon ? `its owner pid ${mount.ownerPid} is gone` : `its daemon pid ${mount.daemonPid} is gone`
    const failed = lazyUnmount(mount.mountpoint)
    if (failed) {
      log(`could not unmount a stale delayfs mount at ${mount.mountpoint} (${why}): ${failed}`)
      continue
    }
    // A daemon that outlived its owner notices the unmount and exits by itself.
    log(`unmounted a stale delayfs mount at ${mount.mountpoint} left by an earlier run (${why})`)
    cleaned.push(mount)
  }
  return cleaned
}

module.exports = { cleanStaleMounts, delayfsMounts, isMounted, lazyUnmount, readMounts }
