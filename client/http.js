'use strict'
// One keep-alive HTTP/1.1 connection on a raw socket, one request at a time, with a per-request
// timeout that destroys the socket. Raw because node:http costs ~3x the CPU per request (see
// bench/RESULTS.md). A 200 must carry a Content-Length, as the servers' all do (no chunked).

const net = require('node:net')

const HEAD_END = Buffer.from('\r\n\r\n')
const MAX_HEAD = 64 * 1024
const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})/
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)[ \t]*\r/i
const CONNECTION_CLOSE = /\r\nconnection:[ \t]*close[ \t]*\r/i

/** The request head of a GET, built once per key. */
function getRequest (host, key) {
  return Buffer.from(`GET /get?key=${key} HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 'latin1')
}

/** A whole POST request (head and body) as one string, to go out in one write. */
function putRequest (host, key, body) {
  return `POST /put?key=${key} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

/** The Host header value for a host name or an IPv4/IPv6 address. */
function hostHeader (hostname, port) {
  return `${net.isIPv6(hostname) ? `[${hostname}]` : hostname}:${port}`
}

class Connection {
  /**
   * @param {{ hostname: string, port: number, timeout: number }} options timeout in ms
   * @param {(kind: string|null, body: string) => void} onResponse called once per request: kind
   *   null for a 200, else http-<status>, timeout, bad-response or a socket error code
   */
  constructor ({ hostname, port, timeout }, onResponse) {
    this.hostname = hostname
    this.port = port
    this.onResponse = onResponse
    this.socket = null
    this.busy = false
    this.wantBody = false
    this.head = null // bytes of a response head still incomplete
    this.remaining = -1 // body bytes still to come; -1 while reading the head
    this.status = 0
    this.closeAfter = false
    this.body = ''
    // One timer per connection, re-armed at every send: cheaper than a timer per request.
    // (setTimeout takes at most 2^31-1 ms; it would fire at once for more.)
    this.timer = setTimeout(() => { if (this.busy) this.fail('timeout') }, timeout).unref()
  }

  /** Sends one request; a second one before the response is a bug in the caller. */
  send (request, wantBody) {
    if (this.socket === null) this.connect()
    this.busy = true
    this.wantBody = wantBody
    this.timer.refresh()
    this.socket.write(request)
  }

  connect () {
    const socket = net.connect(this.port, this.hostname)
    socket.setNoDelay(true)
    socket.on('data', (chunk) => { if (socket === this.socket) this.read(chunk) })
    socket.on('error', (err) => { if (socket === this.socket) this.fail(err.code || 'socket-error') })
    socket.on('close', () => { if (socket === this.socket) this.fail('ECONNRESET') })
    this.socket = socket
  }

  // Drops the socket; ends the request in flight, if any, with this error kind.
  fail (kind) {
    this.drop()
    if (this.busy) this.finish(kind)
  }

  drop () {
    if (this.socket !== null) this.socket.destroy()
    this.socket = null
    this.head = null
    this.remaining = -1
  }

  read (chunk) {
    if (!this.busy) return this.fail('bad-response') // bytes nobody asked for
    if (this.remaining < 0) {
      if (this.head !== null) chunk = Buffer.concat([this.head, chunk])
      const end = chunk.indexOf(HEAD_END)
      if (end < 0) {
        this.head = chunk
        if (chunk.length > MAX_HEAD) this.fail('bad-response')
        return
      }
      this.head = null
      const head = chunk.latin1Slice(0, end + 2)
      const status = STATUS_LINE.exec(head)
      const length = CONTENT_LENGTH.exec(head)
      if (status === null) return this.fail('bad-response')
      // Without a length the body's end is unknown: a failure is still counted by its status.
      if (length === null) return this.fail(status[1] === '200' ? 'bad-response' : `http-${status[1]}`)
      this.status = Number(status[1])
      this.remaining = Number(length[1])
      this.closeAfter = CONNECTION_CLOSE.test(head)
      chunk = chunk.subarray(end + 4)
    }
    if (chunk.length > this.remaining) return this.fail('bad-response') // one request, one response
    if (this.wantBody) this.body += chunk.toString('utf8')
    this.remaining -= chunk.length
    if (this.remaining > 0) return
    this.remaining = -1
    if (this.closeAfter) this.drop()
    this.finish(this.status === 200 ? null : `http-${this.status}`)
  }

  finish (kind) {
    const body = this.body
    this.busy = false
    this.body = ''
    this.onResponse(kind, body)
  }

  /** Closes the connection for good. */
  close () {
    clearTimeout(this.timer)
    this.drop()
  }
}

module.exports = { Connection, getRequest, putRequest, hostHeader }
