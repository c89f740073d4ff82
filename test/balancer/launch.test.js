'use strict'
// The balanced kinds end to end: HAProxy spreads the requests of one client connection over the
// backends, a killed backend is taken out and started again while the requests go on, and
// nothing of the unit outlives a SIGKILL of its launcher.

const t = require('tap')
const fs = require('node:fs')
const http = require('node:http')
const { setTimeout: sleep } = require('node:timers/promises')
const { startServer, spawnServer, isAlive } = require('../fixtures/server')
const { checkHaproxy } = require('../../lib/haproxy-check')
const { cleanStaleRunDirs } = require('../../balancer/run-dir')
const { isAlive: procAlive } = require('../../lib/machine/proc')

const missing = checkHaproxy()
if (missing) t.plan(0, missing)

// n requests on one keep-alive connection; resolves with their statuses and how many sockets it took.
async function oneConnection (srv, n, reqPath = '/get?key=f') {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  let sockets = 0
  const statuses = []
  for (let i = 0; i < n; i++) {
    statuses.push(await new Promise((resolve) => {
      const req = http.request({ host: '127.0.0.1', port: srv.port, path: reqPath, agent }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode))
      })
      req.on('socket', (s) => { if (!s.counted) { s.counted = true; sockets++ } })
      req.setTimeout(5000, () => req.destroy())
      req.on('error', (err) => resolve(err.code || err.message))
      req.end()
    }))
  }
  agent.destroy()
  return { statuses, sockets }
}

function post (srv, reqPath, body = '') {
  return new Promise((resolve, reject) => {
    const method = reqPath.startsWith('/_stats') && !body ? (reqPath.endsWith('reset') ? 'POST' : 'GET') : 'POST'
    const req = http.request({ host: '127.0.0.1', port: srv.port, method, path: reqPath, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (d) => { text += d })
      res.on('end', () => resolve({ status: res.statusCode, text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const stats = async (srv) => JSON.parse((await post(srv, '/_stats')).text)

t.test('one client connection, two backends: HAProxy gives each of them requests', async (t) => {
  const srv = await startServer(t, 'sync-lb', { dataPath: t.testdir(), args: ['--nServers=2'] })
  t.match(srv.stdout, /^listening http:\/\/127\.0\.0\.1:\d+ kind=sync-lb workers=2 pid=\d+\n$/, 'one ready line')
  t.equal((await post(srv, '/put?key=f', 'hello')).text, 'success')
  t.equal((await post(srv, '/_stats/reset')).status, 200)
  const { statuses, sockets } = await oneConnection(srv, 10)
  t.equal(sockets, 1, 'the ten requests went on one connection')
  t.same(statuses, Array(10).fill(200))
  const doc = await stats(srv)
  t.equal(doc.kind, 'sync-lb')
  t.same(doc.balancer.backends.map((b) => b.requests), [5, 5], 'round robin: five each')
  t.same(doc.processes.filter((p) => p.role === 'single').map((p) => p.requests), [5, 5], 'and the backends counted five each')
  t.equal(doc.totals.requests, 10)
  t.equal(doc.totals.fairness, 1)
  t.equal(doc.balancer.balance, 'roundrobin')
  t.ok(Number.isInteger(doc.balancer.cpuUs / 10000) && doc.balancer.cpuUs >= 0, `HAProxy's CPU in whole 10 ms ticks: ${doc.balancer.cpuUs}`)
  const processes = doc.processes.reduce((a, p) => a + p.cpuUs.user + p.cpuUs.system, 0)
  t.equal(doc.totals.cpuUs, processes + doc.balancer.cpuUs, 'the totals hold HAProxy\'s CPU')
})

t.test('leastconn is taken, and a bad --balance exits 2 naming it', async (t) => {
  const srv = await startServer(t, 'async-lb', { dataPath: t.testdir(), args: ['--nServers=2', '--balance=leastconn'] })
  await post(srv, '/put?key=f', 'x')
  t.equal((await stats(srv)).balancer.balance, 'leastconn')
  const bad = spawnServer(t, 'sync-lb', ['--balance=random', `--dataPath=${t.testdir()}`])
  t.same(await bad.exit, { code: 2, signal: null })
  t.equal(bad.stderr, 'sync-lb: --balance must be one of roundrobin, leastconn, got "random"\n')
  t.equal(bad.stdout, '')
})

t.test('without HAProxy: one line saying what to install, exit 2', async (t) => {
  const srv = spawnServer(t, 'async-lb', ['--serverPort=0'], { env: { HAPROXY: '/nonexistent/haproxy' } })
  t.same(await srv.exit, { code: 2, signal: null })
  t.equal(srv.stderr, 'async-lb: haproxy is not installed at HAPROXY=/nonexistent/haproxy: the balanced kinds need it ' +
    '(./run_benchmark.sh setup, or apt-get install -y haproxy)\n')
})

t.test('a backend killed mid-run is taken out and started again; the requests go on', async (t) => {
  const srv = await startServer(t, 'sync-lb', { dataPath: t.testdir(), args: ['--nServers=2'] })
  await post(srv, '/put?key=f', 'hello')
  const victim = (await stats(srv)).processes.find((p) => p.role === 'single').pid
  process.kill(victim, 'SIGKILL')
  const { statuses } = await oneConnection(srv, 40)
  t.equal(statuses.length, 40, 'every request was answered or counted as failed')
  t.ok(statuses.filter((s) => s === 200).length >= 30, `most succeeded: ${statuses.join(' ')}`)
  for (let i = 0; i < 100 && !/is back/.test(srv.stderr); i++) await sleep(50)
  t.match(srv.stderr, new RegExp(`backend b\\d pid ${victim} died \\(code null, signal SIGKILL\\); the health check takes it out`))
  t.match(srv.stderr, /backend b\d is back: pid \d+, port \d+/)
  t.equal(srv.exited, null, 'the launcher is still serving')
  t.ok(srv.stdout.split('\n').filter(Boolean).length === 1, 'still one ready line')
})

t.test('SIGKILL of the launcher leaves no HAProxy, no backend; its folder is removed at the next start', async (t) => {
  const srv = await startServer(t, 'async-lb', { dataPath: t.testdir(), args: ['--nServers=2'] })
  await post(srv, '/put?key=f', 'hello')
  const doc = await stats(srv)
  const pids = [doc.balancer.pid, ...doc.processes.filter((p) => p.role === 'single').map((p) => p.pid)]
  t.equal(pids.length, 3)
  const dir = fs.readdirSync('/tmp').find((d) => d.startsWith(`cbench-lb-${srv.pid}-`))
  t.ok(dir, 'its run folder exists while it runs')
  process.kill(srv.pid, 'SIGKILL')
  await srv.exit
  for (let i = 0; i < 100 && pids.some(isAlive); i++) await sleep(50)
  t.same(pids.filter((pid) => procAlive(pid)), [], 'HAProxy and both backends are gone')
  const lines = []
  const removed = cleanStaleRunDirs((line) => lines.push(line))
  // A sweep another test runs may remove it first (each start cleans): then it is gone all the same.
  if (removed.includes(`/tmp/${dir}`)) t.match(lines[removed.indexOf(`/tmp/${dir}`)], `left by a balanced server (pid ${srv.pid}) that is gone`)
  t.notOk(fs.existsSync(`/tmp/${dir}`), 'its folder is gone')
})
