'use strict'
// lib/machine/child-gone.js: a forked child is gone only once it has exited and its last message has
// been read, so a result sent just before exit is never lost (it was, 1 run in 60, when the
// client took 'exit' as final).

const { fork } = require('node:child_process')
const path = require('node:path')
const t = require('tap')
const { onGone } = require('../../lib/machine/child-gone')
const { ROOT } = require('../../lib/config')

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'send-and-exit.js')
// Without tap's loaders in NODE_OPTIONS a child starts in ~60 ms rather than ~1 s: 200 of them stay quick.
const PLAIN = { ...process.env, NODE_OPTIONS: '' }

// Forks a child that sends its result and exits at once; resolves with the order of events. The
// first children of a batch find this process busy (it blocks its loop while the batch starts), so
// their result and their exit are both waiting when it next looks: the order is then the kernel's.
function raceOnce (bytes) {
  return new Promise((resolve) => {
    const child = fork(FIXTURE, [String(bytes)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: PLAIN, execArgv: [] })
    const seen = { message: false, exitFirst: false }
    child.on('message', (msg) => { seen.message = msg.type === 'result' && msg.body.length === bytes })
    child.on('exit', () => { seen.exitFirst = !seen.message })
    onGone(child, (code) => resolve({ ...seen, code }))
  })
}

t.test('a child that sends its result and exits at once is never gone before its result arrives', async (t) => {
  const runs = []
  for (let batch = 0; batch < 5; batch++) {
    // Results from a few bytes to 256 KiB, 20 children at a time.
    const batchRuns = Array.from({ length: 20 }, (_, k) => raceOnce(2 ** ((batch * 20 + k) % 19)))
    for (const end = Date.now() + 300; Date.now() < end;); // busy: the children send and exit meanwhile
    runs.push(...await Promise.all(batchRuns))
  }
  t.equal(runs.length, 100)
  t.same(runs.filter((r) => !r.message), [], 'every result arrived before the child counted as gone')
  t.same(runs.filter((r) => r.code !== 0), [], 'every child exited 0')
  t.comment(`'exit' came before the result in ${runs.filter((r) => r.exitFirst).length} of 100 runs`)
})

t.test('a child this side disconnects is gone once it exits', async (t) => {
  const child = fork(path.join(ROOT, 'client', 'pool-worker.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: PLAIN, execArgv: [] })
  const gone = new Promise((resolve) => onGone(child, (code, signal) => resolve({ code, signal })))
  await new Promise((resolve) => child.once('spawn', resolve))
  child.disconnect()
  t.same(await gone, { code: 0, signal: null }, 'the pool worker leaves when its channel closes')
})
