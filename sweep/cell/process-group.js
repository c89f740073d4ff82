'use strict'
// Child node processes, each in a process group of its own: start one, run one to its end under a
// time limit, stop one (SIGTERM, then SIGKILL), and read its CPU time from /proc (Linux; without it, not measured). Only
// groups started here are ever signalled, and only while they still have a live member.

const { spawn } = require('node:child_process')
const { once } = require('node:events')
const fs = require('node:fs')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')
const { ROOT } = require('../../lib/config')
const { WATCHED } = require('../../lib/machine/parent-watch')
const { readStat, signalReaches } = require('../../lib/machine/proc')
const { hasProc, procPath } = require('../../lib/platform')

const STOP_GRACE_MS = 5000 // servers and clients exit within 5 s of SIGTERM
const KILL_WAIT_MS = 2000
const POLL_MS = 50
const live = new Set() // children whose groups may still have members
const stopping = new WeakMap()

// A last resort if the sweep itself dies: nothing it started may outlive it.
process.on('exit', () => { for (const child of live) signalGroup(child.pid, 'SIGKILL') })

/**
 * The live (not zombie) processes of a process group, with their CPU time (Linux).
 * @param {number} pgid
 * @returns {Array<{ pid: number, cpuUs: number }>} [] without /proc
 */
function groupMembers (pgid) {
  const members = []
  if (!hasProc()) return members
  for (const name of fs.readdirSync(procPath())) {
    if (!/^\d+$/.test(name)) continue
    const stat = readStat(name) // null: it ended while we looked
    if (stat?.pgrp === pgid && stat.state !== 'Z') members.push({ pid: Number(name), cpuUs: stat.cpuUs })
  }
  return members
}

/**
 * @param {number} pgid
 * @returns {number|null} CPU time (user + system) of the group's live processes so far, in µs; null without /proc
 */
function groupCpuUs (pgid) {
  return hasProc() ? groupMembers(pgid).reduce((sum, m) => sum + m.cpuUs, 0) : null
}

// Whether a group has a live member: from /proc, else whether a signal reaches the group (a zombie counts until reaped).
const groupLives = (pgid) => (hasProc() ? groupMembers(pgid).length > 0 : signalReaches(-pgid))

function signalGroup (pgid, sig) {
  try {
    process.kill(-pgid, sig)
  } catch (err) {
    if (err.code !== 'ESRCH') throw err
  }
}

async function emptied (pgid, ms) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(POLL_MS)) {
    if (!groupLives(pgid)) return true
  }
  return false
}

/**
 * Starts `node script args` as the leader of a new process group that watches this process,
 * stderr into the log.
 * @param {string} script
 * @param {string[]} args
 * @param {{ log: object, env?: object, stdout?: 'pipe', execPath?: string, prefix?: string[] }} how `stdout`
 *   defaults to the log; execPath is the runtime's binary (default: the Node running this process), execArgs what goes before
 *   the script (Deno's run -A); prefix:
 *   a command that execs node where it should run (`ip netns exec NS`, `taskset -c 0`), the pid stays
 * @returns {import('node:child_process').ChildProcess}
 */
function spawnGroup (script, args, { log, env = process.env, stdout = log.fd, execPath = process.execPath, execArgs = [], prefix = [], cwd }) {
  // The child watches us through its stdin (lib/machine/parent-watch.js): a SIGKILL of the sweep ends it too.
  const [command, ...first] = [...prefix, execPath, ...execArgs]
  const child = spawn(command, [...first, script, ...args], { detached: true, cwd, env: { ...env, ...WATCHED.env }, stdio: [WATCHED.stdin, stdout, log.fd] })
  live.add(child)
  const node = execPath === process.execPath ? 'node' : execPath
  const line = `${[...prefix, node, ...execArgs].join(' ')} ${path.relative(ROOT, script)} ${args.join(' ')}`
  log.write(`# ${new Date().toISOString()} started pid ${child.pid} (its own process group): ${line}\n`)
  return child
}

/**
 * Stops a group started by spawnGroup: SIGTERM, SIGKILL after a grace period; resolves once the
 * group has no live process. Calling it again returns the same promise.
 * @param {import('node:child_process').ChildProcess} child
 * @param {object} log
 * @returns {Promise<void>}
 */
function stopGroup (child, log) {
  if (!stopping.has(child)) stopping.set(child, stopNow(child, log))
  return stopping.get(child)
}

async function stopNow (child, log) {
  const pgid = child.pid
  if (groupLives(pgid)) {
    const pids = hasProc() ? groupMembers(pgid).map((m) => m.pid).join(' ') : 'not seen without /proc'
    log.write(`# stopping group ${pgid}: pids ${pids}\n`)
    signalGroup(pgid, 'SIGTERM')
    if (!await emptied(pgid, STOP_GRACE_MS)) {
      log.write(`# pid ${pgid}: group still running ${STOP_GRACE_MS / 1000} s after SIGTERM; sending SIGKILL\n`)
      signalGroup(pgid, 'SIGKILL')
      await emptied(pgid, KILL_WAIT_MS)
    }
  }
  if (child.exitCode === null && child.signalCode === null) await once(child, 'exit')
  live.delete(child)
  log.write(`# ${new Date().toISOString()} pid ${pgid} ended (${child.signalCode || `code ${child.exitCode}`})\n`)
}

/**
 * Runs `node script args` in its own group to its end, or stops it at the time limit or abort.
 * @param {string} script
 * @param {string[]} args
 * @param {{ log: object, timeoutMs: number, signal: AbortSignal, execPath?: string, prefix?: string[] }} how
 * @returns {Promise<{ code: number|null, signal: string|null, timedOut: boolean }>}
 * @throws the abort reason once the group is stopped, if aborted
 */
async function runGroup (script, args, { log, timeoutMs, signal, execPath, prefix }) {
  const child = spawnGroup(script, args, { log, execPath, prefix })
  const stop = () => stopGroup(child, log)
  let timedOut = false
  const timer = setTimeout(() => { timedOut = true; stop() }, timeoutMs)
  signal.addEventListener('abort', stop)
  const [code, sig] = await once(child, 'exit')
  clearTimeout(timer)
  signal.removeEventListener('abort', stop)
  await stop() // whatever it left behind in its group
  if (signal.aborted) throw signal.reason
  return { code, signal: sig, timedOut }
}

module.exports = { spawnGroup, stopGroup, runGroup, groupCpuUs, groupMembers }
