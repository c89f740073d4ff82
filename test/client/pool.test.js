'use strict'
// client/pool.js and client/pool-worker.js: client processes kept alive across cells; a window
// runs the next operations of a cell in each of its processes; a pass's windows are kept or
// dropped; take hands over what was kept and starts afresh; a process that dies fails its askers.

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { openPool, PoolError } = require('../../client/pool')
const { loadConfig } = require('../../lib/config')
const { decodeBitset } = require('../../client/ledger')
const { verifyFiles, fileSizes } = require('../../client/verify')
const { startServer, stopChild } = require('../fixtures/server')

async function setup (t, kind = 'sync') {
  const dataPath = t.testdir()
  const srv = await startServer(t, kind, { dataPath })
  const { config } = loadConfig([`--serverPort=${srv.port}`, `--dataPath=${dataPath}`, '--nClients=2', '--warmup=1', '--nFiles=4', '--nOperations=400'])
  const log = fs.openSync(path.join(dataPath, '..', `pool-${process.pid}-${Date.now()}.log`), 'a')
  const pool = openPool({ size: 3, logFd: log, label: dataPath })
  t.teardown(async () => { await pool.close(); fs.closeSync(log) })
  return { pool, config, srv, dataPath }
}

t.test('windows run each cell\'s next operations; kept windows are taken, dropped ones are not, and every write is verified', async (t) => {
  const { pool, config } = await setup(t)
  t.equal(pool.pids().length, 3)
  const sizes = fileSizes(config)
  await pool.open('cell', config, 'abcd1234')
  t.match(await pool.phase('cell', 2, 'create'), { failed: 0, announced: '/_stats' }, 'the server announced its telemetry')
  t.match(await pool.phase('cell', 2, 'warm'), { failed: 0 })
  const w1 = await pool.window('cell', 2, 0, 20)
  t.match(w1, { failed: 0 })
  t.ok(w1.wallUs > 0 && w1.cpuUs.length === 2, 'wall time to the last process, CPU per process')
  await pool.settle(true)
  await pool.window('cell', 2, 20, 40)
  await pool.settle(false) // a disturbed pass: its records go, its writes stay acknowledged
  await pool.window('cell', 2, 40, 60)
  await pool.settle(true)
  const taken = await pool.take('cell', 2)
  t.same(taken.map((p) => p.index), [1, 2])
  const count = (p) => p.result.latency.GET.count + p.result.latency.PUT.count
  t.same(taken.map(count), [40, 40], 'two kept windows of 20 operations per process')
  const acks = taken.map((p) => ({ w: decodeBitset(p.result.acks.w), c: decodeBitset(p.result.acks.c) }))
  const v = verifyFiles({ config: { ...config, nOperations: 120 }, runId: 'abcd1234', sizesBefore: sizes, acks })
  t.match(v, { ok: true, lost: 0, unknown: 0, duplicated: 0 }, 'the dropped window\'s writes are acknowledged too')
  await pool.window('cell', 2, 60, 70)
  await pool.settle(true)
  t.same((await pool.take('cell', 2)).map(count), [10, 10], 'take starts the records afresh')
  t.ok(pool.alive())
})

t.test('a window says what failed, by kind, over its processes', async (t) => {
  const { pool, config, srv } = await setup(t)
  await pool.open('cell', config, 'abcd1234')
  await pool.phase('cell', 2, 'create')
  t.same((await pool.window('cell', 2, 0, 10)).failures, {}, 'none')
  await stopChild(srv)
  const w = await pool.window('cell', 2, 10, 20)
  t.equal(w.failed, 20)
  t.equal(Object.values(w.failures).reduce((a, b) => a + b, 0), 20, `every failure has its kind: ${JSON.stringify(w.failures)}`)
})

t.test('a pool process that dies fails what is asked of it, and the pool says it is not alive', async (t) => {
  const { pool, config } = await setup(t)
  await pool.open('cell', config, 'abcd1234')
  process.kill(pool.pids()[1], 'SIGKILL')
  const err = await pool.window('cell', 2, 0, 20).then(() => null, (e) => e)
  t.ok(err instanceof PoolError, `the window fails: ${err?.message}`)
  t.notOk(pool.alive())
  await t.rejects(pool.take('cell', 2), /client process \d+ ended \(SIGKILL\)/)
})
