'use strict'
// ./run_benchmark.sh node install|list, and --node values that cannot be had: exit 2 naming
// them, before anything runs. The registry is made unreachable (127.0.0.1:9), so no test downloads.

const path = require('node:path')
const t = require('tap')
const { runSweep } = require('../fixtures/sweep-run')
const { cachedNodes, probeNode, systemNode } = require('../../lib/install/node-versions')
const { lineStatus } = require('../../lib/install/node-lines')
const { cachedRuntimes } = require('../../lib/install/runtime-specs')

const OFFLINE = { npm_config_registry: 'http://127.0.0.1:9/' }

t.test('node list shows each cached version and the system node with its line status, then Bun and Deno', async (t) => {
  const { code, stdout } = await runSweep(t, ['node', 'list'])
  t.equal(code, 0)
  const lines = stdout.trim().split('\n').filter(Boolean)
  const expected = cachedNodes().map((n) => `${n.version}\t${lineStatus(Number(n.version.split('.')[0].slice(1)))}\t${n.path}`)
  const system = systemNode()
  if (system) {
    const { node } = probeNode(system)
    expected.push(`${node}\t${lineStatus(Number(node.split('.')[0].slice(1)))}\tsystem ${system}`)
  }
  for (const name of ['bun', 'deno']) for (const r of cachedRuntimes(name)) expected.push(`${name}-${r.version}\t${name}\t${r.path}`)
  t.same(lines, expected)
})

t.test('node install of a version that cannot be had exits 2 naming it; bad arguments exit 2 with the usage', async (t) => {
  const off = await runSweep(t, ['node', 'install', '99.0.0'], { env: OFFLINE })
  t.equal(off.code, 2)
  t.equal(off.stdout, '')
  t.equal(off.stderr, 'node 99.0.0: cannot be had: cannot reach the npm registry (ECONNREFUSED) for ' +
    `node-${process.platform}-${process.arch}@99.0.0\n`)
  for (const args of [['node', 'remove', '24'], ['node', 'install', 'x'], ['node', 'list', '24']]) {
    const { code, stderr } = await runSweep(t, args)
    t.equal(code, 2, args.join(' '))
    t.match(stderr, /^run_benchmark\.sh: node( install: "x" is not a version;)?.* use node install VERSION\.\.\. .* or node list\n$/)
  }
})

t.test('a --node or --clientNode value that cannot be had exits 2 naming it, and writes nothing', async (t) => {
  const root = t.testdir({ results: {} })
  const results = `--results=${path.join(root, 'results')}`
  const missing = await runSweep(t, ['run', 'sync', '--node=system,99.0.0', results], { env: OFFLINE })
  t.equal(missing.code, 2)
  t.match(missing.stderr, /^--runtime node@99\.0\.0: Node v99\.0\.0 is not in .*; installing it from the npm registry\n/)
  t.match(missing.stderr, new RegExp('\\nrun_benchmark\\.sh: --runtime node@99\\.0\\.0: Node v99\\.0\\.0 cannot be had: ' +
    'cannot reach the npm registry \\(ECONNREFUSED\\) for node-\\w+-\\w+@99\\.0\\.0\\n$'))
  for (const [args, message] of [
    [['quick', '--node=24,soon'], new RegExp('^run_benchmark\\.sh: --node must be a major version \\(24\\), a full version \\(24\\.21\\.0\\), ' +
      'system, or a path to a node binary, got "soon" in "24,soon"\\n$')],
    [['run', 'sync', '--node=/nonexistent/node'],
      /^run_benchmark\.sh: --runtime node@\/nonexistent\/node: \/nonexistent\/node is not a working node binary: ENOENT\n$/],
    [['run', 'sync', '--clientNode=24,26'], /^run_benchmark\.sh: --clientNode must be a major version .*, got "24,26"\n$/],
    [['peak', '--node=x'], /^run_benchmark\.sh: --node must be a major version/],
    [['peak', '--runtime=bun'], /^run_benchmark\.sh: --runtime: peak runs its servers on Node, a version each \(--node\)\n$/]
  ]) {
    const { code, stdout, stderr } = await runSweep(t, [...args, results])
    t.equal(code, 2, args.join(' '))
    t.equal(stdout, '')
    t.match(stderr, message)
  }
  t.same(require('node:fs').readdirSync(path.join(root, 'results')), [])
})
