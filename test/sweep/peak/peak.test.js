'use strict'
// The peak command: autocannon against each kind, GET-only (on files made first) and POST-only,
// into the same results layout, with autocannon's whole-millisecond latency noted in env.json.

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { runSweep, resultsDir, readSummary, loggedPids, isGone } = require('../../fixtures/sweep-run')

const COLUMNS = 'cell,repeat,order,kind,nServers,op,connections,duration,pipelining,valid,reason,reqPerSec,latencyMeanMs,latencyP99Ms,errors,non2xx,' +
  'node,v8,uv,hosts,serverHost,clientHosts'

t.test('peak measures GET and POST on each kind and leaves no process', async (t) => {
  const root = t.testdir({ results: {}, data: {} })
  const { code, stdout, stderr } = await runSweep(t, ['peak', '--kinds=sync,async-cluster', '--nServers=2', '--duration=1',
    '--connections=2', `--results=${path.join(root, 'results')}`, `--dataPath=${path.join(root, 'data')}`])
  t.equal(code, 0, stderr)
  const dir = resultsDir(path.join(root, 'results'))
  t.equal(stdout, `${path.join(dir, 'report.html')}\n`)
  t.equal(fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8').split('\n')[0], COLUMNS)
  const rows = readSummary(dir)
  t.same(rows.map((r) => r.cell).sort(), ['async-cluster-s2-get', 'async-cluster-s2-post', 'sync-s1-get', 'sync-s1-post'])
  for (const row of rows) {
    t.match(row, { valid: 'true', reason: '', errors: '0', non2xx: '0', connections: '2', duration: '1', pipelining: '1', node: process.version }, row.cell)
    t.ok(Number(row.reqPerSec) > 0, `${row.cell} has a throughput`)
    const result = JSON.parse(fs.readFileSync(path.join(dir, 'cells', `${row.cell}-r1.json`), 'utf8'))
    t.equal(result.requests.average, Number(row.reqPerSec))
  }
  const env = JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8'))
  t.match(env, { command: 'peak', latencyUnit: /whole milliseconds/ })
  t.same(loggedPids(dir).filter((pid) => !isGone(pid)), [])
})
