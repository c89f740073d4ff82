'use strict'
// Can FUSE be used here, and is the delayfs daemon built? Used by storage/mount.js and by tests
// that skip themselves with checkFuse()'s reason.

const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { findOnPath } = require('../lib/find-on-path')
const { hasProc, LINUX_ONLY } = require('../lib/platform')

const DIR = __dirname
const SOURCE = path.join(DIR, 'delayfs.c')
const BINARY = path.join(DIR, 'build', 'delayfs')
const INSTALL = './run_benchmark.sh setup, or apt-get install -y fuse3 libfuse3-dev pkg-config gcc make'

function isBuilt () {
  try {
    return fs.statSync(BINARY).mtimeMs >= fs.statSync(SOURCE).mtimeMs
  } catch {
    return false
  }
}

/**
 * Says whether delayfs can mount here.
 * @param {object} [env] environment whose PATH is searched (default process.env)
 * @returns {string|null} null when FUSE can be used, else one line naming what is missing
 */
function checkFuse (env = process.env) {
  if (!hasProc()) return LINUX_ONLY.storage
  try {
    if (!fs.statSync('/dev/fuse').isCharacterDevice()) throw new Error('not a device')
    fs.accessSync('/dev/fuse', fs.constants.R_OK | fs.constants.W_OK)
  } catch (err) {
    const what = err.code === 'ENOENT' ? 'is missing' : `cannot be used (${err.code || err.message})`
    return `/dev/fuse ${what}: storage latency needs FUSE (${INSTALL})`
  }
  if (!findOnPath('fusermount3', env.PATH)) {
    return `fusermount3 is not on the PATH: storage latency needs it to unmount (${INSTALL})`
  }
  if (isBuilt()) return null
  for (const tool of ['make', 'cc', 'pkg-config']) {
    if (!findOnPath(tool, env.PATH)) return `${tool} is not on the PATH: it is needed to build storage/build/delayfs (${INSTALL})`
  }
  const lib = spawnSync('pkg-config', ['--exists', 'fuse3'], { env, stdio: 'ignore' })
  if (lib.status !== 0) return `pkg-config finds no fuse3: building storage/build/delayfs needs libfuse3-dev (${INSTALL})`
  return null
}

/**
 * Builds storage/build/delayfs with make when it is missing or older than delayfs.c.
 * @returns {string} the daemon's path
 * @throws {Error} with the compiler's last lines when the build fails
 */
function buildDelayFs () {
  if (isBuilt()) return BINARY
  const res = spawnSync('make', ['-s', '-C', DIR, 'build/delayfs'], { encoding: 'utf8' })
  if (res.error) throw new Error(`cannot run make to build delayfs: ${res.error.message} (${INSTALL})`)
  if (res.status !== 0 || !isBuilt()) {
    const tail = `${res.stdout}${res.stderr}`.trim().split('\n').slice(-5).join('\n')
    throw new Error(`building storage/build/delayfs failed (make exit ${res.status}):\n${tail}`)
  }
  return BINARY
}

module.exports = { checkFuse, buildDelayFs }
