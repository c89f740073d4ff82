'use strict'
// lib/workload.js: the operation sequence every client process follows.

const t = require('tap')
const { operationAt, operationCount, creationCount, warmupOperationAt, warmupCount } = require('../../lib/workload')

const base = { readsPerWrite: 10, nFiles: 30, nClients: 5, nOperations: 10000, warmup: 200 }
const ops = (config, p, n) => Array.from({ length: n }, (_, i) => operationAt(i, config, p))

t.test('each mix from writes-only to reads-only has the documented share of PUTs', async (t) => {
  for (const [readsPerWrite, putShare] of [[0, 1], [1, 0.5], [4, 0.2], [19, 0.05], ['inf', 0]]) {
    const list = ops({ ...base, readsPerWrite }, 1, 1000)
    t.equal(list.filter((op) => op.type === 'PUT').length / list.length, putShare, `readsPerWrite=${readsPerWrite}`)
    if (readsPerWrite !== 'inf') t.equal(list[0].type, 'PUT', 'the first operation is a PUT')
  }
})

t.test('the order is the documented one', async (t) => {
  t.same(ops({ ...base, readsPerWrite: 2, nFiles: 4 }, 2, 7).map((op) => `${op.type} ${op.key}`), [
    'PUT file-1', 'GET file-1', 'GET file-2', 'PUT file-2', 'GET file-3', 'GET file-0', 'PUT file-3'
  ])
  t.same(ops({ ...base, readsPerWrite: 'inf', nFiles: 3 }, 1, 4).map((op) => op.key), ['file-0', 'file-1', 'file-2', 'file-0'])
})

t.test('reads and writes each reach every file, even when nFiles divides readsPerWrite+1', async (t) => {
  for (const config of [{ ...base, readsPerWrite: 1, nFiles: 30 }, { ...base, readsPerWrite: 9, nFiles: 10 }]) {
    const list = ops(config, 3, 2000)
    for (const type of ['GET', 'PUT']) {
      const keys = new Set(list.filter((op) => op.type === type).map((op) => op.key))
      t.equal(keys.size, config.nFiles, `${type} with readsPerWrite=${config.readsPerWrite}, nFiles=${config.nFiles}`)
    }
  }
})

t.test('operationAt is pure: same inputs, same answer, config untouched', async (t) => {
  const config = Object.freeze({ ...base })
  t.same(ops(config, 4, 500), ops(config, 4, 500))
  t.not(ops(config, 1, 20).map((op) => op.key).join(), ops(config, 2, 20).map((op) => op.key).join(), 'processes start on different files')
})

t.test('nOperations is split between the processes without dropping the remainder', async (t) => {
  for (const [nOperations, nClients] of [[10000, 5], [10, 3], [7, 7], [2, 5], [1001, 4]]) {
    const counts = Array.from({ length: nClients }, (_, k) => operationCount({ nOperations, nClients }, k + 1))
    t.equal(counts.reduce((a, b) => a + b, 0), nOperations, `${nOperations} over ${nClients}`)
    t.ok(Math.max(...counts) - Math.min(...counts) <= 1, 'evenly')
  }
})

t.test('warm-up first creates every file exactly once across the processes, then follows the workload', async (t) => {
  for (const [nFiles, nClients] of [[30, 5], [7, 3], [2, 5]]) {
    const config = { ...base, nFiles, nClients }
    const created = []
    for (let p = 1; p <= nClients; p++) {
      const creations = creationCount(config, p)
      t.equal(warmupCount(config, p), creations + config.warmup)
      for (let j = 0; j < creations; j++) {
        const op = warmupOperationAt(j, config, p)
        t.equal(op.type, 'PUT')
        created.push(op.key)
      }
      t.same(warmupOperationAt(creations + 3, config, p), operationAt(3, config, p), 'then the measured sequence')
    }
    t.same(created.sort(), Array.from({ length: nFiles }, (_, f) => `file-${f}`).sort(), `nFiles=${nFiles}, nClients=${nClients}`)
  }
  t.equal(warmupCount({ ...base, warmup: 0 }, 1), 0, 'warmup=0 turns it all off')
})
