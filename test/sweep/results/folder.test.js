'use strict'
// The results folder: a fresh timestamped folder, summary.csv valid after every row, one clear
// line for a full disk, and cell logs.

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { parse } = require('csv-parse/sync')
const { createResultsDir, createSummary, writeJson, openLog } = require('../../../sweep/results/folder')

t.test('a results folder is named by UTC time and command, has cells/, and is never reused', async (t) => {
  const parent = path.join(t.testdir(), 'results')
  const now = new Date('2026-11-22T12:30:05.123Z')
  const dir = createResultsDir(parent, 'quick', now)
  t.equal(dir, path.join(parent, '2026-11-22T12-30-05Z-quick'))
  t.ok(fs.statSync(path.join(dir, 'cells')).isDirectory())
  t.throws(() => createResultsDir(parent, 'quick', now), { code: 'EEXIST', message: /^cannot write .*-quick: EEXIST/ })
})

t.test('summary.csv is a valid CSV after each appended row, with true/false and blanks', async (t) => {
  const file = path.join(t.testdir(), 'summary.csv')
  const append = createSummary(file, ['cell', 'valid', 'reason', 'opsPerSec'])
  t.same(parse(fs.readFileSync(file, 'utf8'), { columns: true }), [])
  append({ cell: 'sync-s1-c1', valid: true, reason: '', opsPerSec: 1234.5 })
  append({ cell: 'async-s1-c1', valid: false, reason: 'server not ready, "really"', extra: 1 })
  t.same(parse(fs.readFileSync(file, 'utf8'), { columns: true }), [
    { cell: 'sync-s1-c1', valid: 'true', reason: '', opsPerSec: '1234.5' },
    { cell: 'async-s1-c1', valid: 'false', reason: 'server not ready, "really"', opsPerSec: '' }
  ])
})

t.test('a full disk is one clear line naming the file', async (t) => {
  const file = path.join(t.testdir(), 'env.json')
  fs.symlinkSync('/dev/full', file)
  t.throws(() => writeJson(file, { a: 1 }), { code: 'ENOSPC', message: `cannot write ${file}: the disk is full (ENOSPC)` })
})

t.test('a cell log appends, and its last line skips the sweep\'s own notes', async (t) => {
  const log = openLog(path.join(t.testdir(), 'cell.log'))
  t.equal(log.lastLine(), 'no message')
  log.write('# started pid 1\nsync: port 8100 on 127.0.0.1 is already in use\n# pid 1 ended (code 1)\n')
  t.equal(log.lastLine(), 'sync: port 8100 on 127.0.0.1 is already in use')
  log.close()
})
