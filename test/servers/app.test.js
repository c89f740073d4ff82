'use strict'
// The express app in-process: an unexpected store failure is a generic 500 with details only in the log.

const t = require('tap')
const http = require('node:http')
const { createApp } = require('../../servers/lib/app')
const { createMonitor, localStats } = require('../../lib/serving/process-telemetry')
const { request } = require('../fixtures/server')

t.test('a 5xx body never shows a path or an fs message; the log does', async (t) => {
  const fsError = Object.assign(new Error("EACCES: permission denied, open '/secret/data/k'"), { code: 'EACCES' })
  const store = { read: async () => { throw fsError }, append: () => { throw fsError } }
  const logged = []
  const server = http.createServer(createApp({
    config: { bodyLimit: 100 }, store, stats: localStats('test', createMonitor('single')), log: (l) => logged.push(l)
  }))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const srv = { port: server.address().port }
  for (const req of [{ path: '/get?key=k' }, { method: 'POST', path: '/put?key=k', body: 'x' }]) {
    const res = await request(srv, req)
    t.equal(res.status, 500)
    t.equal(res.body, 'internal error\n')
  }
  t.equal(logged.length, 2)
  t.match(logged[0], /^error GET \/get\?key=k: Error: EACCES: permission denied, open '\/secret\/data\/k'/)
})
