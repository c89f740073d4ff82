'use strict'
// When a forked child with an IPC channel is gone for good: it exited and every message it sent
// has been read. 'exit' can come before the channel's last message; 'close' comes after it, but
// not when this side closed the channel first, so both are watched.

/**
 * Calls fn once, when the child has exited and its channel is closed.
 * @param {import('node:child_process').ChildProcess} child
 * @param {(code: number|null, signal: string|null) => void} fn
 */
function onGone (child, fn) {
  let exit = null
  let done = false
  const end = () => {
    if (done || exit === null || child.connected) return
    done = true
    fn(...exit)
  }
  child.once('exit', (code, signal) => { exit = [code, signal]; end() })
  child.once('disconnect', end)
  child.once('close', end)
}

module.exports = { onGone }
