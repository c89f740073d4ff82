'use strict'
// GET /file answers a file's bytes as read, byte for byte, from every store (each fs idiom) on both frameworks, for
// files below and above readFile's 512 KiB chunk; its failures are /get's.

const t = require('tap')
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const { createApp } = require('../../servers/lib/app')
const { createHttpApp } = require('../../servers/lib/http-app')
const { createSyncStore, ASYNC_STORES } = require('../../servers/lib/store')
const { createPoolStore } = require('../../servers/lib/store-pool')
const { createMonitor, localStats } = require('../../lib/serving/process-telemetry')

// The sizes of the fs API comparison, one byte past readFile's chunk, and an empty file.
const SIZES = { empty: 0, k1: 1024, k16: 16384, k256: 262144, chunk1: 524289, m4: 4194304 }

// Bytes no text decoding keeps: every value 0-255, from a fixed LCG.
function bytesOf (n, seed) {
  const b = Buffer.allocUnsafe(n)
  for (let i = 0; i < n; i++) { seed = (seed * 1103515245 + 12345) % 2147483648; b[i] = seed >> 16 }
  return b
}

function get (port, urlPath, method = 'GET') {
  return new Promise((resolve, reject) => {
    http.request({ port, host: '127.0.0.1', path: urlPath, method }, (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    }).on('error', reject).end()
  })
}

const STORES = {
  sync: (config) => createSyncStore(config),
  'sync-pool': (config) => createPoolStore(config, 2),
  ...Object.fromEntries(Object.entries(ASYNC_STORES).map(([api, create]) => [api, (config) => create(config)]))
}
const FRAMEWORKS = { express: createApp, http: createHttpApp }

const dir = t.testdir({ sub: {}, target: 'x' })
fs.symlinkSync(path.join(dir, 'target'), path.join(dir, 'link'))
const files = Object.fromEntries(Object.entries(SIZES).map(([key, n], i) => [key, bytesOf(n, i + 1)]))
// Larger than loopback's socket buffers: an answer the client does not read stays partly in the server's hands.
const [slowFile, other] = [Buffer.alloc(16 << 20, 'slow'), Buffer.alloc(16 << 20, 'other')]
for (const [key, bytes] of Object.entries({ ...files, slowFile, other })) fs.writeFileSync(path.join(dir, key), bytes)

async function slowReader (t, port) {
  const slow = await new Promise((resolve, reject) => http.get({ port, host: '127.0.0.1', path: '/file?key=slowFile' }, (res) => {
    res.pause()
    resolve(res)
  }).on('error', reject))
  t.ok((await get(port, '/file?key=other')).body.equals(other), 'another 16 MiB file meanwhile')
  const chunks = []
  slow.on('data', (c) => chunks.push(c)).resume()
  await new Promise((resolve) => slow.on('end', resolve))
  t.ok(Buffer.concat(chunks).equals(slowFile), 'the slow answer has its own file\'s bytes')
}

for (const [name, create] of Object.entries(STORES)) {
  for (const [framework, build] of Object.entries(FRAMEWORKS)) {
    t.test(`${name} on ${framework}: GET /file answers each size byte for byte, many at once; failures as /get's`, async (t) => {
      const store = create({ dataPath: dir, sortSplitString: ' ' })
      const server = http.createServer(build({ config: { bodyLimit: 100 }, store, stats: localStats('test', createMonitor('single')), log: t.fail }))
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
      t.teardown(async () => {
        await new Promise((resolve) => server.close(resolve))
        await store.close?.()
      })
      const { port } = server.address()
      // Each file four times, all at once: a buffer lent to one answer is not another's.
      const keys = Object.keys(files).flatMap((k) => [k, k, k, k])
      const answers = await Promise.all(keys.map((k) => get(port, `/file?key=${k}`)))
      keys.forEach((k, i) => {
        const { status, headers, body } = answers[i]
        t.equal(status, 200, `${k}: 200`)
        t.equal(headers['content-type'], 'application/octet-stream', `${k}: bytes`)
        t.ok(body.equals(files[k]), `${k}: the file's ${files[k].length} bytes (got ${body.length})`)
        if (headers['content-length'] !== undefined) t.equal(Number(headers['content-length']), files[k].length, `${k}: its length said`)
        else t.equal(headers['transfer-encoding'], 'chunked', `${k}: chunked when no length is said`)
      })
      // An answer the client is slow to read, while other answers come and go: its bytes are still its own (the store's, not
      // the framework's: on express alone).
      if (framework === 'express') await slowReader(t, port)
      const head = await get(port, '/file?key=k16', 'HEAD')
      t.same([head.status, head.body.length], [200, 0], 'HEAD: no body')
      for (const [urlPath, status] of [['/file?key=missing', 404], ['/file?key=sub', 404], ['/file?key=link', 403], ['/file?key=a.b', 400], ['/file', 400]]) {
        const res = await get(port, urlPath)
        t.equal(res.status, status, `${urlPath}: ${status}`)
        t.equal(res.headers['content-type'], 'text/plain; charset=utf-8', `${urlPath}: a short text`)
      }
      t.equal((await get(port, '/file?key=k1', 'DELETE')).headers.allow, 'GET, HEAD', 'other methods: 405 naming GET and HEAD')
      const text = Buffer.from('b a c')
      fs.writeFileSync(path.join(dir, `${name}-${framework}`), text)
      t.equal((await get(port, `/get?key=${name}-${framework}`)).body.toString(), 'a b c', '/get still sorts')
    })
  }
}
