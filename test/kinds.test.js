'use strict'
// The table of kinds: store and process model of each, and which Node and kernel can run reusePort.

const t = require('tap')
const { KINDS, KIND_NAMES, isMultiProcess, kindOf, kindProblem, reusePortProblem } = require('../lib/kinds')

t.test('every kind is a store and a process model, and each pair has exactly one kind', async (t) => {
  t.same(KIND_NAMES, ['sync', 'async', 'sync-cluster', 'async-cluster', 'sync-reuseport', 'async-reuseport', 'sync-lb', 'async-lb'])
  for (const store of ['sync', 'async']) {
    for (const model of ['single', 'cluster', 'reuseport', 'lb']) {
      const kind = kindOf(store, model)
      t.same(KINDS[kind], { store, model }, `${store} × ${model} is ${kind}`)
      t.equal(isMultiProcess(kind), model !== 'single')
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

t.test('only the reuseport kinds depend on the Node that runs them', async (t) => {
  const old = { version: 'v20.20.2', platform: 'linux', release: '6.1.0' }
  t.same(KIND_NAMES.filter((k) => kindProblem(k, old)), ['sync-reuseport', 'async-reuseport'])
  t.same(KIND_NAMES.filter((k) => kindProblem(k, { ...old, version: 'v24.21.0' })), [])
})
