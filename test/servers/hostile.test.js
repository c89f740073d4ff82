'use strict'
// Hostile and odd clients against all four servers: request smuggling and malformed bodies get 400
// and write nothing; pipelined requests are answered in order; a client that never reads its
// answers does not make the server's memory grow without bound.

const t = require('tap')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { KINDS, startServer, request } = require('../fixtures/server')
const { exchange, splitResponses, serverRss } = require('../fixtures/raw-http')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const POST = 'POST /put?key=victim HTTP/1.1\r\nHost: x\r\n'
const CHUNKED = '5\r\nhello\r\n0\r\n\r\n'

// Two framings a proxy and this server could disagree on: each must be refused before a byte is written.
const SMUGGLING = {
  'Content-Length with Transfer-Encoding: chunked': `${POST}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n${CHUNKED}`,
  'Transfer-Encoding: chunked with Content-Length': `${POST}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n${CHUNKED}`,
  'CL.TE with a smuggled request behind': `${POST}Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n` +
    'POST /put?key=smuggled HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nbad',
  'two different Content-Lengths': `${POST}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`,
  'two equal Content-Lengths': `${POST}Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello`,
  'a Content-Length list': `${POST}Content-Length: 5, 5\r\n\r\nhello`,
  'a signed Content-Length': `${POST}Content-Length: +5\r\n\r\nhello`,
  'Transfer-Encoding: xchunked': `${POST}Transfer-Encoding: xchunked\r\n\r\n${CHUNKED}`,
  'Transfer-Encoding with a space before the colon': `${POST}Transfer-Encoding : chunked\r\n\r\n${CHUNKED}`,
  'Transfer-Encoding: chunked, identity': `${POST}Transfer-Encoding: chunked, identity\r\n\r\n${CHUNKED}`,
  'Transfer-Encoding: identity, chunked': `${POST}Transfer-Encoding: identity, chunked\r\n\r\n${CHUNKED}`,
  'two Transfer-Encoding headers': `${POST}Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n${CHUNKED}`,
  'Transfer-Encoding folded over two lines': `${POST}Transfer-Encoding:\r\n chunked\r\n\r\n${CHUNKED}`,
  'Transfer-Encoding with a vertical tab': `${POST}Transfer-Encoding:\x0bchunked\r\n\r\n${CHUNKED}`,
  'Transfer-Encoding with a NUL': `${POST}Transfer-Encoding: chunked\0\r\n\r\n${CHUNKED}`,
  'Transfer-Encoding on HTTP/1.0': `POST /put?key=victim HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${CHUNKED}`,
  'bare LF line ends': `POST /put?key=victim HTTP/1.1\nHost: x\nTransfer-Encoding: chunked\n\n${CHUNKED}`
}
// Bodies that cannot be read whole: nothing of them may be written.
const MALFORMED = {
  'a chunk size that is not hex': [`${POST}Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`],
  'a chunk longer than its size': [`${POST}Transfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n`],
  'a chunk without its CRLF': [`${POST}Transfer-Encoding: chunked\r\n\r\n5\r\nhello0\r\n\r\n`],
  'a negative chunk size': [`${POST}Transfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n`],
  'a chunk size that overflows': [`${POST}Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nhello\r\n0\r\n\r\n`],
  'an unterminated chunk extension': [`${POST}Transfer-Encoding: chunked\r\n\r\n5;a="b\r\nhello\r\n0\r\n\r\n`],
  'chunks, then close before the last chunk': [`${POST}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n`, 300],
  'a body shorter than its Content-Length, then close': [`${POST}Content-Length: 50\r\n\r\nhello`, 300],
  'a body shorter than its Content-Length, then reset': [`${POST}Content-Length: 50\r\n\r\nhello`, 'reset']
}

const snapshot = (dir) => Object.fromEntries(fs.readdirSync(dir).sort().map((f) => [f, fs.readFileSync(path.join(dir, f), 'latin1')]))

// Resets the connection (RST, not FIN) once the bytes are sent.
function sendThenReset (port, bytes) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes, () => setTimeout(() => { socket.resetAndDestroy(); resolve() }, 200)))
    socket.on('error', () => {})
  })
}

