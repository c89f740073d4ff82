'use strict'
// The handle store's descriptor caches: bounded, evicting the least recently used without closing
// one in use, opening a key once for many requests, and never keeping a failed open.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')
const { createHandleStore, MAX_OPEN } = require('../../../servers/lib/store-handle')

// This process's descriptors open on files inside dir.
function openIn (dir) {
  return fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${dir}${path.sep}`)
    } catch {
      return false // the descriptor readdir itself used, closed since
    }
  }).length
}

// The count once the closes the store started have run (fs.close goes through the thread pool).
async function settledOpenIn (dir, expected) {
  for (let i = 0; i < 200 && openIn(dir) > expected; i++) await sleep(10)
  return openIn(dir)
}

const statusOf = async (fn) => { try { await fn() } catch (err) { return err.status } }

t.test('more keys than the bound all work, and no more than the bound stay open per cache', async (t) => {
  const dir = t.testdir()
  const store = createHandleStore({ dataPath: dir, sortSplitString: ' ' })
  const keys = Array.from({ length: MAX_OPEN + 44 }, (_, i) => `k${i}`)
  t.equal(openIn(dir), 0, 'none before')
  // All at once: most evictions hit descriptors still in use, which must stay open until done.
  await Promise.all(keys.map((key) => store.append(key, Buffer.from(`b ${key} a`))))
  t.equal(await settledOpenIn(dir, MAX_OPEN), MAX_OPEN, 'the appends keep the bound')
  t.same(await Promise.all(keys.map((key) => store.read(key))), keys.map((key) => `${key} a b`.split(' ').sort().join(' ')))
  t.equal(await settledOpenIn(dir, 2 * MAX_OPEN), 2 * MAX_OPEN, 'the reads keep theirs')
  // One at a time, in order: every key was evicted before its turn comes again.
  for (const key of keys) await store.append(key, Buffer.from(' c'))
  for (const key of keys) t.equal(await store.read(key), `${key} a b c`.split(' ').sort().join(' '), key)
  t.equal(await settledOpenIn(dir, 2 * MAX_OPEN), 2 * MAX_OPEN)
  t.equal(fs.readFileSync(path.join(dir, 'k0'), 'utf8'), 'b k0 a c', 'nothing lost across the evictions')
})

t.test('a descriptor evicted while a request uses it is closed after that request, not under it', async (t) => {
  const keys = Array.from({ length: 2 * MAX_OPEN }, (_, i) => `k${i}`)
  const dir = t.testdir(Object.fromEntries(keys.map((key) => [key, `b ${key} a`])))
  const store = createHandleStore({ dataPath: dir, sortSplitString: ' ' })
  const sorted = (key) => `${key} a b`.split(' ').sort().join(' ')
  for (const key of keys.slice(0, MAX_OPEN)) await store.read(key)
  // Every read() now starts 50 ms late: k0's is still to come when the new keys push k0 out.
  const original = fs.read
  fs.read = function (...args) { setTimeout(() => original.apply(this, args), 50) }
  t.teardown(() => { fs.read = original })
  const first = store.read('k0')
  const rest = Promise.all(keys.slice(MAX_OPEN).map((key) => store.read(key)))
  t.equal(await first, sorted('k0'))
  t.same(await rest, keys.slice(MAX_OPEN).map(sorted))
  t.equal(await settledOpenIn(dir, MAX_OPEN), MAX_OPEN, 'and then it is closed')
})

t.test('requests to one key at once open it once', async (t) => {
  const dir = t.testdir({ k: 'x y' })
  const store = createHandleStore({ dataPath: dir, sortSplitString: ' ' })
  const original = fs.open
  let opens = 0
  fs.open = function (...args) { opens++; return original.apply(this, args) }
  t.teardown(() => { fs.open = original })
  t.same(await Promise.all(Array.from({ length: 10 }, () => store.read('k'))), Array(10).fill('x y'))
  await Promise.all(Array.from({ length: 10 }, () => store.append('k', Buffer.from(' z'))))
  await store.read('k')
  t.equal(opens, 2, 'one read descriptor, one append descriptor')
  t.equal(fs.readFileSync(path.join(dir, 'k'), 'utf8'), `x y${' z'.repeat(10)}`)
})

t.test('a descriptor whose read or write failed is closed, and the next request opens afresh', async (t) => {
  const dir = t.testdir({ k: 'b a' })
  const store = createHandleStore({ dataPath: dir, sortSplitString: ' ' })
  await store.read('k')
  await store.append('k', Buffer.from(' c'))
  t.equal(openIn(dir), 2)
  const eio = (cb) => process.nextTick(cb, Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }))
  const [read, write] = [fs.read, fs.write]
  fs.read = (...args) => eio(args.at(-1))
  fs.write = (...args) => eio(args.at(-1))
  t.teardown(() => Object.assign(fs, { read, write }))
  t.equal(await statusOf(() => store.read('k')), undefined, 'a 500')
  t.equal(await statusOf(() => store.append('k', Buffer.from(' x'))), undefined, 'a 500')
  Object.assign(fs, { read, write })
  t.equal(await settledOpenIn(dir, 0), 0, 'both closed')
  await store.append('k', Buffer.from(' d'))
  t.equal(await store.read('k'), 'a b c d')
  t.equal(openIn(dir), 2, 'both open again')
})

t.test('a failed open is not kept: the file made after a 404 is found by the next request', async (t) => {
  const dir = t.testdir({ sub: {} })
  const store = createHandleStore({ dataPath: dir, sortSplitString: ' ' })
  t.equal(await statusOf(() => store.read('later')), 404)
  fs.writeFileSync(path.join(dir, 'later'), 'b a')
  t.equal(await store.read('later'), 'a b', 'a missing file')
  t.equal(await statusOf(() => store.read('sub')), 404)
  t.equal(await statusOf(() => store.append('sub', Buffer.from('x'))), 404)
  fs.rmdirSync(path.join(dir, 'sub'))
  await store.append('sub', Buffer.from('d c'))
  t.equal(await store.read('sub'), 'c d', 'a directory replaced by a file')
  t.equal(openIn(dir), 3, 'only the descriptors of the successful opens: later\'s read, sub\'s append and read')
})
