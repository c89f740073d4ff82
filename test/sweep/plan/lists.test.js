'use strict'
// List-valued flags and their validation, and the combinations they span.

const t = require('tap')
const { ConfigError } = require('../../../lib/config')
const { SWEEP_LISTS } = require('../../../sweep/plan/options')
const { takeLists, cross } = require('../../../sweep/plan/lists')

t.test('list flags are split, validated element by element, and deduplicated', async (t) => {
  const { lists, rest } = takeLists(['--nServers=1,2,4,2', '--kinds=sync', '--nOperations=5', '--readsPerWrite=0,inf'], SWEEP_LISTS)
  t.same(lists, { nServers: [1, 2, 4], kinds: ['sync'], readsPerWrite: [0, 'inf'] })
  t.same(rest, ['--nOperations=5'])
})

t.test('a bad list element is a ConfigError naming the flag, the element and the list', async (t) => {
  for (const [arg, message] of [
    ['--nServers=1,0', '--nServers must be an integer from 1 to 256, or auto, got "0" in "1,0"'],
    ['--nClients=', '--nClients must be an integer from 1 to 256, got ""'],
    ['--kinds=sync,,async',
      '--kinds must be one of sync, async, sync-cluster, async-cluster, sync-reuseport, async-reuseport, sync-lb, async-lb, sync-pool, ' +
      'got "" in "sync,,async"'],
    ['--uvThreadpoolSize=2000', '--uvThreadpoolSize must be an integer from 1 to 1024, got "2000"'],
    ['--readsPerWrite=-1', '--readsPerWrite must be an integer from 0 to 1000000, or inf, got "-1"'],
    ['--schedPolicy=rr,RR', '--schedPolicy must be rr or none, got "RR" in "rr,RR"']
  ]) {
    t.throws(() => takeLists([arg], SWEEP_LISTS), new ConfigError(message), arg)
  }
})

t.test('cross spans every combination in order', async (t) => {
  t.same(cross([['a', [1, 2]], ['b', ['x', 'y']]]), [{ a: 1, b: 'x' }, { a: 1, b: 'y' }, { a: 2, b: 'x' }, { a: 2, b: 'y' }])
})
