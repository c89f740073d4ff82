'use strict'
// HTTP/1.1 responses read off one connection, whatever their framing. A hand-written fast path
// takes Content-Length and chunked answers; anything else (1xx, HEAD, 204, 304, a body up to the
// close, an unusual head) hands the connection to http-parser-js (client/slow-parser.js) for good.
// test/client/response-parser.test.js holds both to the same results on the same byte streams.

const { createSlowParser, MAX_HEAD } = require('./slow-parser')
const { ChunkedBody } = require('./chunked-body')
const { parseHead, SLOW } = require('./response-head')

const BAD = 'bad-response'
const HEAD_END = Buffer.from('\r\n\r\n')
// What the parser must know of a request, one object per kind rather than one per request.
const REQUESTS = [[false, false], [false, true], [true, false], [true, true]].map(([isHead, wantBody]) => Object.freeze({ isHead, wantBody }))
// What the fast path is reading: a head, a Content-Length body, a chunked body.
const HEAD = 0
const SIZED = 1
const CHUNKED = 2

class ResponseParser {
  /**
   * @param {{ onResponse: (status: number, body: Buffer|null, keepAlive: boolean, length: number) => void,
   *   onError: (kind: string) => void }} handlers onResponse once per final answer, in order (1xx
   *   answers are skipped), with its body's bytes counted (length) whether kept or not; onError once
   *   ('bad-response'), after which the parser takes nothing more
   */
  constructor ({ onResponse, onError }) {
    this.onResponse = onResponse
    this.onError = onError
    this.announced = null // the X-Bench-Stats value, once any answer carried one
    this.pending = [] // requests sent and not answered: { isHead, wantBody }
    this.allowed = 0 // final answers the bytes being read may hold: one per request sent before them
    this.slow = null
    this.stopped = false
    this.state = HEAD
    this.partial = null // a head so far, in its first `kept` bytes (a copy: the caller reuses its buffers)
    this.kept = 0
    this.status = 0
    this.keepAlive = true
    this.remaining = 0
    this.chunked = new ChunkedBody()
    this.body = null // pieces of the body, when it is wanted
    this.bodyLength = 0 // bytes of the body so far, kept or not
  }

  /** Announces a request just sent: isHead, a HEAD request (its answer has no body); wantBody, keep the body. */
  expect (isHead, wantBody) {
    this.pending.push(REQUESTS[(isHead ? 2 : 0) + (wantBody ? 1 : 0)])
  }

  /** Reads bytes; the caller may reuse buf as soon as this returns. */
  push (buf) {
    if (this.stopped) return
    this.allowed = this.pending.length
    if (this.slow !== null) return this.slow.push(buf)
    let i = 0
    while (i < buf.length && !this.stopped) {
      if (this.state === HEAD) i = this.readHead(buf, i)
      else if (this.state === SIZED) i = this.readSized(buf, i)
      else i = this.readChunked(buf, i)
    }
  }

  /** The peer closed: a body read up to the close ends here; any other answer is cut short. */
  end () {
    if (this.slow !== null && !this.stopped) this.slow.end()
  }

  /** Takes nothing more (the connection is being dropped). */
  stop () {
    this.stopped = true
  }

  fail (kind) {
    if (this.stopped) return
    this.stopped = true
    this.onError(kind)
  }

  // A malformed answer: nothing more is read; returns where reading stops.
  bad (at) {
    this.fail(BAD)
    return at
  }

  // Appends buf from i to the head so far, in a buffer that doubles as it fills: a head sent a
  // byte at a time costs linear time.
  keep (buf, i) {
    const need = this.kept + buf.length - i
    if (this.partial === null || this.partial.length < need) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.partial === null ? 1024 : 2 * this.partial.length))
      if (this.partial !== null) this.partial.copy(grown, 0, 0, this.kept)
      this.partial = grown
    }
    this.kept += buf.copy(this.partial, this.kept, i)
  }

  // For both paths: a final answer's head was read.
  begin (status, keepAlive) {
    this.status = status
    this.keepAlive = keepAlive
    this.body = this.pending[0].wantBody ? [] : null
    this.bodyLength = 0
  }

  addBody = (bytes) => {
    this.bodyLength += bytes.length
    if (this.body !== null) this.body.push(Buffer.from(bytes)) // a copy, as for partial
  }

  complete () {
    this.pending.shift()
    this.allowed--
    const body = this.body === null ? null : this.body.length === 1 ? this.body[0] : Buffer.concat(this.body)
    this.body = null
    this.state = HEAD
    this.onResponse(this.status, body, this.keepAlive, this.bodyLength)
  }

  readHead (buf, i) {
    if (this.allowed === 0) return this.bad(buf.length) // bytes nobody asked for
    let bytes = buf
    let from = i
    let search = i
    let offset = 0 // bytes[k] is buf[k + offset] past the kept part
    if (this.kept > 0) {
      const kept = this.kept
      this.keep(buf, i)
      bytes = this.partial.subarray(0, this.kept)
      from = 0
      search = Math.max(0, kept - 3)
      offset = i - kept
    }
    const at = bytes.indexOf(HEAD_END, search)
    if ((at < 0 ? bytes.length : at) - from > MAX_HEAD) return this.bad(buf.length)
    if (at < 0) {
      if (bytes === buf) this.keep(buf, i)
      return buf.length
    }
    this.kept = 0
    const head = parseHead(bytes.latin1Slice(from, at + 2), this.pending[0].isHead)
    if (head === SLOW) {
      this.slow = createSlowParser(this)
      this.slow.push(bytes.subarray(from))
      return buf.length
    }
    if (typeof head === 'string') return this.bad(buf.length)
    if (this.announced === null) this.announced = head.announced
    this.begin(head.status, head.keepAlive)
    if (head.length < 0) {
      this.state = CHUNKED
      this.chunked.start()
    } else {
      this.state = SIZED
      this.remaining = head.length
      if (head.length === 0) return this.ended(at + 4 + offset, buf.length)
    }
    return at + 4 + offset
  }

  readSized (buf, i) {
    const take = Math.min(this.remaining, buf.length - i)
    if (this.body !== null) this.addBody(buf.subarray(i, i + take))
    else this.bodyLength += take // counted without a view of the bytes
    this.remaining -= take
    return this.remaining === 0 ? this.ended(i + take, buf.length) : i + take
  }

  readChunked (buf, i) {
    const at = this.chunked.read(buf, i, this.addBody)
    if (this.chunked.failed) return this.bad(buf.length)
    return this.chunked.done ? this.ended(at, buf.length) : at
  }

  // An answer's last byte is before `next`: bytes after the last answer these may hold were never
  // asked for, and spoil that answer (the slow path can tell them only at the next answer).
  ended (next, n) {
    if (this.allowed === 1 && next < n) return this.bad(n)
    this.complete()
    return next
  }
}

module.exports = { ResponseParser }
