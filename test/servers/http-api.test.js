'use strict'
// The HTTP interface, bad input and attacks: the same assertions over every kind (lib/kinds.js),
// and over two of them on plain node:http (framework=http; test/servers/equivalence.test.js covers every kind).

const t = require('tap')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { KINDS, startServer, request } = require('../fixtures/server')

// Raw `key=` values (sent exactly as written) that must all be refused with 400.
const ATTACK_KEYS = [
  '..', '.', '.hidden', '.%2e', '%2e%2e', '..%2foutside', '../outside', '%2e%2e%2foutside', '%2e%2e/outside',
  '..%5coutside', '..\\outside', '%252e%252e%252foutside', '%25%32%65%25%32%65', '/etc/passwd',
  '%2fetc%2fpasswd', '%2F..%2F..%2Foutside', 'data%2f..%2f..%2foutside', 'a%00b', 'outside%00',
  '%0d%0aX-Injected:%201', 'a%0ab', 'a%09b', 'a%20b', 'a+b', 'caf%C3%A9', '%E2%80%AEtxt', 'a'.repeat(65),
  '%', '%zz', 'C:%5cwindows', '~root', '$HOME', '*', 'a;b', 'a|b', 'a.txt', '%c0%ae%c0%ae%2f', '..%c0%af',
  'outside/', '%u002e%u002e'
]
// Whole raw paths that must not reach a file.
const ATTACK_PATHS = [
  ['/get/../get?key=outside', 404], ['/%2e%2e/get?key=outside', 404], ['/get?key[]=outside', 400],
  ['/get?key=ok&key=ok', 400], ['/get?key=', 400], ['/get', 400], ['/get?', 400], ['/get?KEY=ok', 400],
  ['//get?key=ok', 404], ['/GET?key=ok', 404], ['/get/?key=ok', 404], ['/get%3fkey=ok', 404]
]

const SERVERS = [...KINDS.map((kind) => ({ kind, framework: 'express' })),
  { kind: 'sync', framework: 'http' }, { kind: 'async-cluster', framework: 'http' }]

// Three servers at a time: each test waits on its own server (the 408s on their timers) and has its own folder.
t.jobs = 3

