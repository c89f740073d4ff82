'use strict'
// sweep/interleaved/passes.js with a scripted machine and a stand-in pool: a pass is kept or dropped on the
// interference figure alone; after a dropped one the run waits for a quiet sample before the next;
// a round that cannot get its clean passes in twice as many tries is disturbed; a window that
// fails or hangs fails its cell and the others go on.

const t = require('tap')
const { runPasses } = require('../../../sweep/interleaved/passes')

// A pool whose windows take `ms` and fail `failed` operations; `settled` records keep/drop.
function fakePool ({ ms = 1, failed = 0, failures, hang = () => false } = {}) {
  const pool = { settled: [], windows: 0 }
  pool.window = (key) => {
    pool.windows++
    if (hang(key)) return new Promise(() => {})
    return new Promise((resolve) => setTimeout(() => resolve({ wallUs: ms * 1000, failed, failures, cpuUs: [{ user: 10, system: 5 }] }), ms))
  }
  pool.settle = async (keep) => { pool.settled.push(keep) }
  return pool
}

const cell = (id, pool) => ({ cell: { id, nClients: 1 }, key: id, pool, client: { serverStats: false }, size: 10, done: 0, kept: [], failed: '' })

// A machine whose successive samples read interference from a script (a value per sample pair).
function scripted (values) {
  let k = 0
  return { sample: () => ({ k: k++ }), between: () => ({ interference: values.shift() ?? 0, other: 0, steal: 0 }), quietMs: 1, samples: () => k }
}

const ctx = (machine, extra = {}) => ({ options: { passes: 3, maxInterference: 0.1, cellTimeout: 1000 }, random: Math.random, hosts: null,
  signal: new AbortController().signal, machine, ...extra })

t.test('a pass above the limit is dropped, the run waits for a quiet sample, and the round gets its clean passes', async (t) => {
  const pool = fakePool()
  const cells = [cell('a', pool), cell('b', pool)]
  // pass 1 clean, pass 2 disturbed, then two busy samples while waiting, a quiet one, passes 3 and 4 clean.
  const machine = scripted([0.02, 0.5, 0.4, 0.3, 0.01, 0.03, 0.05])
  const seen = []
  const log = await runPasses(cells, ctx(machine, { onPass: (pass) => seen.push(pass) }))
  t.same(log.passes.map((p) => [p.pass, p.kept]), [[1, true], [2, false], [3, true], [4, true]])
  t.same(seen.map((p) => p.pass), [1, 2, 3, 4], 'each pass is told as it ends')
  t.match(log, { clean: 3, disturbed: false })
  t.same(pool.settled, [true, false, true, true], 'the pool keeps or drops each pass')
  t.same(cells.map((c) => [c.done, c.kept.length]), [[4, 3], [4, 3]], 'the dropped windows ran, their operations used; only clean ones are kept')
  t.equal(log.windows.length, 8)
})

t.test('a round that cannot get its clean passes in twice as many tries is disturbed', async (t) => {
  const pool = fakePool()
  const log = await runPasses([cell('a', pool)], ctx(scripted(Array(40).fill(0.9)), { deadline: Date.now() }))
  t.equal(log.passes.length, 6, '2 x 3 passes tried')
  t.match(log, { clean: 0, disturbed: true })
})

t.test('a window that fails or hangs fails its cell; the others keep their passes', async (t) => {
  const pool = fakePool({ hang: (key) => key === 'hung' })
  const failing = fakePool({ failed: 3 })
  const named = fakePool({ failed: 5, failures: { timeout: 1, 'bad-length': 4 } })
  const cells = [cell('ok', pool), cell('hung', pool), cell('bad', failing), cell('said', named)]
  const log = await runPasses(cells, { ...ctx(scripted([])), options: { passes: 2, maxInterference: 0.1, cellTimeout: 50 } })
  t.match(cells[1], { failed: /^a window of hung \(pass 1\) did not finish within 0\.05 s$/, done: 1 })
  t.match(cells[2], { failed: '3 of 10 requests failed in a window (pass 1)', done: 1 })
  t.match(cells[3], { failed: '5 of 10 requests failed in a window (pass 1): 4 bad-length, 1 timeout' }, 'what failed, the most first')
  t.match(cells[0], { done: 2, failed: '' })
  t.match(log, { clean: 2, disturbed: false })
})

t.test('an interrupt stops between windows with its reason', async (t) => {
  const controller = new AbortController()
  controller.abort(new Error('interrupted by SIGINT'))
  await t.rejects(runPasses([cell('a', fakePool())], ctx(scripted([]), { signal: controller.signal })), /interrupted by SIGINT/)
})
