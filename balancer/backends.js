'use strict'
// The backends of a balanced kind: nServers single-process servers (servers/lib/backend.js), each on
// its own port on 127.0.0.1, watching the launcher through a stdin pipe. One that dies by
// accident is started again on its port, like a cluster worker; too many deaths end the launcher.

const { spawn } = require('node:child_process')
const http = require('node:http')
const path = require('node:path')
const readline = require('node:readline')
const { WATCHED } = require('../lib/machine/parent-watch')

const HOST = '127.0.0.1'
const { READY_LINE: READY } = require('../lib/serving/process-io')
const MAX_DEATHS = 5
const DEATH_WINDOW_MS = 10000
const ASK_TIMEOUT_MS = 2000

/**
 * One HTTP request to a backend on its own connection.
 * @returns {Promise<{ status: number, body: string }|null>} null if it did not answer
 */
function ask (port, method, reqPath) {
  return new Promise((resolve) => {
    const req = http.request({ host: HOST, port, method, path: reqPath, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (d) => { body += d })
      res.on('end', () => resolve({ status: res.statusCode, body }))
      res.on('error', () => resolve(null))
    })
    req.setTimeout(ASK_TIMEOUT_MS, () => req.destroy())
    req.on('error', () => resolve(null))
    req.end()
  })
}

/**
 * Starts the backends and resolves once each prints its ready line.
 * @param {{ kind: string, count: number, args: string[], log: function(string): void,
 *   onGiveUp: function(string): void }} how args: the launcher's config flags, passed on
 * @returns {Promise<{ list: Array<{ port: number, pid: number }>, stop(): Promise<void>, stats(op: 'reset'|'collect'): Promise<Array<object|null>> }>}
 * @throws {Error} if one exits before it is ready
 */
async function startBackends ({ kind, count, args, log, onGiveUp }) {
  const script = path.join(__dirname, '..', 'servers', 'lib', 'backend.js')
  const deaths = []
  const list = []
  let stopping = false

  const start = (slot, port) => new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, kind, ...args, `--serverHostname=${HOST}`, `--serverPort=${port}`], {
      stdio: [WATCHED.stdin, 'pipe', 'inherit'],
      env: { ...process.env, ...WATCHED.env }
    })
    const backend = { slot, port, pid: child.pid, child, ready: false }
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const m = READY.exec(line)
      if (!m || backend.ready) return
      backend.ready = true
      backend.port = Number(m[1])
      list[slot] = backend
      resolve(backend)
    })
    child.on('exit', (code, signal) => {
      backend.exited = true
      if (!backend.ready) return reject(new Error(`backend ${slot + 1} exited (${signal || `code ${code}`}) before it listened`))
      if (!stopping) died(backend, code, signal)
    })
  })

  const died = (backend, code, signal) => {
    const now = Date.now()
    deaths.push(now)
    while (deaths[0] < now - DEATH_WINDOW_MS) deaths.shift()
    if (deaths.length > MAX_DEATHS) return onGiveUp(`more than ${MAX_DEATHS} backend deaths in ${DEATH_WINDOW_MS / 1000} s; giving up`)
    log(`backend b${backend.slot + 1} pid ${backend.pid} died (code ${code}, signal ${signal}); ` +
      `the health check takes it out; starting it again on port ${backend.port}`)
    start(backend.slot, backend.port).then((b) => log(`backend b${b.slot + 1} is back: pid ${b.pid}, port ${b.port}`),
      (err) => died(backend, null, err.message))
  }

  await Promise.all(Array.from({ length: count }, (_, slot) => start(slot, 0)))
    .catch(async (err) => {
      stopping = true
      for (const b of list) b?.child.kill('SIGTERM')
      throw err
    })

  return {
    list,
    async stop () {
      stopping = true
      await Promise.all(list.map((b) => b.exited ? null : new Promise((resolve) => { b.child.once('exit', resolve); b.child.kill('SIGTERM') })))
    },
    async stats (op) {
      const answers = await Promise.all(list.map((b) => op === 'reset' ? ask(b.port, 'POST', '/_stats/reset') : ask(b.port, 'GET', '/_stats')))
      return answers.map((a) => {
        if (a?.status !== 200) return null
        try { return op === 'reset' ? {} : JSON.parse(a.body) } catch { return null }
      })
    }
  }
}

module.exports = { startBackends, HOST }
