'use strict'
// HAProxy as a child of the balanced kinds' launcher: is it installed, start it on a written
// configuration (tied to this process by a parent-death signal, so it cannot outlive it), ask its
// statistics socket, and stop it.

const { spawn } = require('node:child_process')
const fs = require('node:fs')
const net = require('node:net')
const { setTimeout: sleep } = require('node:timers/promises')
const { haproxyBinary, findTool } = require('../lib/haproxy-check')

const SOCKET_TIMEOUT_MS = 2000
const POLL_MS = 50

/**
 * One command on HAProxy's statistics socket.
 * @param {string} socket its path
 * @param {string} command e.g. 'show stat'
 * @returns {Promise<string>} the answer
 */
function askSocket (socket, command) {
  return new Promise((resolve, reject) => {
    const conn = net.connect(socket)
    let answer = ''
    conn.setEncoding('utf8').on('data', (d) => { answer += d })
    conn.setTimeout(SOCKET_TIMEOUT_MS, () => conn.destroy(new Error(`no answer to ${command} in ${SOCKET_TIMEOUT_MS} ms`)))
    conn.on('end', () => resolve(answer))
    conn.on('error', reject)
    conn.end(`${command}\n`)
  })
}

/**
 * `show stat` as one object per proxy row, keyed by the CSV header's names.
 * @param {string} text the socket's answer
 * @returns {object[]}
 */
function parseStat (text) {
  const [header, ...rows] = text.split('\n').filter((line) => line.trim() !== '')
  const names = header.replace(/^# /, '').split(',')
  return rows.map((row) => Object.fromEntries(row.split(',').map((value, k) => [names[k], value])))
}

/**
 * Starts `haproxy -db -f file` with SIGKILL as its parent-death signal.
 * @param {{ file: string, socket: string, log: function(string): void }} how
 * @returns {{ pid: number, exited: Promise<{ code: number|null, signal: string|null, stderr: string }>, stop(): Promise<void> }}
 */
function startHaproxy ({ file, socket, log }) {
  const child = spawn(findTool('setpriv'), ['--pdeathsig', 'KILL', '--', haproxyBinary(), '-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d
    for (const line of d.split('\n').filter(Boolean)) log(`haproxy: ${line}`)
  })
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })))
  child.on('error', (err) => { stderr += err.message })
  let stopping = null
  // SIGUSR1 is HAProxy's soft stop: no new connections, answers in flight finish; SIGTERM after.
  const stop = () => {
    stopping ||= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGUSR1')
      const timer = setTimeout(() => child.kill('SIGTERM'), 1500)
      await exited
      clearTimeout(timer)
      fs.rmSync(socket, { force: true })
    })()
    return stopping
  }
  return { pid: child.pid, child, exited, stop }
}

/**
 * Waits until HAProxy answers on its socket and a health check has passed for every backend.
 * @param {{ socket: string, exited: Promise<object>, timeoutMs: number, backend?: string }} what
 * @returns {Promise<object[]>} the `show stat` rows
 * @throws {Error} if HAProxy exits first (with its last line) or the time runs out
 */
async function waitHaproxyReady ({ socket, exited, timeoutMs, backend = 'servers' }) {
  let ended = null
  exited.then((e) => { ended = e })
  const deadline = Date.now() + timeoutMs
  let last = 'its socket did not answer'
  while (Date.now() < deadline) {
    if (ended) {
      const line = ended.stderr.trim().split('\n').filter((l) => /ALERT|cannot|error/i.test(l)).pop() || ended.stderr.trim().split('\n').pop()
      throw new Error(`haproxy exited (${ended.signal || `code ${ended.code}`}): ${line || 'no message'}`)
    }
    try {
      const rows = parseStat(await askSocket(socket, 'show stat'))
      const servers = rows.filter((r) => r.pxname === backend && r.svname !== 'BACKEND')
      const waiting = servers.filter((r) => r.status !== 'UP' || !/OK/.test(r.check_status))
      if (servers.length > 0 && waiting.length === 0) return rows
      last = `backends not yet checked up: ${waiting.map((r) => `${r.svname} ${r.status} ${r.check_status}`).join(', ')}`
    } catch (err) {
      last = `its socket did not answer: ${err.code || err.message}`
    }
    await sleep(POLL_MS)
  }
  throw new Error(`haproxy not ready within ${timeoutMs / 1000} s: ${last}`)
}

module.exports = { askSocket, parseStat, startHaproxy, waitHaproxyReady }
