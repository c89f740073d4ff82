'use strict'
// client/verify.js: reading the data files back finds lost, duplicated, torn and unknown records,
// and ignores what was in the files before the run.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const workload = require('../../lib/workload')
const { recordTag, recordTagLength, createBitset, setBit } = require('../../client/ledger')
const { fileSizes, verifyFiles } = require('../../client/verify')

const RUN = '0badc0de'
const base = { value: 'some text', readsPerWrite: 1, nFiles: 3, nClients: 2, nOperations: 8, warmup: 2 }
const PLAN = { w: [workload.warmupCount, workload.warmupOperationAt], c: [workload.operationCount, workload.operationAt] }

// Every PUT the run planned: { phase, p, i, key, line }.
function plannedPuts (config) {
  const puts = []
  for (let p = 1; p <= config.nClients; p++) {
    for (const [phase, [count, opAt]] of Object.entries(PLAN)) {
      for (let i = 0; i < count(config, p); i++) {
        const op = opAt(i, config, p)
        if (op.type === 'PUT') puts.push({ phase, p, i, key: op.key, line: config.value + recordTag(RUN, phase, p, i) })
      }
    }
  }
  return puts
}

/**
 * Writes the files as a server would have (old content first), all records acknowledged but those
 * `unacked(puts)` picks, and verifies them. `edit(files, puts)` changes what the run appended.
 */
function check (t, { old = {}, edit = () => {}, unacked = () => [], over = {} } = {}) {
  const config = { ...base, ...over, dataPath: t.testdir() }
  for (const [key, text] of Object.entries(old)) fs.writeFileSync(path.join(config.dataPath, key), text)
  const sizesBefore = fileSizes(config)
  const puts = plannedPuts(config)
  const files = {}
  for (const put of puts) files[put.key] = (files[put.key] || '') + put.line
  edit(files, puts)
  for (const [key, text] of Object.entries(files)) fs.appendFileSync(path.join(config.dataPath, key), text)
  const acks = Array.from({ length: config.nClients }, (_, k) => ({
    w: createBitset(workload.warmupCount(config, k + 1)), c: createBitset(workload.operationCount(config, k + 1))
  }))
  const failed = unacked(puts)
  for (const put of puts) if (!failed.includes(put)) setBit(acks[put.p - 1][put.phase], put.i)
  return { v: verifyFiles({ config, runId: RUN, sizesBefore, acks }), puts }
}

t.test('a faithful server passes, whatever the files held before the run', async (t) => {
  const { v, puts } = check(t, { old: { 'file-0': 'torn old line without newline', 'file-1': `some text 12345678:c1-0\nsome text ${RUN}:c9-9\n` } })
  t.match(v, { checked: true, ok: true, files: 3, records: puts.length, acknowledged: puts.length, lost: 0, duplicated: 0, torn: 0, unknown: 0 })
  t.equal(v.bytes, v.expectedBytes)
  t.equal(v.bytes, puts.reduce((n, put) => n + Buffer.byteLength(put.line), 0))
})

t.test('an acknowledged record that is missing is lost', async (t) => {
  const { v } = check(t, {
    edit: (files, puts) => {
      for (const put of [puts[0], puts[1], puts[2]]) files[put.key] = files[put.key].replace(put.line, '')
    }
  })
  t.match(v, { ok: false, lost: 3, duplicated: 0, torn: 0, unknown: 0 })
  t.equal(v.expectedBytes - v.bytes, 3 * (base.value.length + recordTag(RUN, 'w', 1, 0).length), 'the bytes do not add up')
})

t.test('a record that was sent but not acknowledged may be in the file or not', async (t) => {
  const { v: fine, puts } = check(t, {
    edit: (files, puts) => { files[puts[0].key] = files[puts[0].key].replace(puts[0].line, '') }, // failed, not written
    unacked: (puts) => [puts[0], puts[3]] // puts[3] failed but was written
  })
  t.match(fine, { ok: true, records: puts.length - 1, acknowledged: puts.length - 2, lost: 0, unknown: 0 })
  t.equal(fine.bytes, fine.expectedBytes)
})

t.test('a record written twice is duplicated', async (t) => {
  const { v } = check(t, { edit: (files, puts) => { files[puts[4].key] += puts[4].line } })
  t.match(v, { ok: false, lost: 0, duplicated: 1, torn: 0, unknown: 0 })
  t.ok(v.bytes > v.expectedBytes)
})

t.test('interleaved and unterminated lines are torn, and their records lost', async (t) => {
  const { v } = check(t, {
    edit: (files, puts) => {
      const [a, b] = puts.filter((put) => put.key === 'file-1')
      const rest = files['file-1'].replace(a.line, '').replace(b.line, '')
      files['file-1'] = a.line.slice(0, 5) + b.line + a.line.slice(5) + rest
      files['file-2'] += 'some te'
    }
  })
  t.match(v, { ok: false, lost: 2, duplicated: 0, torn: 3, unknown: 0 })
})

t.test('records this run never sent are unknown', async (t) => {
  const { v } = check(t, {
    edit: (files) => {
      files['file-0'] += [
        'some text 12345678:c1-0', // another run
        `some text ${RUN}:c1-1`, // operation 1 of process 1 is a GET
        `some text ${RUN}:c1-4`, // process 1 has 4 operations
        `some text ${RUN}:c3-0`, // there is no process 3
        `some text ${RUN}:c1-2` // a PUT to file-1, found in file-0
      ].join('\n') + '\n'
    }
  })
  t.match(v, { ok: false, lost: 0, duplicated: 0, torn: 0, unknown: 5 })
})

t.test('files longer than the 1 MiB reading chunk are read whole, line by line', async (t) => {
  // 2 x 25000 PUTs of ~28 bytes into one file: 1.4 MB after 1 MB of old content, so records straddle chunks.
  const over = { nOperations: 50000, readsPerWrite: 0, nFiles: 1 }
  const old = { 'file-0': 'old record\n'.repeat(100000) }
  const { v, puts } = check(t, { over, old })
  t.match(v, { ok: true, records: puts.length, acknowledged: puts.length, lost: 0, duplicated: 0, torn: 0, unknown: 0 })
  t.ok(v.bytes > 1.3e6 && v.bytes === v.expectedBytes, `${v.bytes} bytes`)
  const { v: torn } = check(t, { over, old, edit: (files) => { files['file-0'] += 'some te' } })
  t.match(torn, { ok: false, records: puts.length, torn: 1, lost: 0 }, 'an unterminated last line is still torn')
})

t.test('the length of a record tag is computed without building it, for any process and index', async (t) => {
  for (const p of [1, 9, 10, 99, 100, 256]) {
    for (const i of [0, 9, 10, 99, 100, 9999, 10000, 999999, 1000000, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
      t.equal(recordTagLength(p, i), recordTag(RUN, 'c', p, i).length, `process ${p}, operation ${i}`)
    }
  }
})
