'use strict'
// What makes an append safe, shared by the three stores: a failed write leaves nothing of its
// record behind, appends to one file in one process take turns, and fsync (none, each, group)
// decides when a record is on the disk before its PUT is acknowledged.

const fs = require('node:fs')

const FILLER = 0x20 // a space: a failed record in a shared file becomes a blank line of its length
const NEWLINE = 0x0a

/**
 * Where a descriptor's offset is, from /proc/self/fdinfo: after a write on an O_APPEND descriptor,
 * the end of what that write put in the file, whatever other processes appended since.
 * @param {number} fd
 * @returns {number|null} null where /proc is not there
 */
function fdPosition (fd) {
  try {
    return Number(/^pos:\s+(\d+)/m.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1'))[1])
  } catch {
    return null
  }
}

/**
 * Removes what a short write left: `written` bytes, ending at the descriptor's offset. Truncated
 * away when no one else appends to the file (`shared` false) and they are still its end, so the
 * file is byte-identical to before; otherwise overwritten in place with a blank line of the same
 * length, because truncating could cut a record another process appended after ours. Synchronous:
 * it is rare and short, and it must not let another append of this process in between.
 * @param {number} fd the O_APPEND descriptor the short write went through (still open)
 * @param {string} file its path, to overwrite in place (an O_APPEND descriptor cannot)
 * @param {number} written bytes the short write put in the file (> 0)
 * @param {boolean} shared whether other processes append to the same files (cluster workers)
 * @returns {'truncated'|'blanked'|'left'} what became of the partial record
 */
function undoPartial (fd, file, written, shared) {
  const end = fdPosition(fd) ?? fs.fstatSync(fd).size
  const start = end - written
  if (!shared && fs.fstatSync(fd).size === end) {
    fs.ftruncateSync(fd, start)
    return 'truncated'
  }
  const filler = Buffer.alloc(written, FILLER)
  filler[written - 1] = NEWLINE
  const other = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW)
  try {
    return fs.writeSync(other, filler, 0, written, start) === written ? 'blanked' : 'left'
  } finally {
    fs.closeSync(other)
  }
}

/**
 * The error of a write that put only part of its record in the file: out of space (507).
 * @param {number} written
 * @param {number} length
 * @param {string} outcome what undoPartial did
 */
function shortWriteError (written, length, outcome) {
  return Object.assign(new Error(`short write: ${written} of ${length} bytes, out of space; the partial record was ${outcome}`),
    { code: 'ENOSPC', status: 507, partial: outcome })
}

/**
 * Turns for appends to one key within this process, so that a failed write can be undone before
 * another write to the same file lands after it. Callback style: no promise on the hot path.
 * @returns {(key: string, fn: (release: () => void) => void) => void}
 */
function createKeyLock () {
  const queues = new Map() // key -> callbacks waiting; present while the key is held
  const release = (key) => {
    const next = queues.get(key).shift()
    if (next === undefined) queues.delete(key)
    else next(() => release(key))
  }
  return (key, fn) => {
    const queue = queues.get(key)
    if (queue !== undefined) return queue.push(fn)
    queues.set(key, [])
    fn(() => release(key))
  }
}

/**
 * The flush of an async store after a successful write, before the PUT is acknowledged.
 * none: nothing; each: fdatasync of this append; group: one fdatasync covers every append to the
 * same key that finished its write before that flush began (group commit). The descriptor stays
 * open until done is called.
 * @param {'none'|'each'|'group'} mode
 * @returns {(key: string, fd: number, done: (err: Error|null) => void) => void}
 */
function createFlush (mode) {
  if (mode === 'none') return (key, fd, done) => done(null)
  if (mode === 'each') return (key, fd, done) => fs.fdatasync(fd, done)
  const groups = new Map() // key -> appends waiting for the next flush, while one is running
  const start = (key, batch) => {
    groups.set(key, [])
    // fdatasync flushes the file, not the descriptor: writes through the others' descriptors too.
    fs.fdatasync(batch[0].fd, (err) => {
      const next = groups.get(key)
      for (const append of batch) append.done(err)
      if (next.length > 0) start(key, next)
      else groups.delete(key)
    })
  }
  return (key, fd, done) => {
    const waiting = groups.get(key)
    if (waiting !== undefined) waiting.push({ fd, done })
    else start(key, [{ fd, done }])
  }
}

module.exports = { undoPartial, shortWriteError, createKeyLock, createFlush, fdPosition }