// Each server is tested alone and the tests mostly wait on its timers: three servers at a time.
t.jobs = 3
for (const kind of KINDS) {
  t.test(`${kind} server`, async (t) => {
    const dataPath = t.testdir({
      victim: 'before\n', ...Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`k${i}`, `content of k${i}\n`])), small: 'y'.repeat(4096)
    })
    const srv = await startServer(t, kind, { dataPath, args: ['--requestTimeout=2000', '--headersTimeout=1000'] })

    t.test('request smuggling gets 400, the connection closed, and nothing written', async (t) => {
      const before = snapshot(dataPath)
      for (const [name, bytes] of Object.entries(SMUGGLING)) {
        const { reply, closedByServer } = await exchange(srv.port, bytes)
        t.match(reply, /^HTTP\/1\.1 400 /, name)
        t.notMatch(reply, /success/, `${name}: nothing acknowledged`)
        t.ok(closedByServer, `${name}: the server closed the connection`)
      }
      t.same(snapshot(dataPath), before, 'the data folder is byte-identical')
      // The control: the same request, framed once, is written.
      const { reply } = await exchange(srv.port, `${POST}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${CHUNKED}`)
      t.match(reply, /^HTTP\/1\.1 200 [^]*success$/, 'a well-framed chunked POST succeeds')
      t.equal(fs.readFileSync(path.join(dataPath, 'victim'), 'utf8'), 'before\nhello', 'and appends exactly its body')
    })

    t.test('malformed bodies and bodies cut short write nothing', async (t) => {
      const before = snapshot(dataPath)
      for (const [name, [bytes, end]] of Object.entries(MALFORMED)) {
        if (end === 'reset') {
          await sendThenReset(srv.port, bytes)
          continue
        }
        const { reply } = await exchange(srv.port, bytes, { endAfterMs: end ?? null })
        t.match(reply, /^(HTTP\/1\.1 400 |$)/, `${name}: 400 or no answer`)
        t.notMatch(reply, /success/, `${name}: nothing acknowledged`)
      }
      await sleep(100)
      t.same(snapshot(dataPath), before, 'the data folder is byte-identical')
      t.equal((await request(srv, { path: '/get?key=victim' })).status, 200, 'the server still answers')
    })

    t.test('pipelined requests on one connection are answered in order', async (t) => {
      const requests = []
      const expected = []
      for (let i = 0; i < 40; i++) {
        const k = `k${i % 5}`
        if (i % 8 === 3) {
          requests.push({ method: 'POST', raw: `POST /put?key=pipe${i} HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\np${String(i).padStart(2, '0')}\n` })
          expected.push([200, 'success'])
        } else if (i % 8 === 5) {
          requests.push({ method: 'GET', raw: `GET /get?key=missing${i} HTTP/1.1\r\nHost: x\r\n\r\n` })
          expected.push([404, 'no such file\n'])
        } else if (i % 8 === 7) {
          requests.push({ method: 'HEAD', raw: `HEAD /get?key=${k} HTTP/1.1\r\nHost: x\r\n\r\n` })
          expected.push([200, ''])
        } else {
          requests.push({ method: 'GET', raw: `GET /get?key=${k} HTTP/1.1\r\nHost: x\r\n\r\n` })
          expected.push([200, `content of ${k}\n`])
        }
      }
      requests.push({ method: 'GET', raw: 'GET /get?key=k0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' })
      expected.push([200, 'content of k0\n'])
      const { reply } = await exchange(srv.port, requests.map((r) => r.raw).join(''))
      const responses = splitResponses(reply, requests.map((r) => r.method))
      t.same(responses.map((r) => [r.status, r.body]), expected, `${requests.length} answers, each in its request's place`)
    })

    t.test('a client that never reads its answers does not make the server\'s memory grow without bound', async (t) => {
      const burst = Buffer.from('GET /get?key=small HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(100))
      const socket = net.connect(srv.port, '127.0.0.1')
      socket.on('error', () => {})
      t.teardown(() => socket.destroy())
      await new Promise((resolve) => socket.once('connect', resolve))
      socket.pause() // never read: the answers pile up in the server and the kernel
      const rssBefore = serverRss(srv.pid)
      // Write while the socket takes it; the server stops reading when its answers back up.
      let sent = 0
      const stalled = await new Promise((resolve) => {
        const deadline = Date.now() + 10000
        const pump = () => {
          while (socket.write(burst)) {
            sent += burst.length
            if (Date.now() > deadline) return resolve(false)
          }
          const quiet = setTimeout(() => resolve(true), 1000) // no drain for 1 s: the server stopped reading
          socket.once('drain', () => { clearTimeout(quiet); if (Date.now() > deadline) resolve(false); else setImmediate(pump) })
        }
        pump()
      })
      t.ok(stalled, `the server stopped reading after ${(sent / 1e6).toFixed(1)} MB of requests`)
      // What it read by then it answers into its socket buffer; then its memory must stay flat.
      await sleep(1000)
      const rssSettled = serverRss(srv.pid)
      await sleep(1500)
      const rssLater = serverRss(srv.pid)
      const mb = (n) => `${(n / 2 ** 20).toFixed(1)} MiB`
      t.ok(rssSettled - rssBefore < 160 * 2 ** 20, `memory grew by ${mb(rssSettled - rssBefore)} (bound 160 MiB)`)
      t.ok(rssLater - rssSettled < 8 * 2 ** 20, `then by ${mb(rssLater - rssSettled)} in 1.5 s: it does not keep growing`)
      t.equal((await request(srv, { path: '/get?key=k1' })).body, 'content of k1\n', 'other clients are still served')
    })
  })
}
