'use strict'
// The fast path's reading of a response head (status line and fields, up to its last CRLF): the
// status, whether the connection stays open and how the body is framed; or that the head is one
// for the well-kept parser (SLOW), or malformed (BAD).

const SLOW = 'slow'
const BAD = 'bad'
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)[ \r]/
// The four fields the fast path needs, in one pass; told apart below by the name's length.
const FIELD = /\r\n(content-length|transfer-encoding|connection|x-bench-stats):[ \t]*([^\r\n]*)/gi
const FOLDED = /\r\n[ \t]/ // obs-fold: a field continued on the next line
const DIGITS = /^\d{1,15}$/

/**
 * Reads a head for the fast path.
 * @param {string} head the head as latin1 text, from the status line to the CRLF ending the last field
 * @param {boolean} isHead the request was a HEAD
 * @returns {{ status: number, keepAlive: boolean, length: number, announced: string|null } | 'slow' | 'bad'}
 *   length: the Content-Length, or -1 for a chunked body; announced: the X-Bench-Stats value
 */
function parseHead (head, isHead) {
  const m = STATUS_LINE.exec(head)
  if (m === null || FOLDED.test(head)) return SLOW
  const status = Number(m[2])
  // No body (1xx, 204, 304, HEAD) or an interim answer first: for the well-kept parser.
  if (status < 200 || status === 204 || status === 304 || isHead) return SLOW
  let length = -1
  let coding = null
  let connection = ''
  let announced = null
  FIELD.lastIndex = 0
  for (let f = FIELD.exec(head); f !== null; f = FIELD.exec(head)) {
    const value = f[2].trimEnd()
    switch (f[1].length) {
      case 14: // content-length: once, in digits
        if (length >= 0 || !DIGITS.test(value)) return BAD
        length = Number(value)
        break
      case 17: // transfer-encoding
        if (coding !== null) return BAD
        coding = value.toLowerCase()
        break
      case 10: // connection
        connection += value.toLowerCase()
        break
      default: // x-bench-stats
        if (announced === null) announced = value
    }
  }
  // A coding the client never asked for, or a length beside one (a smuggling sign): refused.
  if (coding !== null && (coding !== 'chunked' || length >= 0)) return BAD
  if (coding === null && length < 0) return SLOW // the body ends at the close
  // As http-parser-js decides: HTTP/1.1 keeps the connection unless `close`, 1.0 only on `keep-alive`.
  const keepAlive = m[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive')
  return { status, keepAlive, length, announced }
}

module.exports = { parseHead, SLOW, BAD }
