'use strict'
// The pool store in this process: the sync store's results through threads, its errors rebuilt
// with every field the answer and the fault log read, a body sent as exactly its bytes.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')
const { createPoolStore } = require('../../../servers/lib/store-pool')
const { createSyncStore } = require('../../../servers/lib/store')

const CONFIG = { sortSplitString: '|', fsync: 'none', nServers: 2 }

function open (t, dataPath) {
  const store = createPoolStore({ ...CONFIG, dataPath })
  t.teardown(() => store.close())
  return store
}

const fields = (err) => ({ ...err, name: err.name, message: err.message })
const failure = async (fn) => {
  try {
    await fn()
  } catch (err) {
    return err
  }
  throw new Error('no failure')
}

t.test('reads and appends give what the sync store gives', async (t) => {
  const dataPath = t.testdir({ adir: {} })
  const store = open(t, dataPath)
  t.equal(store.kind, 'sync', 'a sync store to the app')
  // A body that is a slice of a larger Buffer (as the socket's may be): only its bytes are written.
  const larger = Buffer.from('NOT-c|b|a-NOT')
  t.equal(await store.append('k', larger.subarray(4, 9)), undefined, 'an append resolves to nothing')
  await store.append('k', Buffer.from('|d'))
  t.equal(fs.readFileSync(path.join(dataPath, 'k'), 'utf8'), 'c|b|a|d', 'each body once, exactly its bytes')
  t.equal(await store.read('k'), createSyncStore({ ...CONFIG, dataPath }).read('k'), 'the sync store\'s read')
  t.equal(await store.read('k'), 'a|b|c|d', 'sorted on sortSplitString')
})

t.test('a failure comes back an Error with its status, code, syscall, path and message', async (t) => {
  const dataPath = t.testdir({ adir: {} })
  const store = open(t, dataPath)
  const sync = createSyncStore({ ...CONFIG, dataPath })
  for (const [name, op] of [['a missing file', (s) => s.read('none')], ['a directory', (s) => s.read('adir')],
    ['an append into a directory', (s) => s.append('adir', Buffer.from('x'))]]) {
    const want = await failure(() => op(sync))
    const got = await failure(() => op(store))
    t.ok(got instanceof Error, `${name}: an Error`)
    t.same(fields(got), fields(want), `${name}: every field`)
    t.equal(got.status, 404, `${name}: 404`)
  }
  const gone = path.join(dataPath, 'gone')
  const lost = createPoolStore({ ...CONFIG, dataPath: gone })
  t.teardown(() => lost.close())
  const err = await failure(() => lost.append('k', Buffer.from('x')))
  t.match(err, { code: 'ENOENT', syscall: 'open', path: path.join(gone, 'k'), status: undefined }, 'the data folder gone: no status, a 500')
  t.match(err.stack, /at .*store\.js/, 'the stack of the thread it came from')
})

t.test('close ends the threads', { skip: !fs.existsSync('/proc/self/task') && 'needs Linux /proc' }, async (t) => {
  const threads = () => fs.readdirSync('/proc/self/task').length
  const before = threads()
  const store = createPoolStore({ ...CONFIG, dataPath: t.testdir({ k: 'x' }) })
  t.equal(await store.read('k'), 'x', 'the threads run')
  t.ok(threads() >= before + CONFIG.nServers, `nServers threads more (${before} -> ${threads()})`)
  await store.close()
  for (let i = 0; i < 100 && threads() > before; i++) await sleep(20)
  t.equal(threads(), before, 'as many threads as before')
})
