'use strict'
// Starts one of servers/<kind>.js in its own process group and waits for its ready line
// (`listening http://HOST:PORT kind=K workers=N pid=P`), with a deadline.

const path = require('node:path')
const readline = require('node:readline')
const { ROOT } = require('../../lib/config')
const { spawnGroup, stopGroup } = require('./process-group')

const { READY_LINE } = require('../../lib/serving/process-io')

function waitReady (child, log, timeoutMs, signal) {
  return new Promise((resolve, reject) => {
    const settle = (fn, value) => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      child.off('exit', onExit)
      fn(value)
    }
    const onAbort = () => settle(reject, signal.reason)
    const onExit = (code, sig) => settle(reject, new Error(`server exited (${sig || `code ${code}`}) before it was ready: ${log.lastLine()}`))
    const timer = setTimeout(() => settle(reject, new Error(`server not ready within ${timeoutMs / 1000} s`)), timeoutMs)
    signal.addEventListener('abort', onAbort)
    child.on('exit', onExit)
    // Every stdout line goes to the log; the first ready line gives the port.
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      log.write(`${line}\n`)
      const m = READY_LINE.exec(line)
      if (m) settle(resolve, Number(m[1]))
    })
  })
}

/** The entry of a kind's server: servers/KIND.js of this checkout, or of another (a --rev worktree). */
const serverScript = (kind, root = ROOT) => path.join(root, 'servers', `${kind}.js`)

/**
 * Starts a server and waits until every worker listens; on any failure its group is stopped.
 * @param {{ kind: string, args: string[], env: object, log: object, readyTimeout: number, signal: AbortSignal,
 *   execPath?: string, execArgs?: string[], prefix?: string[], script?: string, cwd?: string }} how execPath: the runtime's
 *   binary (default: the Node running the sweep), execArgs what it takes before the script (Deno's run -A); prefix: where it
 *   runs (sweep/cell/placement.js, or ssh: sweep/hosts/hosts.js remoteServer); script: default servers/KIND.js here; cwd: its
 *   working folder (default: this process's)
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, port: number, stop(): Promise<void> }>}
 * @throws {Error} whose message says why it is not ready, or the abort reason
 */
async function startServer ({ kind, args, env, log, readyTimeout, signal, execPath, execArgs, prefix, cwd, script = serverScript(kind) }) {
  const child = spawnGroup(script, args, { log, env, stdout: 'pipe', execPath, execArgs, prefix, cwd })
  const stop = () => stopGroup(child, log)
  try {
    return { child, port: await waitReady(child, log, readyTimeout, signal), stop }
  } catch (err) {
    await stop()
    throw err
  }
}

module.exports = { startServer, serverScript }
