'use strict'
// The table of kinds: store and process model of each, and which Node and kernel can run reusePort.

const t = require('tap')
const { KINDS, KIND_NAMES, isMultiProcess, kindOf, kindProblem, reusePortProblem, fsyncProblem, modelLabel, pairLabel } = require('../../lib/kinds')
const { checkHaproxy } = require('../../lib/haproxy-check')

t.test('every kind is a store and a process model, and each pair has exactly one kind', async (t) => {
  t.same(KIND_NAMES, ['sync', 'async', 'sync-cluster', 'async-cluster', 'sync-reuseport', 'async-reuseport', 'sync-lb', 'async-lb', 'sync-pool'])
  for (const store of ['sync', 'async']) {
    for (const model of ['single', 'cluster', 'reuseport', 'lb', 'pool']) {
      const kind = kindOf(store, model)
      if (store === 'async' && model === 'pool') {
        t.equal(kind, undefined, 'no async pool: an async store does not block its thread')
        continue
      }
      t.same(KINDS[kind], { store, model }, `${store} × ${model} is ${kind}`)
      // nServers is the count of serving processes; the pool's threads are libuv's count.
      t.equal(isMultiProcess(kind), !['single', 'pool'].includes(model), `${kind}: nServers applies`)
    }
  }
  t.equal(kindOf('sync', 'balancer'), undefined)
})

t.test('reusePort needs Node 22.12+ on 22.x or 23.1+, on Linux 3.9+', async (t) => {
  const linux = { platform: 'linux', release: '6.1.0-18-amd64' }
  for (const [version, ok] of [['v20.20.2', false], ['v22.11.0', false], ['v22.12.0', true], ['v22.23.3', true],
    ['v23.0.0', false], ['v23.1.0', true], ['v24.21.0', true], ['v26.10.0', true], ['v100.0.0', true]]) {
    const problem = reusePortProblem({ version, ...linux })
    t.equal(problem === null, ok, `${version}: ${problem}`)
    if (!ok) t.match(problem, `needs Node >= 22.12.0 (22.x) or >= 23.1.0; this is ${version}`)
  }
  t.match(reusePortProblem({ version: 'v24.0.0', platform: 'win32', release: '10' }), /not supported on win32/)
  t.match(reusePortProblem({ version: 'v24.0.0', platform: 'linux', release: '3.8.13' }), /needs Linux >= 3.9; this kernel is 3.8.13/)
  t.equal(reusePortProblem({ version: 'v24.0.0', platform: 'linux', release: '3.9.0' }), null)
})

t.test('only the reuseport kinds depend on the Node that runs them; the -lb kinds on HAProxy alone', async (t) => {
  const old = { version: 'v20.20.2', platform: 'linux', release: '6.1.0' }
  const lb = checkHaproxy() ? ['sync-lb', 'async-lb'] : [] // this machine may lack HAProxy
  t.same(KIND_NAMES.filter((k) => kindProblem(k, old)), ['sync-reuseport', 'async-reuseport', ...lb])
  t.same(KIND_NAMES.filter((k) => kindProblem(k, { ...old, version: 'v24.21.0' })), lb)
  for (const kind of lb) t.equal(kindProblem(kind), checkHaproxy(), `${kind}: what HAProxy lacks`)
})

t.test('fsync=group is for the async kinds only, and says why', async (t) => {
  for (const kind of KIND_NAMES) {
    t.equal(fsyncProblem(kind, 'none'), null)
    t.equal(fsyncProblem(kind, 'each'), null)
    if (KINDS[kind].store === 'async') t.equal(fsyncProblem(kind, 'group'), null, `${kind} groups flushes`)
    else t.match(fsyncProblem(kind, 'group'), `fsync=group needs an async kind: a ${kind} server handles one request at a time`)
  }
  t.match(fsyncProblem('sync-pool', 'group'), 'handles one request at a time per thread')
})

t.test('every kind and process count has one wording, and every pair of kinds a label that tells the models apart', async (t) => {
  t.same(KIND_NAMES.map((k) => modelLabel(k, 2)), ['2 processes', '2 processes', 'cluster of 2 workers', 'cluster of 2 workers',
    '2 reusePort processes', '2 reusePort processes', '2 backends behind HAProxy', '2 backends behind HAProxy', '1 process + libuv-sized thread pool']
    .map((l, i) => (i < 2 ? '1 process' : l)))
  t.equal(modelLabel('sync-cluster', 1), 'cluster of 1 worker')
  t.equal(modelLabel('async-lb', 1), '1 backend behind HAProxy')
  const labels = new Set()
  for (const a of KIND_NAMES) {
    for (const b of KIND_NAMES) {
      if (a === b) continue
      const label = pairLabel({ kind: a, nServers: 2 }, { kind: b, nServers: 2 })
      t.notOk(labels.has(label), `${a} vs ${b}: "${label}" names no other pair`)
      labels.add(label)
    }
  }
  t.equal(pairLabel({ kind: 'sync-lb', nServers: 2 }, { kind: 'async-lb', nServers: 2 }), 'sync vs async, 2 backends behind HAProxy')
  t.equal(pairLabel({ kind: 'sync-lb', nServers: 2 }, { kind: 'sync', nServers: 1 }), 'sync: 2 backends behind HAProxy vs 1 process')
  t.equal(pairLabel({ kind: 'sync-reuseport', nServers: 2 }, { kind: 'sync-cluster', nServers: 2 }), 'sync: 2 reusePort processes vs cluster of 2 workers')
  t.equal(pairLabel({ kind: 'sync-cluster', nServers: 2 }, { kind: 'async', nServers: 1 }), 'sync, cluster of 2 workers vs async, 1 process')
  t.equal(pairLabel({ kind: 'sync-pool', nServers: 1 }, { kind: 'sync', nServers: 1 }), 'sync: 1 process + libuv-sized thread pool vs 1 process')
  t.equal(pairLabel({ kind: 'sync-pool', nServers: 1 }, { kind: 'async', nServers: 1 }), 'sync, 1 process + libuv-sized thread pool vs async, 1 process')
})
