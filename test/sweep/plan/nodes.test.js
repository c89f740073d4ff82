'use strict'
// The Node dimension of the grid: --node values become cells per exact version (ids, binaries,
// V8 and libuv), duplicates run once, kinds a Node cannot run are skipped with the reason, and
// --clientNode picks the one Node of every client. Binaries here are stand-ins that report a version.

const path = require('node:path')
const t = require('tap')
const { ConfigError } = require('../../../lib/config')
const { planSweep } = require('../../../sweep/commands')
const { resolveNodes } = require('../../../sweep/plan/nodes')
const { fakeNode } = require('../../fixtures/fake-node')

const cellsOf = (plan) => plan.cells ?? [...new Map(plan.runs.map((r) => [r.cell.id, r.cell])).values()]
// planSweep notes skipped cells on stderr; the tests read them from envExtra instead.
const quietly = (t) => {
  const write = process.stderr.write
  process.stderr.write = () => true
  t.teardown(() => { process.stderr.write = write })
}

t.test('each --node version is a dimension: ids, binaries and versions per cell, in every kind', async (t) => {
  quietly(t)
  const dir = t.testdir()
  const newer = fakeNode(path.join(dir, 'newer', 'node'), 'v96.1.0', { v8: '15.1', uv: '1.60.0' })
  const older = fakeNode(path.join(dir, 'older', 'node'), 'v20.1.0', { v8: '11.3', uv: '1.46.0' })
  const plan = planSweep('sweep', ['--kinds=sync,sync-reuseport', '--nServers=2', '--nClients=1', `--node=${newer},${older}`, '--aa=off', '--rounds=2'])
  const cells = cellsOf(plan)
  t.same(cells.map((c) => c.id).sort(), ['sync-reuseport-s2-c1-node-v96.1.0', 'sync-s1-c1-node-v20.1.0', 'sync-s1-c1-node-v96.1.0'])
  t.match(cells.find((c) => c.id === 'sync-s1-c1-node-v20.1.0'), { node: 'v20.1.0', nodeBin: older, v8: '11.3', uv: '1.46.0' })
  t.match(cells.find((c) => c.id === 'sync-reuseport-s2-c1-node-v96.1.0'), { node: 'v96.1.0', nodeBin: newer, v8: '15.1', nServers: 2 })
  t.same(plan.grid.node, ['v96.1.0', 'v20.1.0'])
  t.match(plan.envExtra.nodes, [{ spec: newer, source: 'path', node: 'v96.1.0', v8: '15.1', uv: '1.60.0' }, { node: 'v20.1.0' }])
  t.same(plan.envExtra.skipped, ['sync-reuseport on Node v20.1.0: server.listen({ reusePort }) needs Node >= 22.12.0 (22.x) or >= 23.1.0; this is v20.1.0'])
  t.equal(plan.options.rounds, 2)
  t.match(plan.options.clientNode, { spec: 'sweep', path: process.execPath, node: process.version }, 'clients run on the sweep\'s Node')
})

t.test('without --node every cell runs on the sweep\'s Node and says so; --clientNode sets the clients\'', async (t) => {
  const dir = t.testdir()
  const client = fakeNode(path.join(dir, 'c', 'node'), 'v95.0.0')
  const plan = planSweep('run', ['--nClients=1', `--clientNode=${client}`], 'sync')
  t.match(cellsOf(plan), [{ id: 'sync-s1-c1', node: process.version, nodeBin: process.execPath, v8: process.versions.v8, uv: process.versions.uv }])
  t.match(plan.options.clientNode, { spec: client, source: 'path', node: 'v95.0.0', path: client })
  t.same(plan.envExtra.skipped, [])
})

t.test('two values that are the same version run once, with a line saying so', async (t) => {
  const dir = t.testdir()
  const twin = fakeNode(path.join(dir, 'twin', 'node'), process.version)
  const lines = []
  const nodes = resolveNodes([process.execPath, twin], { notify: (l) => lines.push(l) })
  t.same(nodes.map((n) => n.path), [process.execPath])
  t.same(lines, [`--node ${twin} is the same Node as ${process.execPath} (${process.version}); running it once`])
})

t.test('a plan with nothing a Node can run exits 2 saying why', async (t) => {
  const dir = t.testdir()
  const older = fakeNode(path.join(dir, 'older', 'node'), 'v22.11.0')
  t.throws(() => planSweep('run', [`--node=${older}`], 'async-reuseport'), { constructor: ConfigError,
    message: 'nothing to run: async-reuseport on Node v22.11.0: server.listen({ reusePort }) needs Node >= 22.12.0 (22.x) or >= 23.1.0; this is v22.11.0' })
})

t.test('the versions command is sync and async in one process at 4 clients, 8 rounds at least, one cell per version', async (t) => {
  const dir = t.testdir()
  const a = fakeNode(path.join(dir, 'a', 'node'), 'v96.1.0')
  const b = fakeNode(path.join(dir, 'b', 'node'), 'v97.2.0')
  const plan = planSweep('versions', [`--node=${a},${b}`, '--seed=4'])
  t.same(cellsOf(plan).map((c) => c.id).sort(), ['async-s1-c4-node-v96.1.0', 'async-s1-c4-node-v97.2.0', 'sync-s1-c4-node-v96.1.0', 'sync-s1-c4-node-v97.2.0'])
  t.match(plan, { grid: { aa: null, kinds: ['sync', 'async'] }, options: { rounds: 8, budget: 600 } })
})
