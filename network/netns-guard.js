'use strict'
// `node network/netns-guard.js OWNER_PID`, started by network/netns.js in a group of its own with
// a stdin pipe from the owner: when the pipe closes (the owner ended, even by SIGKILL) it removes
// the owner's namespace and link, if still there, and exits. An owner that removed them itself
// writes a byte first: then the guard leaves at once, so that it can never remove a namespace the
// same owner made again afterwards (the names carry only the owner's pid).

const { removeHosts } = require('./netns')

const owner = Number(process.argv[2])
if (!Number.isInteger(owner) || owner <= 0) {
  process.stderr.write(`netns-guard: needs the owner's pid, got ${JSON.stringify(process.argv[2])}\n`)
  process.exit(2)
}
const done = () => {
  const failed = removeHosts(owner)
  if (failed.length) process.stderr.write(`netns-guard: ${failed.join('; ')}\n`)
  process.exit(0)
}
// Ctrl-C reaches the owner, which removes them itself; the guard waits for the pipe either way.
process.on('SIGINT', () => {})
process.stdin.once('data', () => process.exit(0)) // removed by the owner
process.stdin.once('end', done)
process.stdin.once('error', done)
