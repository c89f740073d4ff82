'use strict'
// The least a server can do for bench/client.js and bench/memory.js: node:http answering every GET
// with a short text and every POST with `success`. `node bench/minimal-server.js [--chunked] [DATA_DIR]`:
// --chunked answers without a Content-Length (chunked, as the historic servers do); with DATA_DIR,
// a POST also appends its body to DATA_DIR/KEY (one write), so the client can verify it.
// Prints its port on stdout; SIGTERM ends it.

const fs = require('node:fs')
const http = require('node:http')
const { watchParent } = require('../lib/machine/parent-watch')
const path = require('node:path')
const { wantsHelp, entryHelp } = require('../lib/entry-help')

const args = process.argv.slice(2)
if (wantsHelp(args)) {
  process.stdout.write(entryHelp({
    usage: 'node bench/minimal-server.js [--chunked] [DATA_DIR]',
    about: 'A node:http server answering every GET with a short text and every POST with `success`; --chunked:\n' +
      'without a Content-Length; DATA_DIR: POSTs append their body to DATA_DIR/KEY. Prints its port on stdout.',
    config: false
  }))
  process.exit(0)
}
const chunked = args[0] === '--chunked'
const dataDir = args[chunked ? 1 : 0]

// res.end(text) alone sends a Content-Length; writeHead first without one makes the answer chunked.
function answer (res, status, text) {
  if (chunked) res.writeHead(status, { 'Content-Type': 'text/plain' })
  else res.statusCode = status
  res.end(text)
}

const server = http.createServer((req, res) => {
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => {
    if (req.method !== 'POST') return answer(res, 200, 'This is text that is appended to the file')
    if (dataDir) {
      const key = new URL(req.url, 'http://x').searchParams.get('key')
      if (!/^file-\d+$/.test(key)) return answer(res, 400, 'bad key\n') // the client's keys only
      fs.appendFileSync(path.join(dataDir, key), Buffer.concat(chunks))
    }
    answer(res, 200, 'success')
  })
})
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
watchParent(() => process.exit(0))
process.on('SIGTERM', () => process.exit(0))
