'use strict'
// What makes an append safe, in-process: a short write on a full disk leaves the file as it was
// (one process) or blanks the partial record in place (a file shared with other processes), turns
// per key, and fsync none / each / group.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { undoPartial, createKeyLock, createFlush, fdPosition } = require('../../servers/lib/durability')
const { createSyncStore, createCallbackStore, createFileHandleStore, createHandleStore } = require('../../servers/lib/store')
const { mountTmpfs, fillDisk } = require('../fixtures/tmpfs')

const { O_WRONLY, O_APPEND, O_CREAT } = fs.constants
const RECORD = Buffer.from(`${'r'.repeat(58)}\n`)
const STORES = [createSyncStore, createCallbackStore, createFileHandleStore, createHandleStore]

// Calls fn, counting the calls of object[name] meanwhile (fs's by default).
async function counting (name, fn, object = fs) {
  const original = object[name]
  let calls = 0
  object[name] = function (...args) { calls++; return original.apply(this, args) }
  try {
    await fn()
  } finally {
    object[name] = original
  }
  return calls
}

// The FileHandle prototype, whose datasync the filehandle store calls.
async function fileHandleProto (dir) {
  const fh = await fs.promises.open(path.join(dir, 'probe'), 'w')
  await fh.close()
  return Object.getPrototypeOf(fh)
}

const statusOf = async (fn) => { try { await fn() } catch (err) { return err.status } }

t.test('fdPosition gives the end of what a write on an O_APPEND descriptor put in the file', async (t) => {
  const file = path.join(t.testdir({ f: 'abc' }), 'f')
  const fd = fs.openSync(file, O_WRONLY | O_APPEND)
  t.teardown(() => fs.closeSync(fd))
  fs.appendFileSync(file, 'from someone else\n')
  fs.writeSync(fd, 'ours')
  t.equal(fdPosition(fd), fs.statSync(file).size)
})

t.test('undoPartial truncates a partial record of its own file and blanks one in a shared file', async (t) => {
  const dir = t.testdir({ own: 'whole\n', shared: 'whole\n', followed: 'whole\n' })
  const partial = (name, shared, after) => {
    const file = path.join(dir, name)
    const fd = fs.openSync(file, O_WRONLY | O_APPEND)
    fs.writeSync(fd, 'part')
    if (after) fs.appendFileSync(file, after)
    const outcome = undoPartial(fd, file, 4, shared)
    fs.closeSync(fd)
    return [outcome, fs.readFileSync(file, 'utf8')]
  }
  t.same(partial('own', false), ['truncated', 'whole\n'], 'byte-identical to before')
  t.same(partial('shared', true), ['blanked', 'whole\n   \n'], 'cluster workers may append after it: blanked, not cut')
  t.same(partial('followed', false, 'next\n'), ['blanked', 'whole\n   \nnext\n'], 'a record after it stays whole')
})

t.test('turns per key: a key waits for the one before, another key does not', async (t) => {
  const turn = createKeyLock()
  const order = []
  const releases = {}
  for (const [key, name] of [['a', 'a1'], ['a', 'a2'], ['b', 'b1']]) turn(key, (release) => { order.push(name); releases[name] = release })
  t.same(order, ['a1', 'b1'])
  releases.a1()
  t.same(order, ['a1', 'b1', 'a2'])
  releases.a2()
  releases.b1()
  turn('a', (release) => { order.push('a3'); release() })
  t.same(order, ['a1', 'b1', 'a2', 'a3'], 'a released key is free again')
})

t.test('fsync group: appends that finish while a flush runs share the next one', async (t) => {
  const dir = t.testdir()
  const fds = Array.from({ length: 5 }, (_, i) => fs.openSync(path.join(dir, i < 4 ? 'k' : 'other'), O_WRONLY | O_APPEND | O_CREAT))
  t.teardown(() => fds.forEach((fd) => fs.closeSync(fd)))
  const flush = createFlush('group')
  const calls = await counting('fdatasync', () => Promise.all(fds.map((fd, i) => new Promise((resolve, reject) => {
    fs.writeSync(fd, 'x')
    flush(i < 4 ? 'k' : 'other', fd, (err) => (err ? reject(err) : resolve()))
  }))))
  t.equal(calls, 3, 'k: one flush at once, one for the three that came meanwhile; other: its own')
  t.equal(await counting('fdatasync', () => new Promise((resolve) => createFlush('none')('k', fds[0], resolve))), 0, 'none flushes nothing')
  t.equal(await counting('fdatasync', () => new Promise((resolve) => createFlush('each')('k', fds[0], resolve))), 1, 'each flushes once')
})

