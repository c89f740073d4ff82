'use strict'
// Mounts delayfs over a folder and returns a handle that reads its counters and always unmounts;
// a last-resort exit hook kills live daemons and lazily unmounts. Required through storage/index.js.

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { buildDelayFs } = require('./check')
const { IO_DEPTH } = require('../lib/results/dimensions')
const { delayfsMounts, isMounted, lazyUnmount, readMounts } = require('./stale')

const READY = /^mounted (.*) pid=(\d+)$/
const live = new Map() // handle -> its daemon's state, until unmount() ends
const stderrLog = (line) => process.stderr.write(`${line}\n`)

// Synchronous: the last resort when the process exits without unmounting.
function onExit () {
  for (const [handle, state] of live) {
    if (!state.closed) {
      try {
        process.kill(handle.pid, 'SIGKILL')
      } catch {}
    }
    if (isMounted(handle.mountpoint)) lazyUnmount(handle.mountpoint)
  }
}

function onLines (stream, fn) {
  let rest = ''
  stream.setEncoding('utf8').on('data', (chunk) => {
    const lines = (rest + chunk).split('\n')
    rest = lines.pop()
    lines.filter(Boolean).forEach(fn)
  })
}

function checkMountpoint (mountpoint) {
  const mounted = readMounts().find((m) => m.mountpoint === mountpoint)
  if (mounted) throw new Error(`mountpoint ${mountpoint} is already a mount point (${mounted.type} from ${mounted.source}): unmount it first`)
  fs.mkdirSync(mountpoint, { recursive: true })
  const real = fs.realpathSync(mountpoint)
  if (real !== mountpoint && isMounted(real)) throw new Error(`mountpoint ${mountpoint} is already a mount point: unmount it first`)
  if (!fs.statSync(real).isDirectory()) throw new Error(`mountpoint ${mountpoint} is not a folder`)
  const entries = fs.readdirSync(real)
  if (entries.length) throw new Error(`mountpoint ${mountpoint} is not empty (${entries.length} entries): the mount would hide them`)
  return real
}

function resolveBacking (backing) {
  try {
    const real = fs.realpathSync(backing)
    if (fs.statSync(real).isDirectory()) return real
  } catch {}
  throw new Error(`backing folder ${backing} does not exist or is not a folder`)
}

const waitFor = (promise, ms) => new Promise((resolve) => {
  const timer = setTimeout(() => resolve(false), ms)
  promise.then(() => { clearTimeout(timer); resolve(true) })
})

/**
 * Mounts backing at mountpoint through delayfs: every read of data, fsync and durable write waits, at most ioDepth of
 * them at once; ioDelay µs with one in service, ioDelayQd4 µs with 4 or more, linear between (no ioDelayQd4: ioDelay
 * at every depth). A buffered write waits for nothing.
 * @param {{ backing: string, mountpoint: string, ioDelay: number, ioDelayQd4?: number|null, ioDepth?: number,
 *   log?: function(string): void, readyTimeoutMs?: number, stopTimeoutMs?: number }} options
 * @returns {Promise<{ pid: number, mountpoint: string, backing: string, exited: Promise<object>,
 *   stats: function(): Promise<object>, unmount: function(): Promise<object|null> }>}
 *   unmount() resolves with the counters the daemon printed as it exited, or null if it was killed
 */
async function mountDelayFs ({
  backing, mountpoint, ioDelay, ioDelayQd4 = null, ioDepth = IO_DEPTH, log = stderrLog, readyTimeoutMs = 10000, stopTimeoutMs = 5000
}) {
  if (!Number.isInteger(ioDelay) || ioDelay < 0) throw new TypeError(`ioDelay must be an integer >= 0 (µs), got ${ioDelay}`)
  if (ioDelayQd4 !== null && (!Number.isInteger(ioDelayQd4) || ioDelayQd4 < 0)) {
    throw new TypeError(`ioDelayQd4 must be an integer >= 0 (µs) or null, got ${ioDelayQd4}`)
  }
  if (!Number.isInteger(ioDepth) || ioDepth < 1) throw new TypeError(`ioDepth must be an integer >= 1, got ${ioDepth}`)
  if (typeof mountpoint !== 'string' || !mountpoint) throw new TypeError(`mountpoint must be a path, got ${mountpoint}`)
  const backingDir = resolveBacking(String(backing))
  const mp = checkMountpoint(path.resolve(mountpoint))
  const binary = buildDelayFs()
  const state = { ready: false, counters: null, waiters: [], stderr: [], closed: null }
  const qd4 = ioDelayQd4 === null ? [] : [`--delay-qd4-us=${ioDelayQd4}`]
  const child = spawn(binary, [backingDir, mp, `--delay-us=${ioDelay}`, ...qd4, `--depth=${ioDepth}`, `--parent-pid=${process.pid}`], {
    stdio: ['ignore', 'pipe', 'pipe']
  })
  child.on('error', (err) => state.stderr.push(err.message))
  if (!child.pid) throw new Error(`cannot start ${binary}`)
  if (!process.listeners('exit').includes(onExit)) process.on('exit', onExit)
  const handle = { pid: child.pid, mountpoint: mp, backing: backingDir }
  live.set(handle, state)

  onLines(child.stdout, (line) => {
    if (READY.test(line)) state.ready = true
    else if (line.startsWith('{')) {
      state.counters = JSON.parse(line)
      for (const waiter of state.waiters.splice(0)) waiter(state.counters)
    }
  })
  onLines(child.stderr, (line) => {
    state.stderr.push(line)
    log(`delayfs ${mp}: ${line}`)
  })
  handle.exited = new Promise((resolve) => child.on('close', (code, signal) => {
    state.closed = { code, signal }
    for (const waiter of state.waiters.splice(0)) waiter(state.counters)
    resolve(state.closed)
  }))

  handle.stats = () => {
    if (state.closed) return Promise.resolve(state.counters)
    return new Promise((resolve) => {
      state.waiters.push(resolve)
      child.kill('SIGUSR1')
    })
  }

  let unmounting = null
  handle.unmount = () => {
    unmounting = unmounting || (async () => {
      if (!state.closed) child.kill('SIGTERM')
      if (!await waitFor(handle.exited, stopTimeoutMs)) {
        log(`delayfs ${mp}: pid ${child.pid} still running ${stopTimeoutMs} ms after SIGTERM; sending SIGKILL`)
        child.kill('SIGKILL')
        await waitFor(handle.exited, 5000)
      }
      const failed = isMounted(mp) && lazyUnmount(mp)
      if (failed) throw new Error(`cannot unmount ${mp}: ${failed}`)
      live.delete(handle)
      // Only a clean exit printed its final line; a killed daemon's older counters would mislead.
      return state.closed && state.closed.code === 0 ? state.counters : null
    })()
    return unmounting
  }

  const deadline = Date.now() + readyTimeoutMs
  while (!state.ready) {
    if (state.closed) {
      await handle.unmount()
      const last = state.stderr[state.stderr.length - 1] || 'no message'
      const how = state.closed.signal ? `signal ${state.closed.signal}` : `exit code ${state.closed.code}`
      throw new Error(`delayfs exited before mounting ${mp} (${how}): ${last}`)
    }
    if (Date.now() > deadline) {
      await handle.unmount()
      throw new Error(`delayfs did not report ${mp} mounted within ${readyTimeoutMs} ms`)
    }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  if (!delayfsMounts().some((m) => m.mountpoint === mp && m.daemonPid === child.pid)) {
    await handle.unmount()
    throw new Error(`delayfs reported ${mp} mounted but /proc/mounts does not list it`)
  }
  return handle
}

module.exports = { mountDelayFs }
