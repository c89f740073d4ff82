'use strict'
// The least a server can do for bench/client.js and bench/memory.js: node:http answering every GET
// with a short text and every POST with `success`. `node bench/minimal-server.js [DATA_DIR]`: with
// DATA_DIR, a POST also appends its body to DATA_DIR/KEY (one write), so the client can verify it.
// Prints its port on stdout; SIGTERM ends it.

const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')

const dataDir = process.argv[2]

const server = http.createServer((req, res) => {
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => {
    if (req.method !== 'POST') return res.end('This is text that is appended to the file')
    if (dataDir) {
      const key = new URL(req.url, 'http://x').searchParams.get('key')
      if (!/^file-\d+$/.test(key)) return res.writeHead(400).end('bad key\n') // the client's keys only
      fs.appendFileSync(path.join(dataDir, key), Buffer.concat(chunks))
    }
    res.end('success')
  })
})
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
process.on('SIGTERM', () => process.exit(0))
