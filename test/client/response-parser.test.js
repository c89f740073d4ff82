'use strict'
// The client's response parser against a well-kept one: the same byte streams (every framing,
// seeded random streams, cut at every byte or at random places) must read as the same answers
// through client/response-parser.js (fast path, handing over to http-parser-js) and through
// http-parser-js alone; malformed answers are bad-response, however they are cut.

const t = require('tap')
const { isDeepStrictEqual } = require('node:util')
const { HTTPParser } = require('http-parser-js')
const { ResponseParser } = require('../../client/response-parser')
const { mulberry32: rng } = require('../../lib/random')
const { FRAMINGS, MALFORMED, randomStream, split, head } = require('../fixtures/responses')

const RANDOM_STREAMS = 400

// Reads pieces with the client's parser: the answers, the error if one came, the announcement.
function readFast (methods, pieces) {
  const answers = []
  let error = null
  const parser = new ResponseParser({
    onResponse: (status, body, keepAlive) => answers.push({ status, body: body === null ? '' : body.toString(), keepAlive }),
    onError: (kind) => { error = kind }
  })
  for (const method of methods) parser.expect(method === 'HEAD', true)
  for (const piece of pieces) {
    const bytes = Buffer.from(piece)
    parser.push(bytes)
    bytes.fill(0x58) // as the socket's read buffer is reused: the parser must have copied what it keeps
  }
  parser.end()
  return { answers, error, announced: parser.announced }
}

// Reads pieces with http-parser-js alone, as its users do (autocannon, node's old http).
function readReference (methods, pieces) {
  const answers = []
  let error = null
  let body = []
  let current = null
  const parser = new HTTPParser(HTTPParser.RESPONSE)
  parser[HTTPParser.kOnHeadersComplete] = (info) => {
    body = []
    if (info.statusCode < 200) return false
    current = { status: info.statusCode, keepAlive: info.shouldKeepAlive }
    return methods[answers.length] === 'HEAD'
  }
  parser[HTTPParser.kOnBody] = (chunk, start, length) => body.push(Buffer.from(chunk.subarray(start, start + length)))
  parser[HTTPParser.kOnMessageComplete] = () => {
    if (current !== null) answers.push({ ...current, body: Buffer.concat(body).toString() })
    current = null
  }
  for (const piece of pieces) {
    const result = parser.execute(Buffer.from(piece))
    if (result instanceof Error) error = result.message
  }
  const result = parser.finish()
  if (result instanceof Error && error === null) error = 'cut short'
  return { answers, error }
}

t.test('every framing reads as its answer, cut at every byte and at random places, as http-parser-js reads it', async (t) => {
  const random = rng(11)
  for (const f of FRAMINGS) {
    const methods = [f.method || 'GET']
    const bytes = Buffer.from(f.bytes)
    for (const [how, pieces] of [['whole', [bytes]], ['byte by byte', split(bytes, null)], ['at random', split(bytes, random)]]) {
      const fast = readFast(methods, pieces)
      t.same(fast, { answers: [f.answer], error: null, announced: f.announced || null }, `${f.name}, ${how}`)
      t.same(readReference(methods, pieces), { answers: [f.answer], error: null }, `${f.name}, ${how}: http-parser-js agrees`)
    }
  }
})

t.test('every framing\'s body bytes are counted, kept or not, whole or cut at every byte', async (t) => {
  for (const f of FRAMINGS) {
    const bytes = Buffer.from(f.bytes)
    for (const wantBody of [true, false]) {
      for (const [how, pieces] of [['whole', [bytes]], ['byte by byte', split(bytes, null)]]) {
        const answers = []
        const parser = new ResponseParser({ onResponse: (status, body, keepAlive, length) => answers.push({ kept: body !== null, length }), onError: () => {} })
        parser.expect(f.method === 'HEAD', wantBody)
        for (const piece of pieces) parser.push(Buffer.from(piece))
        parser.end()
        t.same(answers, [{ kept: wantBody, length: Buffer.byteLength(f.answer.body) }], `${f.name}, ${wantBody ? 'kept' : 'not kept'}, ${how}`)
      }
    }
  }
})

t.test('several answers in one packet, and one answer over many: random streams read the same both ways', async (t) => {
  const random = rng(2026)
  let compared = 0
  for (let k = 0; k < RANDOM_STREAMS; k++) {
    const stream = randomStream(random)
    const pieces = split(stream.bytes, random() < 0.1 ? null : random)
    const fast = readFast(stream.methods, pieces)
    const reference = readReference(stream.methods, pieces)
    const got = { fast: { answers: fast.answers, error: fast.error }, reference }
    const want = { fast: { answers: stream.answers, error: null }, reference: { answers: stream.answers, error: null } }
    if (!isDeepStrictEqual(got, want)) t.same(got, want, `stream ${k}: ${JSON.stringify(stream.bytes.toString())}`)
    compared += stream.answers.length
  }
  t.ok(compared > RANDOM_STREAMS * 2, `${compared} answers in ${RANDOM_STREAMS} streams read alike`)
})

t.test('a malformed answer is bad-response however it is cut, after the good ones before it', async (t) => {
  const random = rng(7)
  const good = head(200, ['Content-Length: 7']) + 'success'
  for (const m of MALFORMED) {
    const bytes = Buffer.from(good + m.bytes)
    for (const [how, pieces] of [['whole', [bytes]], ['at random', split(bytes, random)], ['byte by byte', split(bytes, null)]]) {
      const { answers, error } = readFast(['GET', 'GET'], pieces)
      t.same({ answers: answers.map((a) => a.body), error }, { answers: ['success'], error: 'bad-response' }, `${m.name}, ${how}`)
    }
  }
})

t.test('bytes nobody asked for are bad-response, on either path', async (t) => {
  const length = head(200, ['Content-Length: 2']) + 'ok'
  const noBody = head(204)
  const cases = [
    // The fast path sees them in the same read as the answer, which they spoil.
    ['after a Content-Length answer, in the same read', ['GET'], [length + length], 0],
    ['after a Content-Length answer, in the next read', ['GET'], [length, length], 1],
    // The slow path tells them once they make a head.
    ['after an answer without a body', ['GET'], [noBody + noBody], 1],
    ['before any request', [], [length], 0]
  ]
  for (const [name, methods, pieces, answered] of cases) {
    const { answers, error } = readFast(methods, pieces.map((p) => Buffer.from(p)))
    t.same({ answered: answers.length, error }, { answered, error: 'bad-response' }, name)
  }
})

t.test('an answer cut short by the close is neither an answer nor a parse error (the connection tells it)', async (t) => {
  for (const bytes of [head(200, ['Content-Length: 7']) + 'succ', head(200, ['Transfer-Encoding: chunked']) + '7\r\nsucc', 'HTTP/1.1 200 OK\r\nContent-Le']) {
    t.same(readFast(['GET'], [Buffer.from(bytes)]), { answers: [], error: null, announced: null }, JSON.stringify(bytes))
  }
})
