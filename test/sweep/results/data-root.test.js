'use strict'
// The sweep's data root: the next run removes what a killed sweep left, and nothing else.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { createDataRoot, removeLeftovers } = require('../../../sweep/results/data-root')

const DEAD = 2 ** 22 + 12345 // above pid_max's default: no such process

t.test('leftovers of a sweep that is gone are removed; live, kept and foreign folders stay', async (t) => {
  const owner = (o) => ({ '.sweep-owner': JSON.stringify(o), 'cell-r1': { 'file-0': 'x\n' } })
  const dataPath = t.testdir({
    dead: owner({ pid: DEAD, startTime: '1' }),
    reused: owner({ pid: process.pid, startTime: 'another start' }),
    kept: owner({ pid: DEAD, startTime: '1', keep: true }),
    mine: { 'file-0': 'the user\'s own\n' },
    'loose-file': 'x'
  })
  const live = createDataRoot(dataPath, 'now', false)
  const removed = removeLeftovers(dataPath).map((p) => path.basename(p)).sort()
  t.same(removed, ['dead', 'reused'], 'a dead owner, or a pid now used by another process')
  t.same(fs.readdirSync(dataPath).sort(), ['kept', 'loose-file', 'mine', path.basename(live.root)].sort())
  live.release()
  t.notOk(fs.existsSync(live.root), 'released: removed')
})

t.test('a kept data root loses its owner file and is never a leftover', async (t) => {
  const dataPath = t.testdir()
  const kept = createDataRoot(dataPath, 'keep', true)
  fs.writeFileSync(path.join(kept.root, 'cell.json'), '{}')
  kept.release()
  t.same(fs.readdirSync(kept.root), ['cell.json'])
  t.same(removeLeftovers(dataPath), [])
})
