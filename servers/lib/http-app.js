'use strict'
// The app of servers/lib/app.js on plain node:http (config framework=http): the same routes,
// answers, stores and key checks without express, so a sweep can show what the framework costs.
// test/servers/equivalence.test.js holds its answers byte-identical to the express app's.

const querystring = require('node:querystring')
const { isValidKey } = require('./keys')
const { createFaultLog, faultLine } = require('../../lib/serving/faults')
// app.js's own body reader, answers, framing check and failure answers (requiring it loads
// express's module, never its request path).
const { readBody, sendText, sendFile, badFraming, failure } = require('./app')

const BAD_KEY = 'bad key: use key=NAME with 1-64 of A-Z a-z 0-9 _ -\n'
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z\d+.-]*:\/\/[^/?#]*/

// A short text answer as express's res.status().type('text/plain').send() writes it.
function reply (res, status, text, first = {}) {
  res.writeHead(status, { ...first, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) })
  res.end(text)
}

// Path and query string as express reads them (parseurl): the fragment dropped, an absolute-form
// target reduced to its path.
function splitUrl (url) {
  let target = url.startsWith('/') ? url : url.replace(ABSOLUTE_FORM, '')
  const hash = target.indexOf('#')
  if (hash !== -1) target = target.slice(0, hash)
  const q = target.indexOf('?')
  const pathname = (q === -1 ? target : target.slice(0, q)) || '/'
  return { pathname, query: q === -1 ? '' : target.slice(q + 1) }
}

// The key, or null after answering 400 (express's query parser is node:querystring too).
function keyOf (query, res) {
  const { key } = querystring.parse(query)
  if (isValidKey(key)) return key
  reply(res, 400, BAD_KEY)
  return null
}

/**
 * Builds the request listener.
 * @param {{ config: object, store: object, stats: object, log?: (line: string) => void, faults?: object }} deps as createApp's
 * @returns {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void}
 */
function createHttpApp ({ config, store, stats, log = (line) => process.stderr.write(line + '\n'), faults }) {
  faults ??= createFaultLog({ emit: (e) => log(faultLine(e)) })
  const get = async (req, res, query) => {
    const key = keyOf(query, res)
    if (key !== null) sendText(res, await store.read(key))
  }
  const file = async (req, res, query) => {
    const key = keyOf(query, res)
    if (key !== null) await sendFile(res, store, key)
  }
  const put = async (req, res, query) => {
    const key = keyOf(query, res)
    if (key === null) return // node discards the unread body, as under express
    const body = await readBody(req, config.bodyLimit)
    if (body.length === 0) return reply(res, 400, 'empty body\n')
    await store.append(key, body)
    sendText(res, 'success')
  }
  const readStats = async (req, res) => {
    const body = JSON.stringify(await stats.collect())
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) })
    res.end(body)
  }
  const resetStats = async (req, res) => {
    await stats.reset()
    reply(res, 200, 'reset\n')
  }
  const routes = new Map([
    ['/get', { allow: 'GET, HEAD', methods: { GET: get, HEAD: get } }],
    ['/file', { allow: 'GET, HEAD', methods: { GET: file, HEAD: file } }],
    ['/put', { allow: 'POST', methods: { POST: put } }],
    ['/_stats', { allow: 'GET, HEAD', methods: { GET: readStats, HEAD: readStats } }],
    ['/_stats/reset', { allow: 'POST', methods: { POST: resetStats } }]
  ])

  const fail = (err, req, res) => {
    const [status, text] = failure(err, req, { faults, log })
    if (res.headersSent) return res.destroy()
    reply(res, status, text)
  }

  return (req, res) => {
    if (badFraming(req)) return reply(res, 400, 'bad request framing\n', { Connection: 'close' })
    const { pathname, query } = splitUrl(req.url)
    const route = routes.get(pathname)
    if (route === undefined) return reply(res, 404, 'not found\n')
    const handle = Object.hasOwn(route.methods, req.method) ? route.methods[req.method] : null
    if (handle === null) return reply(res, 405, 'method not allowed\n', { Allow: route.allow })
    handle(req, res, query).catch((err) => fail(err, req, res))
  }
}

module.exports = { createHttpApp }
