'use strict'
// The yardstick of bench/server.js: a minimal express 5 app with the project's two handlers, the
// same sync store and body reader, and nothing else (no key checks, no 405s, express's defaults).
// `node bench/minimal-express.js DATA_DIR` prints its port on stdout; SIGTERM ends it.

const http = require('node:http')
const express = require('express')
const { loadConfig } = require('../lib/config')
const { createSyncStore } = require('../servers/lib/store')
const { readBody, sendText } = require('../servers/lib/app')

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
