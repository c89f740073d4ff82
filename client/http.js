'use strict'
// One keep-alive HTTP/1.1 connection on a raw socket, one request at a time, with a per-request
// timeout that destroys the socket. Raw because node:http costs ~3x the CPU per request (see
// bench/RESULTS.md); answers of any framing are read by client/response-parser.js.

const net = require('node:net')
const { ResponseParser } = require('./response-parser')

// Every socket of the process reads into this one buffer: the parser copies what it keeps, and
// a read is handled to its end before the next one starts.
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024)

// The path of a GET by config.getBody: the historic work (the file's sorted text), or the file as it is.
const GET_PATHS = { sorted: '/get', bytes: '/file' }

/** The request head of a GET, built once per key; getBody as config.getBody says (default sorted). */
function getRequest (host, key, getBody = 'sorted') {
  return Buffer.from(`GET ${GET_PATHS[getBody]}?key=${key} HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 'latin1')
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
   * @param {(kind: string|null, body: Buffer|null, length: number) => void} onResponse called once per
   *   request: kind null for a 200, else http-<status>, timeout, bad-response or a socket error code;
   *   body, if wanted and answered; length, the answer's body bytes (0 without an answer)
   */
  constructor ({ hostname, port, timeout }, onResponse) {
    this.hostname = hostname
    this.port = port
    this.onResponse = onResponse
    this.socket = null
    this.busy = false
    this.parser = null // one per socket: bytes of a dropped socket never reach the next one's
    this.opened = 0 // connections made so far: more than one means some were closed
    this.announced = null // what the server announced in an X-Bench-Stats field, if it did
    // One timer per connection, re-armed at every send: cheaper than a timer per request.
    // (setTimeout takes at most 2^31-1 ms; it would fire at once for more.)
    this.timer = setTimeout(() => { if (this.busy) this.fail('timeout') }, timeout).unref()
  }

  /**
   * Sends one request; a second one before the answer is a bug in the caller.
   * @param {Buffer|string} request the whole request
   * @param {boolean} wantBody hand the answer's body to onResponse
   * @param {boolean} [isHead] a HEAD request: its answer has no body
   */
  send (request, wantBody, isHead = false) {
    if (this.socket === null) this.connect()
    this.busy = true
    this.parser.expect(isHead, wantBody)
    this.timer.refresh()
    this.socket.write(request)
  }

  connect () {
    const socket = net.connect({
      port: this.port,
      host: this.hostname,
      noDelay: true,
      onread: { buffer: READ_BUFFER, callback: (n, buf) => { if (socket === this.socket) this.parser.push(buf.subarray(0, n)) } }
    })
    socket.once('connect', () => { this.opened++ })
    socket.on('error', (err) => { if (socket === this.socket) this.fail(err.code || 'socket-error') })
    // The server closed: an answer whose body runs to the close ends here; one cut short fails.
    socket.on('end', () => { if (socket === this.socket) this.parser.end() })
    socket.on('close', () => { if (socket === this.socket) this.fail('ECONNRESET') })
    this.socket = socket
    this.parser = new ResponseParser({
      onResponse: (status, body, keepAlive, length) => this.answered(status, body, keepAlive, length),
      onError: (kind) => this.fail(kind)
    })
  }

  answered (status, body, keepAlive, length) {
    if (this.announced === null) this.announced = this.parser.announced
    if (!keepAlive) this.drop() // Connection: close, HTTP/1.0, a body up to the close: a new one next time
    this.finish(status === 200 ? null : `http-${status}`, body, length)
  }

  // Drops the socket; ends the request in flight, if any, with this error kind.
  fail (kind) {
    this.drop()
    if (this.busy) this.finish(kind, null, 0)
  }

  drop () {
    if (this.socket === null) return
    this.parser.stop()
    this.socket.destroy()
    this.socket = null
  }

  finish (kind, body, length) {
    this.busy = false
    this.onResponse(kind, body, length)
  }

  /** Closes the connection for good. */
  close () {
    clearTimeout(this.timer)
    this.drop()
  }
}

module.exports = { Connection, getRequest, putRequest, hostHeader }