for (const { kind, framework } of SERVERS) {
  t.test(`${kind} server on ${framework}`, async (t) => {
    const root = t.testdir({ data: {}, 'outside.txt': 'secret\n', outside: 'secret too\n' })
    const dataPath = path.join(root, 'data')
    fs.mkdirSync(path.join(dataPath, 'adir'))
    fs.symlinkSync(path.join(root, 'outside.txt'), path.join(dataPath, 'link'))
    const srv = await startServer(t, kind, {
      dataPath,
      args: ['--bodyLimit=1024', '--maxHeaderSize=2048', '--headersTimeout=400', '--requestTimeout=800', `--framework=${framework}`]
    })
    const get = (key) => request(srv, { path: `/get?key=${key}` })
    const put = (key, body, headers) => request(srv, { method: 'POST', path: `/put?key=${key}`, body, headers })

    t.test('POST appends and GET answers the sorted pieces', async (t) => {
      const missing = await get('ok')
      t.equal(missing.status, 404)
      t.equal(missing.body, 'no such file\n')
      const first = await put('ok', 'b-X-a-X-', { 'content-type': 'text/plain' })
      t.equal(first.status, 200)
      t.equal(first.body, 'success')
      // The historic client sends no Content-Type: the body must be appended all the same.
      t.equal((await put('ok', 'c-X-', {})).status, 200)
      t.equal(fs.readFileSync(path.join(dataPath, 'ok'), 'utf8'), 'b-X-a-X-c-X-')
      const got = await request(srv, { path: '/get?key=ok' })
      t.equal(got.status, 200)
      t.equal(got.headers['content-type'], 'text/plain; charset=utf-8')
      // config sortSplitString is "This is text that is", absent here: one piece, unchanged.
      t.equal(got.body, 'b-X-a-X-c-X-')
      t.notOk(got.headers['x-powered-by'], 'no x-powered-by')
      t.notOk(got.headers.etag, 'no etag')
      t.equal(got.headers['x-bench-stats'], '/_stats', 'the telemetry routes are announced')
      const head = await request(srv, { method: 'HEAD', path: '/get?key=ok' })
      t.equal(head.status, 200)
      t.equal(head.body, '')
      t.equal(head.headers['content-length'], String(Buffer.byteLength(got.body)))
    })

    t.test('GET sorts on sortSplitString', async (t) => {
      await put('sorted', 'zz This is text that is aa This is text that is mm')
      const got = await get('sorted')
      t.equal(got.body, ' aa This is text that is mmThis is text that iszz ')
    })

    t.test('bad input gets a clear 4xx and writes nothing', async (t) => {
      const cases = [
        ['POST with an empty body gets 400', { method: 'POST', path: '/put?key=empty', body: '' }, 400],
        ['POST over bodyLimit gets 413', { method: 'POST', path: '/put?key=big', body: 'x'.repeat(1025) }, 413],
        ['a key naming a symlink gets 403 on GET', { path: '/get?key=link' }, 403],
        ['a key naming a symlink gets 403 on POST', { method: 'POST', path: '/put?key=link', body: 'x' }, 403],
        ['a key naming a directory gets 404 on GET', { path: '/get?key=adir' }, 404],
        ['a key naming a directory gets 404 on POST', { method: 'POST', path: '/put?key=adir', body: 'x' }, 404],
        ['POST /get gets 405', { method: 'POST', path: '/get?key=ok', body: 'x' }, 405, 'GET, HEAD'],
        ['GET /put gets 405', { path: '/put?key=ok' }, 405, 'POST'],
        ['DELETE /get gets 405', { method: 'DELETE', path: '/get?key=ok' }, 405, 'GET, HEAD'],
        ['PUT /put gets 405', { method: 'PUT', path: '/put?key=ok', body: 'x' }, 405, 'POST'],
        ['an unknown path gets 404', { path: '/etc/passwd' }, 404],
        ['headers over maxHeaderSize get 431', { path: '/get?key=ok', headers: { 'x-big': 'y'.repeat(4096) } }, 431],
        ['a gzip body is refused with 415', { method: 'POST', path: '/put?key=gz', body: 'x', headers: { 'content-encoding': 'gzip' } }, 415]
      ]
      for (const [name, req, status, allow] of cases) {
        const res = await request(srv, req)
        t.equal(res.status, status, name)
        if (allow) t.equal(res.headers.allow, allow, `${name}: Allow header`)
        if (status !== 431) t.match(res.headers['content-type'], /^text\/plain/, `${name}: plain text`)
        if (status !== 431) t.equal(res.headers['x-bench-stats'], '/_stats', `${name}: telemetry announced`)
      }
      t.equal(fs.readFileSync(path.join(root, 'outside.txt'), 'utf8'), 'secret\n', 'symlink target untouched')
    })

    t.test(`${ATTACK_KEYS.length} attack keys and ${ATTACK_PATHS.length} attack paths are refused`, async (t) => {
      t.ok(ATTACK_KEYS.length >= 30)
      for (const key of ATTACK_KEYS) {
        t.equal((await get(key)).status, 400, `GET key=${key}`)
        t.equal((await request(srv, { path: `/file?key=${key}` })).status, 400, `GET /file key=${key}`)
        t.equal((await put(key, 'pwned\n')).status, 400, `POST key=${key}`)
      }
      for (const [p, status] of ATTACK_PATHS) {
        t.equal((await request(srv, { path: p })).status, status, `GET ${p}`)
        const postPath = p.replace(/get/gi, (m) => (m === 'get' ? 'put' : 'PUT'))
        t.equal((await request(srv, { method: 'POST', path: postPath, body: 'pwned\n' })).status, status, `POST ${postPath}`)
      }
    })

    t.test('slow headers get 408', async (t) => {
      const reply = await rawExchange(srv.port, 'GET /get?key=ok HTTP/1.1\r\nHost: x\r\n')
      t.match(reply, /^HTTP\/1\.1 408 /)
    })

    t.test('a slow body gets 408 and appends nothing', async (t) => {
      const head = 'POST /put?key=slow HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n'
      const reply = await rawExchange(srv.port, head + 'only ten b')
      t.match(reply, /^HTTP\/1\.1 408 /)
    })

    t.test('afterwards the data folder holds exactly what valid requests wrote', async (t) => {
      t.same(fs.readdirSync(dataPath).sort(), ['adir', 'link', 'ok', 'sorted'])
      t.same(fs.readdirSync(path.join(dataPath, 'adir')), [])
      t.same(fs.readdirSync(root).sort(), ['data', 'outside', 'outside.txt'])
      t.equal(fs.readFileSync(path.join(root, 'outside.txt'), 'utf8'), 'secret\n')
      t.equal(fs.readFileSync(path.join(root, 'outside'), 'utf8'), 'secret too\n')
      t.notOk(fs.existsSync(path.join(dataPath, 'slow')))
    })
  })
}

/** Writes raw bytes, then waits for whatever the server answers before it closes (at most 5 s). */
function rawExchange (port, bytes) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes))
    let reply = ''
    socket.setEncoding('utf8').on('data', (d) => { reply += d })
    socket.on('close', () => resolve(reply))
    socket.on('error', reject)
    socket.setTimeout(5000, () => socket.destroy())
  })
}
