'use strict'
// The HAProxy configuration and statistics of the balanced kinds, without running anything but
// `haproxy -c` (where installed): the text follows the cell's settings, bad settings throw, and
// `show stat` turns into per-backend figures and one telemetry document.

const t = require('tap')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { haproxyConfig } = require('../../balancer/haproxy-config')
const { parseStat } = require('../../balancer/haproxy')
const { checkHaproxy } = require('../../lib/haproxy-check')
const { backendFigures, balancerFigures, mergeTelemetry } = require('../../balancer/stats')
const { fairness } = require('../../lib/median')

const CONFIG = { headersTimeout: 10000, requestTimeout: 30000, keepAliveTimeout: 5000, timeout: 60000 }
const HOW = {
  listen: { host: '127.0.0.1', port: 8100 },
  backends: [{ host: '127.0.0.1', port: 9001 }, { host: '127.0.0.1', port: 9002 }],
  telemetry: { host: '127.0.0.1', port: 9000 },
  statsSocket: '/tmp/x/stats.sock',
  balance: 'roundrobin',
  config: CONFIG
}

t.test('the configuration follows the settings: balance, backends, timeouts, keep-alive, checks', async (t) => {
  const text = haproxyConfig({ ...HOW, balance: 'leastconn', listen: { host: '::1', port: 8100 } })
  t.match(text, /^ {2}balance leastconn$/m)
  t.match(text, /^ {2}bind \[::1\]:8100$/m)
  t.match(text, /^ {2}server b1 127\.0\.0\.1:9001\n {2}server b2 127\.0\.0\.1:9002\n/m)
  t.match(text, /^ {2}server launcher 127\.0\.0\.1:9000$/m)
  t.match(text, /^ {2}stats socket \/tmp\/x\/stats\.sock mode 600 level admin$/m)
  t.match(text, /^ {2}timeout http-keep-alive 5000$/m)
  t.match(text, /^ {2}timeout http-request 10000$/m)
  t.match(text, /^ {2}timeout server 60000$/m, 'the longer of requestTimeout and the client\'s timeout')
  t.match(text, /^ {2}http-reuse always$/m)
  t.match(text, /^ {2}default-server check inter 500 fall 2 rise 2$/m)
  t.notMatch(text, /prefer-last-server/, 'each request is balanced on its own')
  t.match(text, /^ {2}use_backend telemetry if telemetry$/m)
})

t.test('a balance HAProxy is not given here, or no backend, throws', async (t) => {
  t.throws(() => haproxyConfig({ ...HOW, balance: 'random' }), /balance must be one of roundrobin, leastconn, got "random"/)
  t.throws(() => haproxyConfig({ ...HOW, backends: [] }), /at least one backend/)
})

t.test('haproxy -c accepts the configuration', { skip: checkHaproxy() || false }, async (t) => {
  const file = path.join(t.testdir(), 'haproxy.cfg')
  // A short socket path: HAProxy takes at most 97 characters, and a test folder's path can be longer.
  const short = fs.mkdtempSync(path.join(os.tmpdir(), 'hc-'))
  t.teardown(() => fs.rmSync(short, { recursive: true, force: true }))
  fs.writeFileSync(file, haproxyConfig({ ...HOW, statsSocket: path.join(short, 's.sock') }))
  const res = spawnSync(fs.existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy', ['-c', '-f', file], { encoding: 'utf8' })
  t.equal(res.status, 0, res.stderr)
})

const STAT = `# pxname,svname,scur,econ,eresp,wretr,wredis,status,chkfail,chkdown,lbtot,hrsp_1xx,hrsp_2xx,hrsp_3xx,hrsp_4xx,hrsp_5xx,hrsp_other,addr,
bench,FRONTEND,0,,,,,OPEN,,,,0,30,0,1,2,0,,
servers,b1,0,0,0,0,0,UP,0,0,20,0,19,0,1,0,0,127.0.0.1:9001,
servers,b2,0,3,1,2,1,DOWN,4,1,10,0,9,0,0,1,0,127.0.0.1:9002,
servers,BACKEND,0,3,1,2,1,UP,,1,30,0,28,0,1,1,0,,
telemetry,launcher,0,0,0,0,0,no check,,,1,0,1,0,0,0,0,127.0.0.1:9000,

`

t.test('show stat becomes per-backend figures, fairness and the balancer\'s CPU per request', async (t) => {
  const rows = parseStat(STAT)
  t.equal(rows.length, 5)
  t.same(backendFigures(rows), [
    { name: 'b1', address: '127.0.0.1:9001', requests: 20, responses: 20, status: 'UP',
      checkFailures: 0, downs: 0, connectionErrors: 0, responseErrors: 0, retries: 0, redispatches: 0 },
    { name: 'b2', address: '127.0.0.1:9002', requests: 10, responses: 10, status: 'DOWN',
      checkFailures: 4, downs: 1, connectionErrors: 3, responseErrors: 1, retries: 2, redispatches: 1 }
  ])
  const b = balancerFigures({ rows, pid: 7, balance: 'roundrobin', cpuUs: 3000 })
  t.match(b, { pid: 7, requests: 30, cpuPerRequestUs: 100, failed: 2 })
  t.equal(b.fairness, fairness([20, 10]))
  t.equal(fairness([20, 10]), 0.9)
  t.equal(fairness([5, 5]), 1)
  t.equal(fairness([10, 0]), 0.5, 'one backend idle: 1/n')
  t.equal(balancerFigures({ rows: [], pid: 7, balance: 'roundrobin', cpuUs: 0 }).cpuPerRequestUs, null)
})

t.test('the merged document has the cluster kinds\' shape, with HAProxy\'s CPU in the totals', async (t) => {
  const proc = (role, requests, cpu) =>
    ({ pid: requests, role, requests, windowMs: 1000, utilization: 0.5, cpuUs: { user: cpu, system: 0 }, eventLoopDelayUs: {} })
  const balancer = { cpuUs: 500, requests: 30 }
  const doc = mergeTelemetry('sync-lb', proc('primary', 0, 10),
    [{ processes: [proc('single', 20, 100)] }, null, { processes: [proc('single', 10, 200)] }], balancer)
  t.equal(doc.kind, 'sync-lb')
  t.equal(doc.processes.length, 3, 'the launcher and the two backends that answered')
  t.same(doc.totals.share, [20 / 30, 10 / 30])
  t.equal(doc.totals.requests, 30)
  t.equal(doc.totals.cpuUs, 10 + 100 + 200 + 500)
  t.equal(doc.balancer, balancer)
})
