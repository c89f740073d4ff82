'use strict'
// The client's window on the server's telemetry: reset after warm-up, read after the measured
// phase, so the server counts exactly the measured operations; asked only of a server that
// announces it (or when told to); a server without it fails nothing.

const t = require('tap')
const http = require('node:http')
const { startServer, request } = require('../fixtures/server')
const { startBadServer } = require('../fixtures/bad-server')
const { runClient } = require('../fixtures/client')
const { planServerStats, resetServerStats, readServerStats, formatServerStats } = require('../../client/server-stats')

// Warm-up (20 operations and the file creations per process) would add ~50 requests to the window.
const FLAGS = ['--nOperations=301', '--nClients=2', '--concurrency=2', '--readsPerWrite=3', '--nFiles=7', '--warmup=20']

for (const kind of ['sync-cluster', 'async']) {
  t.test(`against ${kind} the server counts exactly the measured operations`, async (t) => {
    const dataPath = t.testdir()
    const server = await startServer(t, kind, { dataPath })
    const { code, stderr, report } = await runClient(t, dataPath, [`--serverPort=${server.port}`, `--dataPath=${dataPath}`, ...FLAGS])
    t.equal(code, 0)
    const { operations, serverStats } = report
    t.equal(operations.completed + operations.failed, 301, 'the /_stats requests are not among the client\'s operations')
    t.equal(report.latency.GET.count + report.latency.PUT.count, 301)
    t.equal(serverStats.kind, kind)
    t.equal(serverStats.totals.requests, operations.completed + operations.failed, 'no warm-up request in the window')
    const serving = serverStats.processes.filter((p) => p.role !== 'primary')
    t.equal(serving.length, kind === 'async' ? 1 : 2)
    t.equal(serving.reduce((n, p) => n + p.requests, 0), serverStats.totals.requests, 'per-process requests add up')
    t.same(report.problems, [])
    t.match(stderr, new RegExp('\\n  server: 301 requests, event-loop utilization [\\d.]+ \\(mean\\), ' +
      `delay p99 \\d+ µs \\(max over ${serverStats.processes.length} processes\\), fairness [\\d.]+\\n`))
    for (const p of report.processes) t.ok(Number.isInteger(p.maxRssKb) && p.maxRssKb > 10000, `process ${p.index} peak RSS ${p.maxRssKb} KiB`)
    t.ok(Number.isInteger(report.primaryMaxRssKb) && report.primaryMaxRssKb > 10000, `primary peak RSS ${report.primaryMaxRssKb} KiB`)
  })
}

t.test('a server that does not announce telemetry is never asked for it, and the run still passes', async (t) => {
  const dataPath = t.testdir()
  const server = await startBadServer(t, { dataPath })
  const { code, stderr, report } = await runClient(t, dataPath, [`--serverPort=${server.port}`, `--dataPath=${dataPath}`, ...FLAGS])
  t.equal(code, 0)
  t.match(report, { ok: true, serverStats: null, operations: { completed: 301, failed: 0 } })
  t.equal(server.counts.other, 0, 'no request outside the experiment\'s interface')
  t.equal(server.counts.requests, 301 + report.warmup.operations, 'the load itself is unchanged')
  t.same(report.problems, ['server stats: not asked: its warm-up answers did not carry an X-Bench-Stats field (--serverStats=true asks anyway)'])
  t.match(stderr, /\n {2}server stats: not asked: .*\nclient: OK\n$/)
  t.notMatch(stderr, /\n {2}server: /)
})

t.test('--serverStats=true asks a server without /_stats: the reason is told, no GET after a failed reset, and the run still passes', async (t) => {
  const dataPath = t.testdir()
  const server = await startBadServer(t, { dataPath })
  const { code, stderr, report } = await runClient(t, dataPath, [`--serverPort=${server.port}`, `--dataPath=${dataPath}`, '--serverStats=true', ...FLAGS])
  t.equal(code, 0)
  t.match(report, { ok: true, serverStats: null, operations: { completed: 301, failed: 0 } })
  t.same(report.problems, ['server stats: POST /_stats/reset answered 404 (a server without telemetry?)'])
  t.equal(server.counts.other, 1, 'no GET /_stats after a failed reset')
  t.equal(server.counts.requests, 301 + report.warmup.operations, 'the load itself is unchanged')
  t.match(stderr, /\n {2}server stats: POST \/_stats\/reset answered 404 .*\nclient: OK\n$/)
})

