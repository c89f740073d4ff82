'use strict'
// The least a server can do for bench/client.js: node:http answering every GET with a short text
// and every POST with `success`. Prints its port on stdout; SIGTERM ends it.

const http = require('node:http')

const server = http.createServer((req, res) => {
  req.resume()
  req.on('end', () => res.end(req.method === 'POST' ? 'success' : 'This is text that is appended to the file'))
})
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
process.on('SIGTERM', () => process.exit(0))
