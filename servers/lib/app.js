'use strict'
// The one express app every kind serves (each server process, cluster worker and HAProxy
// backend): GET /get reads and sorts a file, GET /file answers its bytes as read (a static file server),
// POST /put appends to it. Only the store (sync or async fs) differs between servers.

const express = require('express')
const { isValidKey } = require('./keys')
const { createFaultLog, describeFault, faultLine } = require('../../lib/serving/faults')

function methodNotAllowed (allow) {
  return (req, res) => res.set('Allow', allow).status(405).type('text/plain').send('method not allowed\n')
}

// The hot path answers with writeHead/end: res.send's conversions cost more than the answer.
function sendText (res, text) {
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) })
  res.end(text)
}

/**
 * A file's bytes as a static file server answers them: the store's stream piped (chunked), or its bytes
 * with their length; a buffer the store lends back (release) once the answer is done with it.
 */
async function sendFile (res, store, key) {
  if (store.readStream) {
    const stream = await store.readStream(key) // opened and read once: a missing file or a directory failed already
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' })
    stream.once('error', () => res.destroy()) // a failure mid-answer can only cut it short
    stream.pipe(res)
    return
  }
  const bytes = await store.readBytes(key)
  if (store.release) res.once('close', () => store.release(bytes))
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length })
  res.end(bytes)
}

/**
 * The raw request body, whatever its Content-Type (the historic client sends none), as sent:
 * 415 for a Content-Encoding, 413 past `limit` (before reading when Content-Length says so).
 * By hand rather than express.raw(), which cost ~15% more server CPU per POST (bench/RESULTS.md).
 */
function readBody (req, limit) {
  return new Promise((resolve, reject) => {
    const fail = (status, type) => reject(Object.assign(new Error(type), { status, type }))
    const encoding = req.headers['content-encoding']
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return fail(415, 'encoding.unsupported')
    if (Number(req.headers['content-length']) > limit) return fail(413, 'entity.too.large')
    const chunks = []
    let length = 0
    req.on('data', (chunk) => {
      length += chunk.length
      if (length > limit) {
        req.removeAllListeners('data')
        req.resume()
        return fail(413, 'entity.too.large')
      }
      chunks.push(chunk)
    })
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length)))
    req.on('error', () => fail(400, 'request.aborted')) // the client went away mid-body
  })
}

// Request smuggling: the HTTP parser already refuses Content-Length with Transfer-Encoding and
// repeated or odd lengths. What it lets through but a proxy in front could frame differently is
// refused: any Transfer-Encoding but `chunked` alone (e.g. `identity, chunked`), or one on
// HTTP/1.0. The connection is closed after the 400, as its remaining bytes cannot be trusted.
function badFraming (req) {
  const coding = req.headers['transfer-encoding']
  return coding !== undefined && (req.httpVersion === '1.0' || coding.trim().toLowerCase() !== 'chunked')
}

function checkFraming (req, res, next) {
  if (!badFraming(req)) return next()
  res.set('Connection', 'close').status(400).type('text/plain').send('bad request framing\n')
}

/**
 * What a failed request is answered: known failures a short 4xx; no space a 507; anything else a
 * generic 500. Details go to the log only: a storage fault once and then counted
 * (lib/serving/faults.js), anything unexpected with its stack.
 * @returns {[number, string]} status and text
 */
function failure (err, req, { faults, log }) {
  const status = err.status || err.statusCode
  if (status === 403) return [403, 'forbidden: not a regular file\n']
  if (status === 404) return [404, 'no such file\n']
  if (status >= 400 && status < 500 && err.expose !== false) return [status, `${err.type || 'bad request'}\n`]
  const fault = describeFault(err, req.method === 'POST' ? 'PUT' : 'GET')
  if (fault) faults.note(fault.key, fault.message)
  else log(`error ${req.method} ${req.originalUrl ?? req.url}: ${err.stack || err}`)
  return status === 507 ? [507, 'insufficient storage\n'] : [500, 'internal error\n']
}

function requireKey (req, res, next) {
  // express's parser turns ?key=a&key=b into an array and ?key[]=a into another name: both fail here.
  if (isValidKey(req.query.key)) return next()
  res.status(400).type('text/plain').send('bad key: use key=NAME with 1-64 of A-Z a-z 0-9 _ -\n')
}

/**
 * Builds the express app.
 * @param {{ config: object, store: object, stats: object, log?: (line: string) => void, faults?: object }} deps
 *   store: read/append (servers/lib/store.js); stats: collect/reset (lib/serving/process-telemetry.js);
 *   faults: where storage faults are noted (lib/serving/faults.js), by default a fault log on `log`
 * @returns {import('express').Express}
 */
function createApp ({ config, store, stats, log = (line) => process.stderr.write(line + '\n'), faults }) {
  faults ??= createFaultLog({ emit: (e) => log(faultLine(e)) })
  const app = express()
  app.disable('x-powered-by')
  app.disable('etag') // hashing every body is a cost the historic servers did not pay
  app.set('case sensitive routing', true) // /GET and /get/ are unknown paths
  app.set('strict routing', true)
  app.use(checkFraming)

  app.route('/get')
    .get(requireKey, async (req, res) => {
      sendText(res, await store.read(req.query.key))
    })
    .all(methodNotAllowed('GET, HEAD'))

  app.route('/file')
    .get(requireKey, (req, res) => sendFile(res, store, req.query.key))
    .all(methodNotAllowed('GET, HEAD'))

  app.route('/put')
    .post(requireKey, async (req, res) => {
      const body = await readBody(req, config.bodyLimit)
      if (body.length === 0) return res.status(400).type('text/plain').send('empty body\n')
      await store.append(req.query.key, body)
      sendText(res, 'success')
    })
    .all(methodNotAllowed('POST'))

  app.route('/_stats')
    .get(async (req, res) => {
      res.status(200).json(await stats.collect())
    })
    .all(methodNotAllowed('GET, HEAD'))

  app.route('/_stats/reset')
    .post(async (req, res) => {
      await stats.reset()
      res.status(200).type('text/plain').send('reset\n')
    })
    .all(methodNotAllowed('POST'))

  app.use((req, res) => res.status(404).type('text/plain').send('not found\n'))

  // Express 5 passes a rejected handler's error here.
  app.use((err, req, res, next) => {
    const [status, text] = failure(err, req, { faults, log })
    if (res.headersSent) return res.destroy()
    res.status(status).type('text/plain').send(text)
  })
  return app
}

module.exports = { createApp, readBody, sendText, sendFile, badFraming, failure }
