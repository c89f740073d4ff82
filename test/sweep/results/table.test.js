'use strict'
// The end-of-run table: medians over valid repeats only, per cell, then the invalid runs' reasons.

const t = require('tap')
const { formatTable } = require('../../../sweep/results/table')
const { tableOfMedians } = require('../../../report/page/tables')
const { SETTLED_NOTE } = require('../../../lib/median')

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
    'medians of the valid rounds (5 rows)',
    'cell         valid  ops/s  CPU s',
    'async-s1-c1    0/1      -      -',
    'sync-s1-c2     2/3    250    2.0',
    'sync-s1-c10    1/1    100    2.0',
    SETTLED_NOTE,
    'invalid sync-s1-c2 r3: client did not finish within 300 s',
    'invalid async-s1-c1 r1: server not ready within 15 s',
    ''
  ].join('\n'))
})

t.test('a cell marked in most of its valid repeats gets the symbol, and the note follows the table', async (t) => {
  const mark = { key: 'clientBound', symbol: '*', note: 'client-bound in most valid repeats' }
  const rows = [
    { cell: 'a', repeat: 1, valid: true, ops: 10, clientBound: false },
    { cell: 'a', repeat: 2, valid: true, ops: 30, clientBound: true },
    { cell: 'a', repeat: 3, valid: true, ops: 20, clientBound: true },
    { cell: 'b', repeat: 1, valid: false, ops: 20, clientBound: true, reason: 'lost' },
    { cell: 'c', repeat: 1, valid: true, ops: 5, clientBound: '' },
    { cell: 'd', repeat: 1, valid: true, ops: 7, clientBound: true },
    { cell: 'd', repeat: 2, valid: true, ops: 9, clientBound: false }
  ]
  t.equal(formatTable(rows, [{ title: 'ops', key: 'ops' }], [mark]), [
    'medians of the valid rounds (7 rows)',
    'cell  valid  ops',
    'a *     3/3   20',
    'b       0/1    -',
    'c       1/1    5',
    'd       2/2    8',
    '* client-bound in most valid repeats',
    SETTLED_NOTE,
    'invalid b r1: lost',
    ''
  ].join('\n'))
  t.notMatch(formatTable(rows.slice(3), [{ title: 'ops', key: 'ops' }], [mark]), /\*/, 'half is not most: no mark, no note')
})

t.test('cells with different numbers of rounds (a settled cell) get the note, in the table and in the report', async (t) => {
  const rows = (cell, n) => Array.from({ length: n }, (_, i) => ({ cell, repeat: i + 1, valid: true, opsPerSec: 100 }))
  const columns = [{ title: 'ops/s', key: 'opsPerSec' }]
  t.notOk(formatTable([...rows('a', 3), ...rows('b', 3)], columns).includes(SETTLED_NOTE), 'the same rounds: no note')
  t.ok(formatTable([...rows('a', 3), ...rows('b', 2)], columns).includes(SETTLED_NOTE), 'a cell settled early')
  const cell = (id, n) => ({ id, kind: 'sync', nServers: 1, load: 2, variant: '', rows: rows(id, n), valid: rows(id, n), ci: {} })
  const results = { format: 'sweep', load: 'nClients', columns: ['opsPerSec'] }
  t.match(String(tableOfMedians(results, [cell('a', 3), cell('b', 2)])), `<caption>${SETTLED_NOTE.replace("'", '&#39;')}</caption>`)
  t.notMatch(String(tableOfMedians(results, [cell('a', 3), cell('b', 3)])), /<caption>/)
})

t.test("the report's table of all runs shows every invalid row and caps the valid ones at 200", async (t) => {
  const { summaryTable } = require('../../../report/page/tables')
  const columns = ['cell', 'repeat', 'opsPerSec']
  const row = (i, valid) => ({ cell: 'sync-s1-c2', repeat: i, opsPerSec: 100 + i, valid, reason: valid ? '' : `lost ${i}` })
  const rowsOf = (html) => [...String(html).matchAll(/<tr( class="invalid")?[^>]*>\s*<td>sync-s1-c2<\/td><td class="num">(\d+)<\/td>/g)]
    .map((m) => ({ repeat: Number(m[2]), invalid: Boolean(m[1]) }))
  const small = Array.from({ length: 5 }, (_, i) => row(i + 1, i !== 2))
  t.equal(rowsOf(summaryTable({ columns, rows: small })).length, 5, 'a short table whole')
  t.notMatch(String(summaryTable({ columns, rows: small })), /<caption>/, 'without a caption')
  const long = Array.from({ length: 1000 }, (_, i) => row(i + 1, i % 300 !== 299))
  const shown = rowsOf(summaryTable({ columns, rows: long }))
  t.same(shown.filter((r) => r.invalid).map((r) => r.repeat), [300, 600, 900], 'every invalid row, wherever it is')
  t.equal(shown.length, 200, '200 rows in all')
  t.same(shown.filter((r) => !r.invalid).map((r) => r.repeat).slice(0, 3), [1, 2, 3], 'the valid ones from the start')
  t.match(String(summaryTable({ columns, rows: long })),
    /<caption>200 of 1000 rows: every invalid one and the first valid ones; all are in summary.csv<\/caption>/)
})

t.test('a figure asked with its interval shows the median over the valid rounds, its order-statistic interval and what that covers', async (t) => {
  const capacities = [2400, 2650, 2500, 2580, 2300, 2710, 9999]
  const rows = capacities.map((capacity, i) => ({ cell: 'sync', repeat: i + 1, valid: i < 6, capacity, reason: i < 6 ? '' : 'lost' }))
  rows.push({ cell: 'async', repeat: 1, valid: true, capacity: 700 }, { cell: 'async', repeat: 2, valid: true, capacity: 900 })
  rows.push({ cell: 'none', repeat: 1, valid: true, capacity: null })
  const lines = formatTable(rows, [{ title: 'capacity req/s [interval]', key: 'capacity', interval: true }]).split('\n').map((l) => l.split(/ {2,}/))
  t.same(lines[2], ['async', '2/2', '800 [700–900] (50% over 2 rounds; no 95% interval)'], 'two rounds: the lowest to the highest, covering 50%')
  t.same(lines[4], ['sync', '6/7', '2540 [2300–2710] (96.9% over 6 rounds)'], 'six valid rounds: [min, max], 96.9%; the invalid one left out')
  t.same(lines[3], ['none', '1/1', '-'], 'no capacity: no interval')
  const one = formatTable([{ cell: 'c', repeat: 1, valid: true, capacity: 1737 }], [{ title: 'capacity', key: 'capacity', interval: true }])
  t.match(one, /c +1\/1 +1737 \(1 round; no interval\)\n/, 'one round: no bracket at all')
  const ten = Array.from({ length: 10 }, (_, i) => ({ cell: 'c', repeat: i + 1, valid: true, capacity: 1000 + 10 * i }))
  t.match(formatTable(ten, [{ title: 'capacity', key: 'capacity', interval: true }]), /c +10\/10 +1045 \[1010–1080\] \(97\.9% over 10 rounds\)/,
    'ten rounds: the 2nd and 9th values (97.9%)')
})
