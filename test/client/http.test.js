'use strict'
// The client's connection (client/http.js) against a raw-socket server: every framing is read
// as node:http (llhttp) reads it, split over packets; a closed connection is opened again and
// counted; a malformed answer is bad-response, closes that connection, and the next request goes on.

const t = require('tap')
const http = require('node:http')
const { Connection } = require('../../client/http')
const { startRawServer } = require('../fixtures/raw-server')
const { FRAMINGS, MALFORMED, head } = require('../fixtures/responses')

const OK = head(200, ['Content-Length: 7']) + 'success'
const GET = 'GET /get?key=file-0 HTTP/1.1\r\nHost: x\r\n\r\n'

function connect (port, timeout = 2000) {
  const results = []
  let waiting = null
  const conn = new Connection({ hostname: '127.0.0.1', port, timeout }, (kind, body) => {
    results.push({ kind, body: body === null ? '' : body.toString() })
    if (waiting) waiting()
  })
  // Sends one request and resolves with its outcome.
  conn.ask = (request = GET, isHead = false) => new Promise((resolve) => {
    waiting = () => resolve(results.at(-1))
    conn.send(request, true, isHead)
  })
  return conn
}

// What node:http (llhttp) reads from the same bytes: status and body.
function readWithNode (port, method) {
  return new Promise((resolve, reject) => {
    http.request({ host: '127.0.0.1', port, method, path: '/get?key=file-0', agent: false }, (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }))
    }).on('error', reject).end()
  })
}

for (const f of FRAMINGS) {
  t.test(`${f.name}: read as node:http reads it, over several packets, and the next request goes on`, async (t) => {
    const isHead = f.method === 'HEAD'
    // Odd requests get the framing (in 5 packets), even ones a plain answer.
    const server = await startRawServer(t, (n) => n % 2 ? { bytes: f.bytes, pieces: 5, close: f.closes } : { bytes: OK })
    const conn = connect(server.port)
    t.teardown(() => conn.close())
    const request = isHead ? GET.replace('GET', 'HEAD') : GET
    const first = await conn.ask(request, isHead)
    const kind = f.answer.status === 200 ? null : `http-${f.answer.status}`
    t.same(first, { kind, body: f.answer.body }, 'the answer')
    t.same(await conn.ask(), { kind: null, body: 'success' }, 'the next request on the same connection object')
    t.equal(conn.opened, f.answer.keepAlive ? 1 : 2, f.answer.keepAlive ? 'one connection' : 'opened again after the close')
    t.equal(server.connections, conn.opened)
    t.equal(conn.announced, f.announced || null)
    if (f.llhttpRefuses) await t.rejects(readWithNode(server.port, 'GET'), { code: /^HPE_/ }, 'node:http refuses it')
    else t.same(await readWithNode(server.port, isHead ? 'HEAD' : 'GET'), { status: f.answer.status, body: f.answer.body }, 'node:http reads the same')
  })
}

for (const m of MALFORMED) {
  t.test(`${m.name}: bad-response, the connection is closed, and the next request goes on`, async (t) => {
    const server = await startRawServer(t, (n) => n === 1 ? { bytes: m.bytes, pieces: 3 } : { bytes: OK })
    const conn = connect(server.port)
    t.teardown(() => conn.close())
    t.same(await conn.ask(), { kind: 'bad-response', body: '' })
    t.same(await conn.ask(), { kind: null, body: 'success' })
    t.equal(conn.opened, 2, 'a new connection for the next request')
    t.equal(server.connections, 2)
  })
}

t.test('bytes after the answer, which nobody asked for, spoil it: bad-response', async (t) => {
  const server = await startRawServer(t, (n) => ({ bytes: n === 1 ? OK + OK : OK }))
  const conn = connect(server.port)
  t.teardown(() => conn.close())
  t.same(await conn.ask(), { kind: 'bad-response', body: '' })
  t.same(await conn.ask(), { kind: null, body: 'success' })
})

t.test('a server that closes mid-answer: ECONNRESET, then a new connection', async (t) => {
  const cut = head(200, ['Transfer-Encoding: chunked']) + '7\r\nsucc'
  const server = await startRawServer(t, (n) => n === 1 ? { bytes: cut, close: true } : { bytes: OK })
  const conn = connect(server.port)
  t.teardown(() => conn.close())
  t.same(await conn.ask(), { kind: 'ECONNRESET', body: '' })
  t.same(await conn.ask(), { kind: null, body: 'success' })
})

t.test('Connection: close on every answer: each request on a new connection, all of them counted', async (t) => {
  const close = head(200, ['Connection: close', 'Transfer-Encoding: chunked']) + '7\r\nsuccess\r\n0\r\n\r\n'
  const server = await startRawServer(t, () => ({ bytes: close, close: true }))
  const conn = connect(server.port)
  t.teardown(() => conn.close())
  for (let k = 0; k < 5; k++) t.same(await conn.ask(), { kind: null, body: 'success' })
  t.equal(conn.opened, 5)
  t.equal(server.connections, 5)
})

t.test('an answer that never comes times out, and the connection is dropped', async (t) => {
  const server = await startRawServer(t, (n) => n === 1 ? { bytes: head(200, ['Content-Length: 7']) + 'suc' } : { bytes: OK })
  const conn = connect(server.port, 200)
  t.teardown(() => conn.close())
  t.same(await conn.ask(), { kind: 'timeout', body: '' })
  t.same(await conn.ask(), { kind: null, body: 'success' })
  t.equal(conn.opened, 2)
})
