'use strict'
// sweep/interleaved/live-cells.js fairWindows: after the first round, the cells whose windows took longer than the median
// cell's get windows of fewer operations, as long as the median's; never longer, never under 10 per client process.
// Run: node test/sweep/interleaved/live-cells.test.js

const t = require('tap')
const { fairWindows } = require('../../../sweep/interleaved/live-cells')

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
