'use strict'
// The runtime dimension of the grid: --runtime values (and --node, which is --runtime=node@...) become cells per exact
// version (ids, binaries, V8 and libuv), duplicates run once, kinds a runtime cannot run are skipped with the reason, what
// only Node's servers can do is refused for Bun and Deno, and --clientNode picks the one Node of every client. Binaries
// here are stand-ins that report a version.

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { ConfigError, ROOT } = require('../../../lib/config')
const { planSweep } = require('../../../sweep/commands')
const { resolveRuntimes } = require('../../../sweep/plan/runtimes')
const { fakeNode } = require('../../fixtures/fake-node')
const { fakeRuntimeScript } = require('../../fixtures/fake-registry')

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
  t.match(cells.find((c) => c.id === 'sync-s1-c1-node-v20.1.0'), { runtime: 'node-v20.1.0', runtimeBin: older, runtimeArgs: [], v8: '11.3', uv: '1.46.0' })
  t.match(cells.find((c) => c.id === 'sync-reuseport-s2-c1-node-v96.1.0'), { runtime: 'node-v96.1.0', runtimeBin: newer, v8: '15.1', nServers: 2 })
  t.same(plan.grid.runtime, ['node-v96.1.0', 'node-v20.1.0'])
  t.match(plan.envExtra.runtimes, [{ spec: `node@${newer}`, source: 'path', node: 'v96.1.0', v8: '15.1', uv: '1.60.0' }, { node: 'v20.1.0' }])
  t.same(plan.envExtra.skipped, ['sync-reuseport on Node v20.1.0: server.listen({ reusePort }) needs Node >= 22.12.0 (22.x) or >= 23.1.0; this is v20.1.0'])
  t.equal(plan.options.rounds, 2)
  t.match(plan.options.clientNode, { spec: 'sweep', path: process.execPath, node: process.version }, 'clients run on the sweep\'s Node')
})

t.test('without --node every cell runs on the sweep\'s Node and says so; --clientNode sets the clients\'', async (t) => {
  const dir = t.testdir()
  const client = fakeNode(path.join(dir, 'c', 'node'), 'v95.0.0')
  const plan = planSweep('run', ['--nClients=1', `--clientNode=${client}`], 'sync')
  t.match(cellsOf(plan), [{ id: 'sync-s1-c1', runtime: `node-${process.version}`, runtimeBin: process.execPath, v8: process.versions.v8 }])
  t.match(plan.options.clientNode, { spec: client, source: 'path', node: 'v95.0.0', path: client })
  t.same(plan.envExtra.skipped, [])
})

t.test('two values that are the same version run once, with a line saying so', async (t) => {
  const dir = t.testdir()
  const twin = fakeNode(path.join(dir, 'twin', 'node'), process.version)
  const lines = []
  const nodes = resolveRuntimes([`node@${process.execPath}`, `node@${twin}`, 'node'], { notify: (l) => lines.push(l) })
  t.same(nodes.map((n) => n.path), [process.execPath])
  t.same(lines, [`--runtime node@${twin} is the same as node@${process.execPath} (node-${process.version}); running it once`,
    `--runtime node is the same as node@${process.execPath} (node-${process.version}); running it once`])
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

t.test('--runtime puts Bun and Deno beside Node: each cell ends with its runtime id, runs its binary, Deno with run -A', async (t) => {
  quietly(t)
  const dir = t.testdir()
  const bun = path.join(dir, 'bun')
  const deno = path.join(dir, 'deno')
  fs.writeFileSync(bun, fakeRuntimeScript('bun', '1.4.5'), { mode: 0o755 })
  fs.writeFileSync(deno, fakeRuntimeScript('deno', '2.9.6'), { mode: 0o755 })
  const plan = planSweep('quick', [`--runtime=bun@${bun},deno@${deno}`, '--node=system'])
  const ids = cellsOf(plan).map((c) => c.id).filter((id) => !id.endsWith('-B')) // the A/A copy is the first runtime's
  t.ok(ids.includes('sync-cluster-s2-c2-doff-bun-1.4.5') && ids.includes('async-s1-c2-d1000-deno-2.9.6'), 'every cell on every runtime')
  t.equal(ids.filter((id) => id.endsWith(`-node-${process.version}`)).length, ids.length / 3, '--node=system is --runtime=node@system')
  t.match(cellsOf(plan).find((c) => c.id === 'sync-s1-c2-doff-deno-2.9.6'),
    { runtime: 'deno-2.9.6', runtimeBin: deno, runtimeArgs: ['run', '-A'], v8: '15.0-fake' })
  t.match(plan.options.clientNode, { spec: 'sweep', node: process.version }, 'the client runs on Node')
  t.throws(() => planSweep('quick', [`--runtime=bun@${bun}`, '--profile']),
    { constructor: ConfigError, message: /^--profile profiles Node servers .*bun-1\.4\.5 is not Node$/ })
  t.throws(() => planSweep('quick', [`--runtime=deno@${deno}`, '--serverHost=127.0.0.1']), /^--serverHost: a server on another host runs on that host's Node/)
})

t.test('the runtimes command: five kinds on Node, Bun and Deno at a plain folder and 1 ms; an unknown runtime exits 2', async (t) => {
  quietly(t)
  const dir = t.testdir()
  const bun = path.join(dir, 'bun')
  fs.writeFileSync(bun, fakeRuntimeScript('bun', '1.4.5'), { mode: 0o755 })
  const plan = planSweep('runtimes', [`--runtime=node,bun@${bun}`, '--seed=4'])
  t.same(new Set(cellsOf(plan).map((c) => c.kind)), new Set(['sync', 'async', 'sync-cluster', 'async-cluster', 'sync-pool']))
  t.equal(cellsOf(plan).length, 5 * 2 * 2, 'each kind on each runtime at each storage')
  t.match(plan, { grid: { aa: null }, options: { rounds: 6, budget: 900 } })
  const res = spawnSync(path.join(ROOT, 'run_benchmark.sh'), ['quick', '--runtime=rust'], { encoding: 'utf8' })
  t.equal(res.status, 2)
  t.match(res.stderr, /^run_benchmark\.sh: --runtime must be node, bun or deno, each optionally @VERSION: .*, got "rust"\n$/)
})
