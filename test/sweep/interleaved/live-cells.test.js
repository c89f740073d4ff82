'use strict'
// sweep/interleaved/live-cells.js fairWindows: after the first round, the cells whose windows took longer than the median
// cell's get windows of fewer operations, as long as the median's; never longer, never under 10 per client process. startEach:
// servers start a few at a time, and one whose start failed is started again, alone, after the others, at most 3 times in all.
// Run: node test/sweep/interleaved/live-cells.test.js

const t = require('tap')
const { fairWindows, startEach } = require('../../../sweep/interleaved/live-cells')

// A live cell with windows of `size` operations per client process that took these µs in its first round.
const cell = (id, nClients, size, wallsUs, more = {}) => ({ cell: { id, nClients }, size, kept: wallsUs.map((wallUs) => ({ wallUs })), ...more })

t.test('a cell slower than the median gets windows as long as the median\'s; the others keep theirs', async (t) => {
  const state = [
    cell('fast', 2, 100, [40000, 50000, 60000]), // 50 ms
    cell('median', 2, 100, [60000, 70000, 80000]), // 70 ms: the median of 50, 70, 300 and 20
    cell('slow', 2, 100, [280000, 300000, 320000]), // 300 ms
    cell('fastest', 2, 100, [20000])
  ]
  // The median of 20, 50, 70 and 300 ms is 60 ms: median and slow shrink to 100 × 60/70 = 86 and 100 × 60/300 = 20.
  const lines = fairWindows(state)
  t.same(state.map((c) => c.size), [100, 86, 20, 100])
  t.same(lines, ['median: windows of 172 operations (60 ms), not 200 (70 ms)', 'slow: windows of 40 operations (60 ms), not 200 (300 ms)'])
})

t.test('no window shrinks under 10 operations per client process, none grows, failed cells and a lone cell are left', async (t) => {
  const state = [cell('a', 1, 50, [1000]), cell('b', 1, 50, [1000]), cell('c', 1, 50, [900000]), cell('dead', 1, 50, [1e9], { failed: 'x' })]
  fairWindows(state)
  t.same(state.map((c) => c.size), [50, 50, 10, 50], 'c: 50 × 1/900 is under the floor')
  const alone = [cell('only', 2, 100, [300000])]
  t.same(fairWindows(alone), [])
  t.equal(alone[0].size, 100)
})

// A start that takes a turn of the event loop and fails for the items (and attempts, from 0) in `fails`.
function starter (fails = {}) {
  const log = { running: 0, most: 0, calls: [], closed: [] }
  const start = async (item, tried) => {
    const attempt = tried.length
    log.calls.push(`${item}#${attempt}`)
    log.running++
    log.most = Math.max(log.most, log.running)
    await new Promise((resolve) => setImmediate(resolve))
    log.running--
    const error = (fails[item] ?? []).includes(attempt) ? new Error(`${item} not ready (${attempt})`) : null
    return { item, tried: [...tried], error, close: async () => log.closed.push(`${item}#${attempt}`) }
  }
  return { log, start }
}

t.test('startEach: at most atOnce at a time, every item started, in order', async (t) => {
  const { log, start } = starter()
  const out = await startEach(['a', 'b', 'c', 'd', 'e'], start, { signal: new AbortController().signal, atOnce: 2 })
  t.equal(log.most, 2)
  t.same(out.map((o) => o.value.item), ['a', 'b', 'c', 'd', 'e'])
  t.same(log.closed, [], 'nothing failed, nothing closed')
})

t.test('startEach: a failed start is closed and started again after the others, with why; 3 tries in all', async (t) => {
  const { log, start } = starter({ b: [0], d: [0, 1, 2] })
  const out = await startEach(['a', 'b', 'c', 'd'], start, { signal: new AbortController().signal, atOnce: 4 })
  t.same(log.calls, ['a#0', 'b#0', 'c#0', 'd#0', 'b#1', 'd#1', 'd#2'])
  t.same(log.closed, ['b#0', 'd#0', 'd#1'], 'every failed start closed before the next, the last kept for its rows')
  t.equal(out[1].value.error, null, 'b started the second time')
  t.same(out[1].value.tried, ['b not ready (0)'])
  t.equal(out[3].value.error.message, 'd not ready (2)', 'd failed 3 times: its last reason stays')
})

t.test('startEach: interrupted, nothing more starts and the reason is given', async (t) => {
  const ac = new AbortController()
  const { log, start } = starter({ a: [0] })
  const stopping = async (item, tried) => {
    const o = await start(item, tried)
    ac.abort(new Error('interrupted'))
    return o
  }
  const out = await startEach(['a', 'b'], stopping, { signal: ac.signal, atOnce: 1 })
  t.same(log.calls, ['a#0'], 'b never started, a not started again')
  t.equal(out[1].status, 'rejected')
  t.equal(out[1].reason.message, 'interrupted')
})
