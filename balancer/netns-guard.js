'use strict'
// `node balancer/netns-guard.js OWNER_PID`, started by balancer/netns.js in a group of its own with
// a stdin pipe from the owner: when the pipe closes (the owner ended, even by SIGKILL) it removes
// the owner's namespace and link, if still there, and exits.

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
process.stdin.on('data', () => {})
process.stdin.once('end', done)
process.stdin.once('error', done)
