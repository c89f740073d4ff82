'use strict'
// The sweep's grid: list flags and their validation, cells, their configs and their ids.

const t = require('tap')
const { ConfigError } = require('../lib/config')
const { planSweep, takeLists, cross, cellId, sizedValue, SWEEP_LISTS } = require('../sweep/grid')

t.test('list flags are split, validated element by element, and deduplicated', async (t) => {
  const { lists, rest } = takeLists(['--nServers=1,2,4,2', '--kinds=sync', '--nOperations=5', '--readsPerWrite=0,inf'], SWEEP_LISTS)
  t.same(lists, { nServers: [1, 2, 4], kinds: ['sync'], readsPerWrite: [0, 'inf'] })
  t.same(rest, ['--nOperations=5'])
})

t.test('a bad list element is a ConfigError naming the flag, the element and the list', async (t) => {
  for (const [arg, message] of [
    ['--nServers=1,0', '--nServers must be an integer from 1 to 256, got "0" in "1,0"'],
    ['--nClients=', '--nClients must be an integer from 1 to 256, got ""'],
    ['--kinds=sync,,async', '--kinds must be one of sync, async, sync-cluster, async-cluster, got "" in "sync,,async"'],
    ['--uvThreadpoolSize=2000', '--uvThreadpoolSize must be an integer from 1 to 1024, got "2000"'],
    ['--readsPerWrite=-1', '--readsPerWrite must be an integer from 0 to 1000000, got "-1"']
  ]) {
    t.throws(() => takeLists([arg], SWEEP_LISTS), new ConfigError(message), arg)
  }
})

t.test('cross spans every combination in order', async (t) => {
  t.same(cross([['a', [1, 2]], ['b', ['x', 'y']]]), [{ a: 1, b: 'x' }, { a: 1, b: 'y' }, { a: 2, b: 'x' }, { a: 2, b: 'y' }])
})

t.test('a cell id names kind, servers and clients, and the optional dimensions given', async (t) => {
  const cell = { kind: 'sync-cluster', nServers: 2, nClients: 4, uvThreadpoolSize: 8, readsPerWrite: 4, valueBytes: 1024 }
  t.equal(cellId(cell, []), 'sync-cluster-s2-c4')
  t.equal(cellId(cell, ['uvThreadpoolSize', 'readsPerWrite', 'valueBytes']), 'sync-cluster-s2-c4-uv8-rpw4-v1024')
})

t.test('a sized value has exactly that many bytes of the configured text', async (t) => {
  t.equal(sizedValue('abc', 7), 'abcabca')
  t.equal(sizedValue('abcdef', 2), 'ab')
})

t.test('the quick grid: nServers only for cluster kinds, each cell validated with its own config', async (t) => {
  const plan = planSweep('quick', ['--seed=1', '--nOperations=50'])
  const ids = [...new Set(plan.runs.map((r) => r.cell.id))].sort()
  t.same(ids, ['async-cluster-s2-c1', 'async-cluster-s2-c4', 'async-s1-c1', 'async-s1-c4',
    'sync-cluster-s2-c1', 'sync-cluster-s2-c4', 'sync-s1-c1', 'sync-s1-c4'])
  const cell = plan.runs.find((r) => r.cell.id === 'sync-cluster-s2-c4').cell
  t.match(cell.config, { nServers: 2, nClients: 4, nOperations: 50, serverPort: 0 })
  t.equal(plan.options.seed, 1)
})

t.test('optional dimensions multiply the grid and reach each cell\'s config', async (t) => {
  const plan = planSweep('sweep', ['--kinds=async', '--nClients=2', '--uvThreadpoolSize=1,8', '--valueBytes=10,100', '--repeats=2', '--serverPort=9000'])
  const cells = [...new Map(plan.runs.map((r) => [r.cell.id, r.cell])).values()]
  t.same(cells.map((c) => c.id).sort(), ['async-s1-c2-uv1-v10', 'async-s1-c2-uv1-v100', 'async-s1-c2-uv8-v10', 'async-s1-c2-uv8-v100'])
  t.equal(plan.runs.length, 8)
  const cell = cells.find((c) => c.id === 'async-s1-c2-uv8-v100')
  t.equal(Buffer.byteLength(cell.config.value), 100)
  t.equal(cell.uvThreadpoolSize, 8)
  t.equal(cell.config.serverPort, 9000, 'a given serverPort wins over the free port')
})

t.test('run KIND uses config.json\'s nServers and nClients', async (t) => {
  const plan = planSweep('run', ['--nServers=3'], 'async-cluster')
  t.same(plan.runs.map((r) => r.cell.id), ['async-cluster-s3-c5'])
  t.throws(() => planSweep('run', [], 'turbo'), /run KIND: KIND must be one of .*, got "turbo"/)
})

t.test('a payload too large for bodyLimit names the cell', async (t) => {
  t.throws(() => planSweep('quick', ['--valueBytes=10,100', '--bodyLimit=120']), /^cell .*-v100: value must be at most bodyLimit - 64/)
})
