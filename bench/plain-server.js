'use strict'
// The same GET and POST work as servers/sync.js, on plain node:http without express: the yardstick
// of bench/server.js. `node bench/plain-server.js DATA_DIR` prints its port on stdout.

const http = require('node:http')
const { watchParent } = require('../lib/parent-watch')
const { loadConfig } = require('../lib/config')
const { wantsHelp, entryHelp } = require('../lib/help')
const { createSyncStore } = require('../servers/lib/store')
const { isValidKey } = require('../servers/lib/keys')

if (wantsHelp(process.argv.slice(2))) {
  process.stdout.write(entryHelp({
    usage: 'node bench/plain-server.js DATA_DIR',
    about: 'The GET and POST work of servers/sync.js on plain node:http, on DATA_DIR. Prints its port on stdout.',
    config: false
  }))
  process.exit(0)
}
const { config } = loadConfig([`--dataPath=${process.argv[2]}`])
const store = createSyncStore(config)

function reply (res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x')
  const keys = url.searchParams.getAll('key')
  const key = keys.length === 1 ? keys[0] : undefined
  if (!isValidKey(key)) return reply(res, 400, 'bad key\n')
  if (req.method === 'GET' && url.pathname === '/get') {
    try { return reply(res, 200, store.read(key)) } catch (err) { return reply(res, err.status || 500, 'error\n') }
  }
  if (req.method !== 'POST' || url.pathname !== '/put') return reply(res, 404, 'not found\n')
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    try {
      store.append(key, Buffer.concat(chunks))
      reply(res, 200, 'success')
    } catch (err) {
      reply(res, err.status || 500, 'error\n')
    }
  })
})
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
watchParent(() => process.exit(0))
process.on('SIGTERM', () => process.exit(0))