t.test('a server that never answers /_stats costs one timeout and fails nothing', async (t) => {
  const dataPath = t.testdir()
  const server = await startBadServer(t, { dataPath, otherPaths: 'hang' })
  const { code, report } = await runClient(t, dataPath,
    [`--serverPort=${server.port}`, `--dataPath=${dataPath}`, '--timeout=500', '--serverStats=true', ...FLAGS])
  t.equal(code, 0)
  t.match(report, { ok: true, serverStats: null })
  t.same(report.problems, ['server stats: POST /_stats/reset failed: no answer in 500 ms'])
})

t.test('--serverStats=false never asks, and auto without a warm-up cannot see the announcement', async (t) => {
  const dataPath = t.testdir()
  const server = await startServer(t, 'async', { dataPath })
  const base = [`--serverPort=${server.port}`, `--dataPath=${dataPath}`, '--nOperations=40', '--nClients=1', '--nFiles=3']
  const off = await runClient(t, dataPath, [...base, '--serverStats=false'])
  t.equal(off.code, 0)
  t.match(off.report, { ok: true, serverStats: null, problems: [] })
  const cold = await runClient(t, dataPath, [...base, '--warmup=0', '--readsPerWrite=0'])
  t.equal(cold.code, 0)
  t.match(cold.report, { ok: true, serverStats: null })
  t.same(cold.report.problems, ['server stats: not asked: there was no warm-up (--warmup=0) to see an X-Bench-Stats field (--serverStats=true asks anyway)'])
  const stats = await request(server, { path: '/_stats' })
  t.equal(JSON.parse(stats.body).totals.requests, 40 + off.report.warmup.operations + 40, 'no run reset the window: every request of both is in it')
})

t.test('which telemetry to ask for: announced, told to, or not at all', async (t) => {
  const auto = { serverStats: 'auto', warmup: 10 }
  t.same(planServerStats(auto, '/_stats'), { path: '/_stats', problem: null })
  t.same(planServerStats(auto, '/other/place'), { path: '/other/place', problem: null }, 'the announced path is used')
  t.match(planServerStats(auto, null), { path: null, problem: /^server stats: not asked: its warm-up answers/ })
  t.match(planServerStats(auto, 'no path\r\nX: y'), { path: null }, 'an announcement that is no path is none')
  t.same(planServerStats({ ...auto, serverStats: true }, null), { path: '/_stats', problem: null })
  t.same(planServerStats({ ...auto, serverStats: false }, '/_stats'), { path: null, problem: null })
})

t.test('an answer to /_stats that is not telemetry is refused', async (t) => {
  const bodies = { '/_stats/reset': [200, 'reset\n'] }
  const server = http.createServer((req, res) => {
    const [status, body] = bodies[req.url] || [404, 'not found\n']
    res.writeHead(status).end(body)
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const config = { serverHostname: '127.0.0.1', serverPort: server.address().port, timeout: 2000 }
  t.equal(await resetServerStats(config), null)
  t.same(await readServerStats(config), { stats: null, problem: 'server stats: GET /_stats answered 404' })
  for (const body of ['not json', '{"totals":{"requests":1}}', '{"processes":[],"totals":{"requests":"1"}}', 'null']) {
    bodies['/_stats'] = [200, body]
    t.same(await readServerStats(config), { stats: null, problem: 'server stats: GET /_stats answered something other than telemetry JSON' }, body)
  }
  const doc = { kind: 'k', processes: [], totals: { requests: 0 } }
  bodies['/_stats'] = [200, JSON.stringify(doc)]
  t.same(await readServerStats(config), { stats: doc, problem: null }, 'a valid document is kept as is')
})

t.test('the summary line takes the worst p99 over the processes and copes with missing figures', async (t) => {
  const p = (p99) => ({ eventLoopDelayUs: { p99 } })
  t.equal(formatServerStats({ processes: [p(120), p(null), p(4500)], totals: { requests: 7, meanUtilization: 0.25, fairness: 1 } }),
    '  server: 7 requests, event-loop utilization 0.250 (mean), delay p99 4500 µs (max over 3 processes), fairness 1.000')
  t.equal(formatServerStats({ processes: [p(null)], totals: { requests: 0, meanUtilization: null, fairness: 1 } }),
    '  server: 0 requests, event-loop utilization - (mean), delay p99 - µs (max over 1 processes), fairness 1.000')
})
