'use strict'
// How a multi-process server shares its port, read from the kernel while it runs (Linux /proc), so
// that a report says which mechanism ran rather than which one a runtime's docs promise: the
// listening sockets on the port (/proc/net/tcp, tcp6) and which of the server's processes hold each
// (/proc/PID/fd links to socket:[INODE]).

const fs = require('node:fs')
const { procPath } = require('../platform')

const LISTEN = '0A' // TCP_LISTEN in /proc/net/tcp's st column

/** The inodes of the listening sockets on a port, from /proc/net/tcp and tcp6. */
function listeningInodes (port, procNet = procPath('net')) {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0')
  const inodes = []
  for (const file of ['tcp', 'tcp6']) {
    let text
    try {
      text = fs.readFileSync(`${procNet}/${file}`, 'utf8')
    } catch {
      continue // no IPv6 here
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      if (f.length > 9 && f[1].endsWith(`:${hexPort}`) && f[3] === LISTEN) inodes.push(f[9])
    }
  }
  return inodes
}

/** The socket inodes a process holds open (a process that ended holds none). */
function socketsOf (pid) {
  const held = new Set()
  let fds = []
  try {
    fds = fs.readdirSync(procPath(pid, 'fd'))
  } catch {}
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(procPath(pid, 'fd', fd)))
      if (m) held.add(m[1])
    } catch {} // closed meanwhile
  }
  return held
}

/**
 * Which mechanism spreads a server's connections over its processes:
 * - `reusePort`: a listening socket per process (SO_REUSEPORT: the kernel picks one per connection);
 * - `shared socket`: one listening socket held by the workers (they accept from it in turn: the
 *   cluster's SCHED_NONE);
 * - `primary round-robin`: one listening socket held by the primary only (it accepts and hands each
 *   connection to a worker: node:cluster's default);
 * - `one worker listens`: one socket held by one worker of several (the others get nothing);
 * - `one process`: one socket, one process.
 * @param {number} port
 * @param {number} primary the pid of the process that was started (a cluster's primary)
 * @param {number[]} pids every live process of the server, the primary among them
 * @param {{ procNet?: string, socketsOf?: (pid: number) => Set<string> }} [how] for tests
 * @returns {{ mechanism: string, sockets: number, holders: number }} holders: processes holding a listening socket
 */
function listenMechanism (port, primary, pids, { procNet, socketsOf: held = socketsOf } = {}) {
  const inodes = new Set(listeningInodes(port, procNet))
  const holding = pids.filter((pid) => [...held(pid)].some((inode) => inodes.has(inode)))
  const workers = holding.filter((pid) => pid !== primary)
  let mechanism = 'one process'
  if (inodes.size > 1) mechanism = 'reusePort'
  else if (inodes.size === 0) mechanism = 'unknown'
  else if (workers.length === 1 && pids.length > 2) mechanism = 'one worker listens'
  else if (workers.length > 0 && pids.length > 1) mechanism = 'shared socket'
  else if (pids.length > 1) mechanism = 'primary round-robin'
  return { mechanism, sockets: inodes.size, holders: holding.length }
}

module.exports = { listenMechanism, listeningInodes }
