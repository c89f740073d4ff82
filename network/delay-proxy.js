'use strict'
// The round trip of --rtt where the kernel has no netem: a TCP relay in front of the server that
// holds every chunk the client sends for the round trip before passing it on (answers pass at
// once), and measures what it really held.

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
    // Chunks wait in arrival order until their due time has really passed: a timer can fire up to
    // a millisecond early against hrtime (libuv's loop clock is cached), so one that finds the
    // head not yet due waits again for the rest.
    const queue = []
    let timer = null
    const drain = () => {
      timer = null
      const now = process.hrtime.bigint()
      while (queue.length > 0 && queue[0].due <= now) {
        const { chunk, at } = queue.shift()
        if (chunk === null) { upstream.end(); continue } // the client's end, in its place
        chunks++
        heldUs += (now - at) / 1000n
        upstream.write(chunk)
      }
      if (queue.length > 0) timer = setTimeout(drain, Math.max(1, Math.ceil(Number(queue[0].due - now) / 1e6)))
    }
    const hold = (chunk) => {
      const at = process.hrtime.bigint()
      queue.push({ chunk, at, due: at + BigInt(Math.round(delayMs * 1e6)) })
      if (delayMs === 0) drain()
      else if (timer === null) timer = setTimeout(drain, delayMs)
    }
    client.on('data', hold)
    client.on('end', () => hold(null))
    upstream.pipe(client)
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, host, () => resolve({
      port: server.address().port,
      stats: () => ({ chunks, meanDelayUs: chunks ? Number(heldUs / BigInt(chunks)) : null }),
      close: () => new Promise((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
    }))
  })
}

module.exports = { startDelayProxy }
