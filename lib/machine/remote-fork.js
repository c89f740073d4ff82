'use strict'
// A Node script forked on another host through ssh (lib/machine/ipc-relay.js there), with an object that
// stands for its ChildProcess: send(), disconnect(), connected, pid (the local ssh's), and the events
// 'message', 'exit', 'disconnect' and 'close', so client/run.js and client/pool.js drive it as a
// local child. Times travel as process.hrtime.bigint() text (a message's t0 out, its endedAt back):
// the relay's clock is another host's, so they are moved by its offset, measured before the first
// message (the fastest of a few round trips; within half of one).

const { spawn } = require('node:child_process')
const { EventEmitter } = require('node:events')
const readline = require('node:readline')
const { ROOT } = require('../config')
const { sshArgs, sshBinary, inDir } = require('./ssh')

const CLOCK_SAMPLES = 5

/**
 * Forks SCRIPT on a host.
 * @param {object} host from lib/machine/ssh.js parseHost
 * @param {string} script a path relative to the checkout
 * @param {string[]} args
 * @param {{ ssh?: string[], dir?: string, node?: string, stderr?: number|'inherit' }} how dir: the checkout there;
 *   node: the full Node version to run it on ('-': the relay's); stderr: where the relay's and the script's output go
 * @returns {EventEmitter} the stand-in child, with host (the host's text) and offsetNs() (null until measured)
 */
function forkRemote (host, script, args, { ssh = [], dir = ROOT, node = '-', stderr = 'inherit' } = {}) {
  const child = new EventEmitter()
  const bin = sshBinary() ?? 'ssh' // none: spawn fails, and the child ends like a process that could not start
  const proc = spawn(bin, sshArgs(host, inDir(dir, ['node', 'lib/machine/ipc-relay.js', node, script, ...args]), { ssh }), { stdio: ['pipe', 'pipe', stderr] })
  let offset = null
  const queue = []
  const samples = []
  const write = (frame) => { if (proc.stdin.writable) proc.stdin.write(`${JSON.stringify(frame)}\n`) }
  const ping = () => { samples.push({ sent: process.hrtime.bigint() }); write(['t']) }
  const out = (msg) => write(['m', msg.t0 === undefined ? msg : { ...msg, t0: String(BigInt(msg.t0) + offset) }])
  Object.assign(child, {
    host: host.text,
    pid: proc.pid,
    connected: true,
    exitCode: null,
    signalCode: null,
    offsetNs: () => offset,
    send (msg, callback) {
      if (!child.connected) return false
      if (offset === null) queue.push(msg)
      else out(msg)
      if (callback) process.nextTick(callback)
      return true
    },
    disconnect () {
      if (!child.connected) return
      child.connected = false
      proc.stdin.end()
      child.emit('disconnect')
    }
  })
  readline.createInterface({ input: proc.stdout }).on('line', (line) => {
    let frame
    try {
      frame = JSON.parse(line)
    } catch {
      return // not the relay's: a shell's banner
    }
    if (frame[0] === 't') {
      const sample = samples[samples.length - 1]
      sample.received = process.hrtime.bigint()
      sample.offset = BigInt(frame[1]) - (sample.sent + sample.received) / 2n
      if (samples.length < CLOCK_SAMPLES) return ping()
      const best = samples.reduce((a, b) => (b.received - b.sent < a.received - a.sent ? b : a))
      offset = best.offset
      for (const msg of queue.splice(0)) out(msg)
    } else if (frame[0] === 'm') {
      const msg = frame[1]
      child.emit('message', msg.endedAt === undefined ? msg : { ...msg, endedAt: String(BigInt(msg.endedAt) - offset) })
    }
  })
  proc.stdin.on('error', () => {}) // the session is gone: 'close' follows
  proc.on('error', () => {}) // ssh could not start: 'close' follows
  proc.on('close', (code, signal) => {
    Object.assign(child, { exitCode: code, signalCode: signal })
    child.emit('exit', code, signal)
    if (child.connected) {
      child.connected = false
      child.emit('disconnect')
    }
    child.emit('close', code, signal)
  })
  ping()
  return child
}

module.exports = { forkRemote }
