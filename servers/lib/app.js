'use strict'
// The one express app all four servers serve: GET /get reads and sorts a file, POST /put
// appends to it. Only the store (sync or async fs) differs between servers.

const express = require('express')
const { isValidKey } = require('./keys')

function methodNotAllowed (allow) {
  return (req, res) => res.set('Allow', allow).status(405).type('text/plain').send('method not allowed\n')
}

// The hot path answers with writeHead/end: res.send's conversions cost more than the answer.
function sendText (res, text) {
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) })
  res.end(text)
}

function requireKey (req, res, next) {
  // express's parser turns ?key=a&key=b into an array and ?key[]=a into another name: both fail here.
  if (isValidKey(req.query.key)) return next()
  res.status(400).type('text/plain').send('bad key: use key=NAME with 1-64 of A-Z a-z 0-9 _ -\n')
}

/**
 * Builds the express app.
 * @param {{ config: object, store: object, stats: object, log?: (line: string) => void }} deps
 *   store: read/append (servers/lib/store.js); stats: collect/reset (servers/lib/telemetry.js)
 * @returns {import('express').Express}
 */
function createApp ({ config, store, stats, log = (line) => process.stderr.write(line + '\n') }) {
  const app = express()
  app.disable('x-powered-by')
  app.disable('etag') // hashing every body is a cost the historic servers did not pay
  app.set('case sensitive routing', true) // /GET and /get/ are unknown paths
  app.set('strict routing', true)

  app.route('/get')
    .get(requireKey, async (req, res, next) => {
      try {
        const text = await store.read(req.query.key)
        sendText(res, text)
      } catch (err) {
        next(err)
      }
    })
    .all(methodNotAllowed('GET, HEAD'))

  app.route('/put')
    .post(
      requireKey,
      // type: any, because the historic client sends no Content-Type; inflate off: bytes as sent.
      express.raw({ type: () => true, limit: config.bodyLimit, inflate: false }),
      async (req, res, next) => {
        if (!Buffer.isBuffer(req.body) || req.body.length === 0) {
          return res.status(400).type('text/plain').send('empty body\n')
        }
        try {
          await store.append(req.query.key, req.body)
          sendText(res, 'success')
        } catch (err) {
          next(err)
        }
      })
    .all(methodNotAllowed('POST'))

  app.route('/_stats')
    .get(async (req, res, next) => {
      try {
        res.status(200).json(await stats.collect())
      } catch (err) {
        next(err)
      }
    })
    .all(methodNotAllowed('GET, HEAD'))

  app.route('/_stats/reset')
    .post(async (req, res, next) => {
      try {
        await stats.reset()
        res.status(200).type('text/plain').send('reset\n')
      } catch (err) {
        next(err)
      }
    })
    .all(methodNotAllowed('POST'))

  app.use((req, res) => res.status(404).type('text/plain').send('not found\n'))

  // Known failures get a short 4xx; anything else a generic 500, with details only in the log.
  app.use((err, req, res, next) => {
    const status = err.status || err.statusCode
    if (status === 403) return res.status(403).type('text/plain').send('forbidden: not a regular file\n')
    if (status === 404) return res.status(404).type('text/plain').send('no such file\n')
    if (status >= 400 && status < 500 && err.expose !== false) {
      return res.status(status).type('text/plain').send(`${err.type || 'bad request'}\n`)
    }
    log(`error ${req.method} ${req.originalUrl}: ${err.stack || err}`)
    if (res.headersSent) return res.destroy()
    res.status(500).type('text/plain').send('internal error\n')
  })
  return app
}

module.exports = { createApp }
