'use strict'
// report/stats/precision.js: after each round the sweep asks, with the rows written so far, whether every
// headline interval is narrower than ±margin, and which cells still have a comparison to narrow (the
// others are settled).

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { parse } = require('csv-parse/sync')
const { stringify } = require('csv-stringify/sync')
const { precision } = require('../../../report/stats/precision')
const { readResults, runRows } = require('../../../report/data/read')
const { createSummary } = require('../../../sweep/results/folder')
const { SUMMARY } = require('../../../lib/results/dimensions')
const { writeSweepFolder } = require('../../fixtures/results-folder')

t.test('with 8 tight rounds every interval is narrow; a noisy cell keeps itself and its partners needed', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir, { rounds: 8, aa: true })
  const calm = precision(readResults(dir), 0.05)
  t.match(calm, { precise: true, open: [] })
  t.match(calm.summary, /^21 of 21 intervals narrow enough to decide \(under 5% wide; the widest \d\.\d%\)$/)
  t.notOk(calm.needed('c01'), 'a cell whose comparisons are all narrow is settled')
  t.ok(calm.needed('c99'), 'a cell in no comparison stays needed')
  // c02 (sync, 1 process, 4 clients) swings by ±30% from round to round: its comparisons widen.
  const file = path.join(dir, 'summary.csv')
  const records = parse(fs.readFileSync(file, 'utf8'), { columns: true })
  for (const r of records) if (r.cell === 'c02') r.opsPerSec = String(Number(r.opsPerSec) * (r.repeat % 2 ? 1.3 : 0.7))
  fs.writeFileSync(file, stringify(records, { header: true }))
  const noisy = precision(readResults(dir), 0.05)
  t.equal(noisy.precise, false)
  t.same(noisy.open.sort(), ['sync vs async, 1 process, 4 client processes', 'sync: cluster of 1 worker vs 1 process, 4 client processes',
    'sync: cluster of 2 workers vs 1 process, 4 client processes', 'sync: cluster of 3 workers vs 1 process, 4 client processes'])
  t.same(['c02', 'c04', 'c06', 'c08', 'c10', 'c01', 'c03'].map(noisy.needed), [true, true, true, true, true, false, false],
    'c02 and its partners stay needed; the rest settle')
})

t.test('the rows in memory, as the sweep keeps them, give what its summary.csv gives', async (t) => {
  const fixture = t.testdir()
  writeSweepFolder(fixture, { rounds: 8, aa: true })
  const records = parse(fs.readFileSync(path.join(fixture, 'summary.csv'), 'utf8'), { columns: true })
  // As sweep/cell/cell.js rowOf makes them: numbers and booleans, a column without a value left out.
  const typed = (k, v) => (v === 'true' || v === 'false' ? v === 'true' : k !== 'cell' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v)
  const rows = records.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== '').map(([k, v]) => [k, typed(k, v)])))
  // The folder the sweep writes: the same rows through sweep/results/folder.js, with every column.
  const dir = path.join(fixture, 'written')
  fs.mkdirSync(dir)
  fs.copyFileSync(path.join(fixture, 'env.json'), path.join(dir, 'env.json'))
  const append = createSummary(path.join(dir, 'summary.csv'), SUMMARY.sweep.columns)
  for (const row of rows) append(row)
  const inMemory = runRows(rows)
  const fromFolder = readResults(dir)
  t.same(inMemory.rows, fromFolder.rows, 'the same typed rows')
  t.same([inMemory.load, inMemory.variants], [fromFolder.load, fromFolder.variants])
  t.same(precision(inMemory, 0.05).summary, precision(fromFolder, 0.05).summary)
  t.match(precision(inMemory, 0.05).summary, /^21 of 21 intervals narrow enough/)
})

t.test('rows that cannot be judged are never precise, and every cell stays needed', async (t) => {
  const p = precision({ rows: [{ cell: 'x' }] }, 0.05)
  t.match(p, { precise: false, open: [] })
  t.match(p.summary, /^intervals unknown \(/)
  t.ok(p.needed('anything'))
  t.match(precision({ rows: [], load: 'nClients', variants: [] }, 0.05), { precise: false, summary: 'no comparison yet' })
})
