'use strict'
// Storage faults (a full disk, an I/O error, a data folder gone) told once and then counted: the
// first of a kind is logged at once, later ones as one line with a count per window (10 s), so a
// failing disk cannot flood the log. A cluster worker sends its counts to the primary, which logs.

const WINDOW_MS = 10000

// What an fs error code means to the person reading the log.
const MEANING = {
  ENOSPC: 'disk full',
  EDQUOT: 'disk quota exceeded',
  EIO: 'I/O error',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'the data folder is gone',
  ENOTDIR: 'the data folder is not a folder'
}

/**
 * The status a failed store operation answers and, for a storage fault, its log key and line.
 * @param {Error} err from the store (fs errors carry code and syscall)
 * @param {'GET'|'PUT'} op
 * @returns {{ key: string, message: string } | null} null for errors that are not storage faults
 */
function describeFault (err, op) {
  if (typeof err.code !== 'string' || !(err.syscall || err.status === 507)) return null
  const key = `${op} ${err.code}`
  const meaning = MEANING[err.code] ? `${MEANING[err.code]} (${err.code})` : err.code
  return { key, message: `${op} failed: ${meaning}: ${err.message}` }
}

/**
 * A log that says each fault once, then one line per window with how many more there were.
 * @param {{ emit: (e: { key: string, message: string, count: number, first: boolean, ms: number }) => void,
 *   windowMs?: number }} how emit: where the lines (or, in a worker, the counts) go
 * @returns {{ note(key: string, message: string, count?: number): void, flush(): void }}
 */
function createFaultLog ({ emit, windowMs = WINDOW_MS }) {
  const open = new Map() // key -> { message, count, since, timer }
  const report = (key, state) => {
    if (state.count > 0) emit({ key, message: state.message, count: state.count, first: false, ms: Date.now() - state.since })
    state.count = 0
    state.since = Date.now()
  }
  const close = (key) => {
    const state = open.get(key)
    if (state.count === 0) {
      clearInterval(state.timer)
      open.delete(key) // a quiet window ends the episode: the next fault is told in full again
    } else {
      report(key, state)
    }
  }
  return {
    note (key, message, count = 1) {
      const state = open.get(key)
      if (state) {
        state.count += count
        return
      }
      emit({ key, message, count, first: true, ms: 0 })
      const timer = setInterval(() => close(key), windowMs).unref()
      open.set(key, { message, count: 0, since: Date.now(), timer })
    },
    flush () {
      for (const [key, state] of open) report(key, state)
    }
  }
}

/**
 * Turns an emitted fault into a log line.
 * @param {{ key: string, message: string, count: number, first: boolean, ms: number }} e
 * @returns {string}
 */
function faultLine (e) {
  if (e.first) {
    const more = e.count > 1 ? ` (x${e.count})` : ''
    return `${e.message}${more}; further ${e.key} failures are counted, one line per ${WINDOW_MS / 1000} s`
  }
  return `${e.key}: ${e.count} more failure${e.count === 1 ? '' : 's'} in the last ${(e.ms / 1000).toFixed(1)} s`
}

module.exports = { createFaultLog, describeFault, faultLine }
