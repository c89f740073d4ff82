'use strict'
// The fast path's reading of a response head (status line and fields, up to its last CRLF): the
// status, whether the connection stays open and how the body is framed; or that the head is one
// for the well-kept parser (SLOW), or malformed (BAD). Read by hand, line by line: of the fields,
// only the four it needs, found by their first letter and where their colon is.

const SLOW = 'slow'
const BAD = 'bad'
const DIGITS = /^\d{1,15}$/
const SP = 32
const HTAB = 9
const isDigit = (c) => c >= 48 && c <= 57

// Whether the field at `at` is `name` (lower case), in any case: its first letter, the colon after
// it, then every letter with its 0x20 bit set (a CR or LF matches no letter: never past the line).
function is (head, at, name) {
  if ((head.charCodeAt(at) | 0x20) !== name.charCodeAt(0) || head.charCodeAt(at + name.length) !== 58) return false
  for (let k = 1; k < name.length; k++) if ((head.charCodeAt(at + k) | 0x20) !== name.charCodeAt(k)) return false
  return true
}

// The value of a field, from after its colon to its line's end, without the white space around it.
function fieldValue (head, from, to) {
  while (from < to && (head.charCodeAt(from) === SP || head.charCodeAt(from) === HTAB)) from++
  while (to > from && (head.charCodeAt(to - 1) === SP || head.charCodeAt(to - 1) === HTAB)) to--
  return head.slice(from, to)
}

/**
 * Reads a head for the fast path.
 * @param {string} head the head as latin1 text, from the status line to the CRLF ending the last field
 * @param {boolean} isHead the request was a HEAD
 * @returns {{ status: number, keepAlive: boolean, length: number, announced: string|null } | 'slow' | 'bad'}
 *   length: the Content-Length, or -1 for a chunked body; announced: the X-Bench-Stats value
 */
function parseHead (head, isHead) {
  // HTTP/1.0 or HTTP/1.1, one space, three digits, then a space or the line's end.
  if (!head.startsWith('HTTP/1.') || head.charCodeAt(8) !== SP) return SLOW
  const minor = head.charCodeAt(7) - 48
  const a = head.charCodeAt(9)
  const b = head.charCodeAt(10)
  const c = head.charCodeAt(11)
  const after = head.charCodeAt(12)
  if ((minor !== 0 && minor !== 1) || a < 49 || a > 57 || !isDigit(b) || !isDigit(c) || (after !== SP && after !== 13)) return SLOW
  const status = (a - 48) * 100 + (b - 48) * 10 + (c - 48)
  // No body (1xx, 204, 304, HEAD) or an interim answer first: for the well-kept parser.
  if (status < 200 || status === 204 || status === 304 || isHead) return SLOW
  let length = -1
  let coding = null
  let connection = ''
  let announced = null
  for (let at = head.indexOf('\r\n') + 2; at < head.length;) {
    const end = head.indexOf('\r\n', at) // the head ends with CRLF: always found
    const first = head.charCodeAt(at)
    if (first === SP || first === HTAB) return SLOW // obs-fold: a field continued on this line
    // Only the four fields the fast path needs: a first letter, a colon where the name ends, the name.
    if (is(head, at, 'content-length')) {
      const value = fieldValue(head, at + 15, end)
      if (length >= 0 || !DIGITS.test(value)) return BAD // once, in digits
      length = Number(value)
    } else if (is(head, at, 'transfer-encoding')) {
      if (coding !== null) return BAD
      coding = fieldValue(head, at + 18, end).toLowerCase()
    } else if (is(head, at, 'connection')) {
      connection += fieldValue(head, at + 11, end).toLowerCase()
    } else if (announced === null && is(head, at, 'x-bench-stats')) {
      announced = fieldValue(head, at + 14, end)
    }
    at = end + 2
  }
  // A coding the client never asked for, or a length beside one (a smuggling sign): refused.
  if (coding !== null && (coding !== 'chunked' || length >= 0)) return BAD
  if (coding === null && length < 0) return SLOW // the body ends at the close
  // As http-parser-js decides: HTTP/1.1 keeps the connection unless `close`, 1.0 only on `keep-alive`.
  const keepAlive = minor === 1 ? !connection.includes('close') : connection.includes('keep-alive')
  return { status, keepAlive, length, announced }
}

module.exports = { parseHead, SLOW }
