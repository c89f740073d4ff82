'use strict'
// The parser of the answers client/response-parser.js leaves to a well-kept one: http-parser-js
// (the pure-JS parser autocannon uses) behind the same handlers. 1xx answers are skipped, a HEAD
// answer has no body, a body without a length ends at the close.

const { HTTPParser } = require('http-parser-js')

const MAX_HEAD = 64 * 1024
const BAD = 'bad-response'

// Thrown from a callback to stop http-parser-js (it rethrows what a callback throws).
class Stop extends Error {}

/**
 * A parser for the rest of a connection, from the first byte of an answer on.
 * @param {object} owner the ResponseParser: its pending requests and allowed count, begin, addBody,
 *   complete, fail, stopped and announced
 * @returns {{ push(bytes: Buffer): void, end(): void }}
 */
function createSlowParser (owner) {
  const parser = new HTTPParser(HTTPParser.RESPONSE)
  parser.maxHeaderSize = MAX_HEAD
  let interim = false
  parser[HTTPParser.kOnHeadersComplete] = (info) => {
    if (owner.stopped) throw new Stop()
    // Bytes nobody asked for; a version other than 1.0 and 1.1; a protocol switch nobody asked for.
    if (owner.allowed === 0 || info.versionMajor !== 1 || info.versionMinor > 1 || info.upgrade || info.statusCode === 101) {
      owner.fail(BAD)
      throw new Stop()
    }
    interim = info.statusCode < 200
    if (interim) return false
    const { headers } = info
    for (let k = 0; k < headers.length && owner.announced === null; k += 2) {
      if (headers[k].toLowerCase() === 'x-bench-stats') owner.announced = headers[k + 1]
    }
    owner.begin(info.statusCode, info.shouldKeepAlive)
    return owner.pending[0].isHead // true: no body follows
  }
  parser[HTTPParser.kOnBody] = (chunk, start, length) => {
    if (owner.stopped) throw new Stop()
    if (!interim) owner.addBody(chunk.subarray(start, start + length))
  }
  parser[HTTPParser.kOnMessageComplete] = () => {
    if (owner.stopped) throw new Stop()
    if (interim) interim = false
    else owner.complete()
  }
  const run = (step) => {
    let result
    try {
      result = step()
    } catch (err) {
      if (!(err instanceof Stop)) throw err // the owner's handlers' own errors are not the server's
      return
    }
    if (result instanceof Error) owner.fail(BAD)
  }
  return {
    push: (bytes) => run(() => parser.execute(bytes)),
    // An answer cut short by the close is not an error of the answer: the owner's caller tells it.
    end: () => run(() => { parser.finish() })
  }
}

module.exports = { createSlowParser, MAX_HEAD }
