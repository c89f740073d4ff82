'use strict'
// storage/cache.js without the device: which files make a cache share (spread evenly, the count asked), the data set
// written (every file its size, lines of the value), and a folder in memory refused. On the device: cold.test.js.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { warmFiles, writeDataSet, ramFolderProblem } = require('../../storage/cache')
const { mountTmpfs } = require('../fixtures/tmpfs')

t.test('a cache share is that many files, spread evenly over the data set', async (t) => {
  t.same(warmFiles(10, 0), [])
  t.same(warmFiles(10, 100), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
  t.same(warmFiles(10, 50), [1, 3, 5, 7, 9])
  t.same(warmFiles(20, 10), [9, 19])
  for (const share of [1, 10, 33, 50, 99]) {
    const files = warmFiles(32768, share)
    t.equal(files.length, Math.floor(32768 * share / 100), `${share}%: its count`)
    const window = files.filter((f) => f >= 10000 && f < 12000).length
    t.ok(Math.abs(window - 2000 * share / 100) <= 1, `${share}%: any stretch of files holds the share (${window} of 2000)`)
  }
})

t.test('the data set: nFiles files of fileBytes each, lines of the value ending in a newline', async (t) => {
  const dir = t.testdir()
  await writeDataSet(dir, { nFiles: 3, fileBytes: 1000, value: 'héllo text' })
  t.same(fs.readdirSync(dir).sort(), ['file-0', 'file-1', 'file-2'])
  const body = fs.readFileSync(path.join(dir, 'file-2'))
  t.equal(body.length, 1000, 'bytes, not characters')
  t.equal(body.at(-1), 0x0a)
  t.match(body.toString().split('\n')[0], /^héllo text preloaded$/)
})

t.test('a folder in memory has no device to read from', async (t) => {
  t.equal(ramFolderProblem(t.testdir()), '', 'the checkout\'s disk')
  const dir = mountTmpfs(t)
  if (!dir) return
  t.equal(ramFolderProblem(dir), `the data folder ${dir} is on tmpfs (${dir}), which is memory: no device to read from; give --dataPath on a disk`)
})
