'use strict'
// The sync and async stores do the same thing and fail the same way, in-process.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { createSyncStore, ASYNC_STORES, sortPieces } = require('../../servers/lib/store')
const { FIRST_READ_BYTES } = require('../../servers/lib/store-handle')
const { isValidKey } = require('../../servers/lib/keys')
const { checkFuse } = require('../../storage')
const { mountFor } = require('../fixtures/storage-mount')

t.test('sortPieces splits, sorts and joins, keeping the length', async (t) => {
  t.equal(sortPieces('c,a,b', ','), 'a,b,c')
  t.equal(sortPieces('cab', ''), 'abc')
  t.equal(sortPieces('no split here', '|'), 'no split here')
})

t.test('isValidKey allows only 1-64 of letters, digits, _ and -', async (t) => {
  for (const ok of ['a', 'file-0', 'A_b-9', 'x'.repeat(64)]) t.ok(isValidKey(ok), ok)
  for (const bad of ['', '.', '..', 'a/b', 'a.b', 'é', 'x'.repeat(65), ['a'], undefined, 'a\n']) t.notOk(isValidKey(bad), String(bad))
})

const STORES = [createSyncStore, ...Object.values(ASYNC_STORES)]

for (const create of STORES) {
  t.test(`${create.name}: append then read; errors carry the HTTP status`, async (t) => {
    const dir = t.testdir({ sub: {}, target: 'x' })
    fs.symlinkSync(path.join(dir, 'target'), path.join(dir, 'link'))
    const store = create({ dataPath: dir, sortSplitString: ' ' })
    await store.append('k', Buffer.from('b a '))
    await store.append('k', Buffer.from('c'))
    t.equal(fs.readFileSync(path.join(dir, 'k'), 'utf8'), 'b a c')
    t.equal(await store.read('k'), 'a b c')
    const status = async (fn) => { try { await fn() } catch (err) { return err.status } }
    t.equal(await status(() => store.read('missing')), 404)
    t.equal(await status(() => store.read('sub')), 404)
    t.equal(await status(() => store.append('sub', Buffer.from('x'))), 404)
    t.equal(await status(() => store.read('link')), 403)
    t.equal(await status(() => store.append('link', Buffer.from('x'))), 403)
    t.equal(fs.readFileSync(path.join(dir, 'target'), 'utf8'), 'x', 'symlink target untouched')
    const gone = create({ dataPath: path.join(dir, 'target'), sortSplitString: ' ' })
    t.equal(await status(() => gone.append('k', Buffer.from('x'))), undefined, 'other fs errors have no status (500)')
  })

  t.test(`${create.name}: a file larger than the handle store's first read buffer is read whole`, async (t) => {
    // Not a power of two, and long enough for two doublings of the buffer.
    const text = Array.from({ length: Math.ceil(5 * FIRST_READ_BYTES / 6) }, (_, i) => `r${i % 977} `).join('') + 'end'
    const dir = t.testdir({ big: text })
    t.ok(Buffer.byteLength(text) > 4 * FIRST_READ_BYTES)
    const store = create({ dataPath: dir, sortSplitString: ' ' })
    t.equal(await store.read('big'), sortPieces(text, ' '))
    await store.append('big', Buffer.from(' more'))
    t.equal(await store.read('big'), sortPieces(`${text} more`, ' '), 'and again after it grew')
  })

  t.test(`${create.name}: two stores on one folder (cluster workers) never interleave records and read each other's`, async (t) => {
    const dir = t.testdir()
    const [a, b] = [create({ dataPath: dir, sortSplitString: '\n' }, { shared: true }), create({ dataPath: dir, sortSplitString: '\n' }, { shared: true })]
    await a.append('k', Buffer.from('a0\n'))
    t.equal(await a.read('k'), '\na0', 'a reads its own record')
    await b.append('k', Buffer.from('b0\n'))
    t.equal(await a.read('k'), '\na0\nb0', 'a read after the other appended sees the new bytes')
    // Records larger than a page, from both at once: each is one write() on an O_APPEND descriptor.
    const record = (who, i) => Buffer.from(`${who}${i}:${'x'.repeat(9000)}\n`)
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).append('k', record(i % 2 ? 'a' : 'b', i))))
    const lines = fs.readFileSync(path.join(dir, 'k'), 'utf8').split('\n')
    t.equal(lines.pop(), '')
    t.same(lines.slice(0, 2), ['a0', 'b0'])
    t.same(lines.slice(2).sort(), Array.from({ length: 40 }, (_, i) => record(i % 2 ? 'a' : 'b', i).toString().trim()).sort(), 'every record whole')
    t.equal((await b.read('k')).length, fs.statSync(path.join(dir, 'k')).size, 'the other reads it all')
  })
}

t.test('every store does one read() per GET and one write() per PUT, also through FUSE', { skip: checkFuse() }, async (t) => {
  const handle = await mountFor(t, { files: { big: 'x y '.repeat(4096) } })
  for (const create of STORES) {
    const store = create({ dataPath: handle.mountpoint, sortSplitString: ' ' })
    const before = await handle.stats()
    await store.read('big')
    await store.append(create.name, Buffer.from('record\n'))
    const after = await handle.stats()
    t.same([after.reads - before.reads, after.writes - before.writes], [1, 1], `${create.name}: a 16 KiB read and an append`)
  }
})
