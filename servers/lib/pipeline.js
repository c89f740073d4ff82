'use strict'
// Pipelined requests on one connection, handled a few at a time: node:http parses every request
// a connection sends and, with async handlers, would start them all at once (a client that
// pipelines 100,000 GETs and never reads the answers made the async server open files until
// EMFILE and grow past 700 MB). Here a connection has at most `limit` requests in the app; the
// rest wait, in order, and the connection is not read while any wait or its answers back up.

const LINE = Symbol('pipeline')

// Stops or restarts reading a connection the way node:http does itself when answers back up: the
// HTTP parser reads the socket directly, so pausing the stream alone does not stop it. (Called
// inside the parser's callback, parser.pause() takes effect when the current chunk is parsed.)
function reading (socket, on) {
  if (on) {
    socket.parser?.resume()
    socket.resume()
  } else {
    socket.pause()
    socket.parser?.pause()
  }
}

/**
 * Wraps a request handler so that each connection has at most `limit` requests in it at once.
 * @param {(req, res) => void} handler the app
 * @param {number} limit requests of one connection in the app at once
 * @returns {(req, res) => void} the listener for http.createServer
 */
function limitPipelining (handler, limit) {
  const pump = (socket, line) => {
    // Answers backing up in the socket: start nothing more until the client reads ('drain').
    while (line.active < limit && line.waiting.length > 0 && !socket.writableNeedDrain) {
      const [req, res] = line.waiting.shift()
      line.active++
      res.once('close', () => {
        line.active--
        pump(socket, line)
      })
      handler(req, res)
    }
    const hold = line.waiting.length > 0
    if (hold && !line.paused) {
      line.paused = true
      reading(socket, false)
    } else if (!hold && line.paused && !socket.writableNeedDrain) {
      line.paused = false
      reading(socket, true)
    }
  }
  return (req, res) => {
    const socket = req.socket
    let line = socket[LINE]
    if (line === undefined) {
      line = socket[LINE] = { active: 0, waiting: [], paused: false }
      socket.on('drain', () => pump(socket, line))
      socket.once('close', () => { line.waiting.length = 0 })
    }
    if (line.active < limit && line.waiting.length === 0) { // the usual case: one request at a time
      line.active++
      res.once('close', () => {
        line.active--
        pump(socket, line)
      })
      return handler(req, res)
    }
    line.waiting.push([req, res])
    pump(socket, line)
  }
}

module.exports = { limitPipelining }