for (const create of STORES) {
  t.test(`${create.name}: fsync=each flushes every append before it resolves; none never`, async (t) => {
    const dir = t.testdir()
    // Each store flushes with its own API: fdatasyncSync, fs.fdatasync, FileHandle.datasync.
    const [name, object] = create === createSyncStore
      ? ['fdatasyncSync', fs]
      : create === createFileHandleStore ? ['datasync', await fileHandleProto(dir)] : ['fdatasync', fs]
    const each = create({ dataPath: dir, sortSplitString: ' ', fsync: 'each' })
    t.equal(await counting(name, () => Promise.all([each.append('k', RECORD), each.append('k', RECORD), each.append('j', RECORD)]), object), 3)
    const none = create({ dataPath: dir, sortSplitString: ' ' })
    t.equal(await counting(name, () => none.append('k', RECORD), object), 0)
    t.equal(fs.readFileSync(path.join(dir, 'k'), 'utf8'), RECORD.toString().repeat(3))
  })

  t.test(`${create.name}: on a full disk an append gets 507 and leaves the file byte-identical`, async (t) => {
    const disk = mountTmpfs(t)
    if (!disk) return
    const store = create({ dataPath: disk, sortSplitString: ' ' })
    await store.append('k', Buffer.from('first\n'))
    // No page is free: the records that fit in the rest of k's page succeed, the next one is cut short.
    fillDisk(disk, 0)
    const fit = Math.floor((4096 - 6) / RECORD.length)
    const statuses = []
    for (let i = 0; i < 80; i++) {
      const before = fs.readFileSync(path.join(disk, 'k'))
      const status = await statusOf(() => store.append('k', RECORD))
      statuses.push(status ?? 200)
      if (status === 507) t.same(fs.readFileSync(path.join(disk, 'k')), before, `failed append ${i}: file unchanged`)
    }
    t.same([...new Set(statuses)], [200, 507], 'successes until the page is full, then 507s')
    t.equal(statuses.filter((s) => s === 200).length, fit)
    t.equal((await store.read('k')).length, 6 + fit * RECORD.length, 'reads keep working')
    fs.rmSync(path.join(disk, 'ballast'))
    t.equal(await statusOf(() => store.append('k', RECORD)), undefined, 'space back: appends succeed again')
  })

  t.test(`${create.name}: in a file shared with other processes a failed record becomes a blank line`, async (t) => {
    const disk = mountTmpfs(t)
    if (!disk) return
    const store = create({ dataPath: disk, sortSplitString: ' ', asyncApi: 'callback' }, { shared: true })
    fillDisk(disk, 4096)
    let status
    for (let i = 0; i < 80 && status === undefined; i++) status = await statusOf(() => store.append('k', RECORD))
    t.equal(status, 507)
    const lines = fs.readFileSync(path.join(disk, 'k'), 'utf8').split('\n')
    t.equal(lines.pop(), '', 'ends with a whole line')
    const fit = Math.floor(4096 / RECORD.length)
    t.equal(lines.filter((l) => l === RECORD.toString().trim()).length, fit, 'every acknowledged record')
    t.match(lines.at(-1), /^ +$/, 'then the failed one, blanked')
    t.equal(lines.length, fit + 1)
  })
}

for (const create of [createCallbackStore, createFileHandleStore, createHandleStore]) {
  t.test(`${create.name}: fsync=group lets concurrent appends to one file share flushes`, async (t) => {
    const dir = t.testdir()
    const store = create({ dataPath: dir, sortSplitString: ' ', fsync: 'group' })
    // A slow disk: each flush takes 100 ms more, so the other seven finish their writes meanwhile.
    const original = fs.fdatasync
    fs.fdatasync = (fd, done) => original(fd, (err) => setTimeout(done, 100, err))
    t.teardown(() => { fs.fdatasync = original })
    const calls = await counting('fdatasync', () => Promise.all(Array.from({ length: 8 }, () => store.append('k', RECORD))))
    t.ok(calls >= 2 && calls <= 3, `${calls} flushes for 8 appends: the first alone, the rest together`)
    t.equal(fs.readFileSync(path.join(dir, 'k'), 'utf8'), RECORD.toString().repeat(8))
  })
}

t.test('the sync store refuses fsync=group: no two PUTs can share its flush', async (t) => {
  t.throws(() => createSyncStore({ dataPath: '.', sortSplitString: ' ', fsync: 'group' }), /fsync=group needs an async kind/)
})
