'use strict'
// The end-of-run table: medians over valid repeats only, per cell, then the invalid runs' reasons.

const t = require('tap')
const { formatTable, median } = require('../sweep/table')

t.test('the median of odd and even counts, and of nothing', async (t) => {
  t.equal(median([3, 1, 2]), 2)
  t.equal(median([4, 1, 3, 2]), 2.5)
  t.equal(median([]), null)
})

t.test('one line per cell with medians of valid repeats, then each invalid run', async (t) => {
  const rows = [
    { cell: 'sync-s1-c10', repeat: 1, valid: true, opsPerSec: 100, cpu: 2e6 },
    { cell: 'sync-s1-c2', repeat: 1, valid: true, opsPerSec: 300, cpu: 1e6 },
    { cell: 'sync-s1-c2', repeat: 2, valid: true, opsPerSec: 200, cpu: 3e6 },
    { cell: 'sync-s1-c2', repeat: 3, valid: false, opsPerSec: 9999, reason: 'client did not finish within 300 s' },
    { cell: 'async-s1-c1', repeat: 1, valid: false, reason: 'server not ready within 15 s' }
  ]
  const text = formatTable(rows, [{ title: 'ops/s', key: 'opsPerSec' }, { title: 'CPU s', key: 'cpu', scale: 1e-6, digits: 1 }])
  t.equal(text, [
    'medians of valid repeats (5 runs)',
    'cell         valid  ops/s  CPU s',
    'async-s1-c1    0/1      -      -',
    'sync-s1-c2     2/3    250    2.0',
    'sync-s1-c10    1/1    100    2.0',
    'invalid sync-s1-c2 r3: client did not finish within 300 s',
    'invalid async-s1-c1 r1: server not ready within 15 s',
    ''
  ].join('\n'))
})
