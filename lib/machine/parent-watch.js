'use strict'
// A child's watch on the process that started it, so that nothing outlives a killed sweep: the
// parent gives the child a stdin pipe it never writes to and sets WATCH_PARENT=stdin; when the
// parent dies, even by SIGKILL, the kernel closes the pipe and the child hears end-of-file.

/**
 * Calls onGone once when the parent is gone, if the parent asked for the watch.
 * @param {() => void} onGone
 * @returns {boolean} whether the watch is on
 */
function watchParent (onGone) {
  if (process.env.WATCH_PARENT !== 'stdin') return false
  delete process.env.WATCH_PARENT // this process's own children have another parent
  let gone = false
  const end = () => {
    if (gone) return
    gone = true
    onGone()
  }
  process.stdin.on('data', () => {}) // nothing is sent; reading is what lets 'end' arrive
  process.stdin.once('end', end)
  process.stdin.once('error', end)
  // The watch alone keeps no process alive. Deno's stdin on a pipe has no unref(): its servers end by process.exit.
  process.stdin.unref?.()
  return true
}

/** The spawn options that let a child started with them watch this process. */
const WATCHED = { stdin: 'pipe', env: { WATCH_PARENT: 'stdin' } }

module.exports = { watchParent, WATCHED }
