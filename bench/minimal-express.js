'use strict'
// The yardstick of bench/server.js: a minimal express 5 app with the project's two handlers, the
// same sync store and body reader, and nothing else (no key checks, no 405s, express's defaults).
// `node bench/minimal-express.js DATA_DIR` prints its port on stdout; SIGTERM ends it.

const http = require('node:http')
const express = require('express')
const { loadConfig } = require('../lib/config')
const { wantsHelp, entryHelp } = require('../lib/entry-help')
const { watchParent } = require('../lib/machine/parent-watch')
const { createSyncStore } = require('../servers/lib/store')
const { readBody, sendText } = require('../servers/lib/app')

if (wantsHelp(process.argv.slice(2))) {
  process.stdout.write(entryHelp({
    usage: 'node bench/minimal-express.js DATA_DIR',
    about: 'A minimal express 5 app with the project\'s GET and POST handlers on the sync store in DATA_DIR,\n' +
      'the yardstick of bench/server.js. Prints its port on stdout.',
    config: false
  }))
  process.exit(0)
}

const { config } = loadConfig([`--dataPath=${process.argv[2]}`])
const store = createSyncStore(config)
const app = express()
app.get('/get', async (req, res) => {
  sendText(res, await store.read(req.query.key))
})
app.post('/put', async (req, res) => {
  await store.append(req.query.key, await readBody(req, config.bodyLimit))
  sendText(res, 'success')
})

const server = http.createServer(app)
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
process.on('SIGTERM', () => process.exit(0))
watchParent(() => process.exit(0))
