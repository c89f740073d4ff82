'use strict'
// Storage faults are told once, then counted: one line per window, not one per request.

const t = require('tap')
const http = require('node:http')
const { createFaultLog, describeFault, faultLine } = require('../../lib/serving/faults')
const { createApp } = require('../../servers/lib/app')
const { createMonitor, localStats } = require('../../lib/serving/process-telemetry')
const { request } = require('../fixtures/server')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const fsError = (code, syscall = 'write') => Object.assign(new Error(`${code}: something, ${syscall}`), { code, syscall })

// Real timers, yet nothing here depends on how fast the machine runs them: Node fires due timers in the
// order they fall due, so a sleep longer than a window ends after that window's tick, however late both come.
t.test('the first fault of a kind is told at once, the rest as one count per window', async (t) => {
  const emitted = []
  const faults = createFaultLog({ emit: (e) => emitted.push(e), windowMs: 100 })
  for (let i = 0; i < 50; i++) faults.note('PUT ENOSPC', 'PUT failed: disk full')
  faults.note('PUT EIO', 'PUT failed: I/O error', 3)
  t.same(emitted.map((e) => [e.key, e.count, e.first]), [['PUT ENOSPC', 1, true], ['PUT EIO', 3, true]])
  await sleep(150)
  t.same(emitted.slice(2).map((e) => [e.key, e.count, e.first]), [['PUT ENOSPC', 49, false]], 'one count line; none for a kind without more')
  await sleep(250)
  t.equal(emitted.length, 3, 'quiet windows say nothing')
  faults.note('PUT ENOSPC', 'PUT failed: disk full')
  t.equal(emitted.at(-1).first, true, 'after a quiet window, a fault is told in full again')
  faults.note('PUT ENOSPC', 'PUT failed: disk full', 4)
  faults.flush()
  t.same(emitted.at(-1), { key: 'PUT ENOSPC', message: 'PUT failed: disk full', count: 4, first: false, ms: emitted.at(-1).ms })
  faults.flush()
  t.equal(emitted.length, 5, 'nothing twice')
})

t.test('fault lines say what, how many and over how long', async (t) => {
  t.equal(faultLine({ key: 'PUT ENOSPC', message: 'PUT failed: disk full', count: 1, first: true, ms: 0 }),
    'PUT failed: disk full; further PUT ENOSPC failures are counted, one line per 10 s')
  t.equal(faultLine({ key: 'PUT ENOSPC', message: 'm', count: 7, first: true, ms: 0 }), 'm (x7); further PUT ENOSPC failures are counted, one line per 10 s')
  t.equal(faultLine({ key: 'PUT EIO', message: 'm', count: 12, first: false, ms: 9876 }), 'PUT EIO: 12 more failures in the last 9.9 s')
  t.equal(faultLine({ key: 'PUT EIO', message: 'm', count: 1, first: false, ms: 100 }), 'PUT EIO: 1 more failure in the last 0.1 s')
})

t.test('describeFault names storage faults and leaves other errors alone', async (t) => {
  t.same(describeFault(fsError('ENOSPC'), 'PUT'), { key: 'PUT ENOSPC', message: 'PUT failed: disk full (ENOSPC): ENOSPC: something, write' })
  t.match(describeFault(fsError('ENOENT', 'open'), 'PUT'), { message: /the data folder is gone \(ENOENT\)/ })
  t.match(describeFault(fsError('EWEIRD'), 'GET'), { key: 'GET EWEIRD', message: 'GET failed: EWEIRD: EWEIRD: something, write' })
  t.match(describeFault(Object.assign(new Error('short write'), { code: 'ENOSPC', status: 507 }), 'PUT'), { key: 'PUT ENOSPC' })
  t.equal(describeFault(new TypeError('a bug'), 'PUT'), null)
  t.equal(describeFault(Object.assign(new Error('no syscall'), { code: 'EACCES' }), 'PUT'), null)
})

t.test('the app answers 507 for no space and 500 for an I/O error, each told once then counted', async (t) => {
  let failure
  const store = { read: async () => { throw failure }, append: async () => { throw failure } }
  const logged = []
  const faults = createFaultLog({ emit: (e) => logged.push(faultLine(e)), windowMs: 60000 })
  const app = createApp({ config: { bodyLimit: 100 }, store, stats: localStats('test', createMonitor('single')), log: (l) => logged.push(l), faults })
  const server = http.createServer(app)
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const srv = { port: server.address().port }
  const put = () => request(srv, { method: 'POST', path: '/put?key=k', body: 'x' })
  for (const [code, status, body] of [['ENOSPC', 507, 'insufficient storage\n'], ['EDQUOT', 507, 'insufficient storage\n'], ['EIO', 500, 'internal error\n']]) {
    failure = Object.assign(fsError(code), { status: status === 507 ? 507 : undefined })
    for (let i = 0; i < 5; i++) t.match(await put(), { status, body }, `${code}: ${status}`)
  }
  failure = fsError('EIO', 'read')
  t.match(await request(srv, { path: '/get?key=k' }), { status: 500, body: 'internal error\n' })
  t.equal(logged.length, 4, 'one line per kind of fault, not per request')
  t.match(logged, [/^PUT failed: disk full \(ENOSPC\)/, /^PUT failed: disk quota exceeded \(EDQUOT\)/, /^PUT failed: I\/O error \(EIO\)/,
    /^GET failed: I\/O error \(EIO\)/])
  faults.flush()
  t.same(logged.slice(4).map((l) => /^(\S+ \S+): (\d+) more/.exec(l).slice(1)),
    [['PUT', '4'], ['PUT', '4'], ['PUT', '4']].map(([op, n], i) => [`${op} ${['ENOSPC', 'EDQUOT', 'EIO'][i]}`, n]))
})
