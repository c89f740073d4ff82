'use strict'
// The round trip of --rtt where the kernel has no netem: a TCP relay in front of the server that
// holds every chunk the client sends for the round trip before passing it on (answers pass at
// once), and measures what it really held, as Node's timers wait 1 ms or more.

const net = require('node:net')

/**
 * Starts the relay.
 * @param {{ host: string, target: { host: string, port: number }, delayMs: number }} how host: where
 *   the client connects; target: the server
 * @returns {Promise<{ port: number, stats(): { chunks: number, meanDelayUs: number|null }, close(): Promise<void> }>}
 */
function startDelayProxy ({ host, target, delayMs }) {
  const sockets = new Set()
  let chunks = 0
  let heldUs = 0n
  const server = net.createServer((client) => {
    const upstream = net.connect(target)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.setNoDelay(true)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => { client.destroy(); upstream.destroy() })
    }
    // Timers of one duration fire in the order they were set, so the bytes keep their order.
    client.on('data', (chunk) => {
      const at = process.hrtime.bigint()
      const pass = () => {
        chunks++
        heldUs += (process.hrtime.bigint() - at) / 1000n
        upstream.write(chunk)
      }
      if (delayMs === 0) pass()
      else setTimeout(pass, delayMs)
    })
    client.on('end', () => setTimeout(() => upstream.end(), delayMs))
    upstream.pipe(client)
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, host, () => resolve({
      port: server.address().port,
      stats: () => ({ chunks, meanDelayUs: chunks ? Number(heldUs / BigInt(chunks)) : null }),
      close: () => new Promise((done) => {
        for (const s of sockets) s.destroy()
        server.close(() => done())
      })
    }))
  })
}

module.exports = { startDelayProxy }
