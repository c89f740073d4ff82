'use strict'
// A two-version mini sweep: the machine's Node and the newest LTS (from .node-cache, installed on
// demand), with the reuseport kind where the Node has it; rows, env.json, logs, the versions
// section and versions.md name the exact versions, and clients stay on one Node throughout.

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { runSweep, resultsDir, readSummary, loggedPids, isGone } = require('../fixtures/sweep-run')
const { reusePortProblem } = require('../../lib/kinds')
const { supportedLts } = require('../../lib/install/node-lines')
const { probeNode, systemNode, findCached } = require('../../lib/install/node-versions')
const { newestInRegistry } = require('../../lib/install/node-install')

const system = probeNode(systemNode())
const major = String(supportedLts().reverse().find((m) => !system.node.startsWith(`v${m}.`)))
let skip = false
if (!findCached({ type: 'major', version: major })) {
  // Installing it reaches the npm registry: only with TEST_REGISTRY=1, as in test/lib/node-install.test.js.
  if (process.env.TEST_REGISTRY !== '1') {
    skip = `Node ${major} is not in .node-cache, and installing it reaches the npm registry: set TEST_REGISTRY=1`
  } else {
    try {
      newestInRegistry(major)
    } catch (err) {
      skip = `Node ${major} is not in .node-cache and cannot be installed: ${err.message}`
    }
  }
}

t.test(`a sweep over system and Node ${major} runs every cell on its version and compares them`, { skip, timeout: 600000 }, async (t) => {
  const root = t.testdir({ results: {}, data: {} })
  const { code, stderr } = await runSweep(t, ['sweep', '--kinds=sync,async,sync-reuseport', '--nServers=2', '--nClients=2',
    `--node=system,${major}`, '--rounds=1', '--maxRounds=1', '--passes=2', '--window=40', '--warmOps=40', '--maxInterference=1', '--aa=off', '--seed=3',
    `--results=${path.join(root, 'results')}`, `--dataPath=${path.join(root, 'data')}`])
  t.equal(code, 0, stderr)
  const dir = resultsDir(path.join(root, 'results'))
  const env = JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8'))
  const [sys, lts] = env.runtimes
  t.match(sys, { spec: 'node@system', source: 'system', ...system, id: `node-${system.node}` })
  t.match(lts, { spec: `node@${major}`, node: new RegExp(`^v${major}\\.`), v8: String, uv: String })
  t.same(env.grid.runtime, [sys.id, lts.id])
  t.match(env.options.clientNode, { spec: 'sweep', node: system.node })
  if (reusePortProblem({ version: sys.node })) t.match(stderr, `skipped sync-reuseport on Node ${sys.node}: `)

  const rows = readSummary(dir)
  const expected = [sys, lts].flatMap((n) => ['sync-s1', 'async-s1', ...(reusePortProblem({ version: n.node }) ? [] : ['sync-reuseport-s2'])]
    .map((c) => `${c}-c2-node-${n.node}`))
  t.same(rows.map((r) => r.cell).sort(), expected.sort())
  for (const row of rows) {
    const node = row.runtime === sys.id ? sys : lts
    t.match(row, { valid: 'true', runtime: node.id, v8: node.v8, uv: node.uv }, `${row.cell} names its Node`)
    const json = JSON.parse(fs.readFileSync(path.join(dir, row.json), 'utf8'))
    t.same([...new Set(json.serverStats.processes.map((p) => p.runtime))], [node.id], `${row.cell}: every server process ran ${node.node}`)
    t.equal(json.env.node, system.node, `${row.cell}: the client ran on the sweep's Node`)
    const log = fs.readFileSync(path.join(dir, `cells/${row.cell}.log`), 'utf8')
    if (node === lts) t.match(log, `: ${lts.path} servers/${row.kind}.js --config=`, `${row.cell}: the log names the binary`)
    if (row.kind === 'sync-reuseport') t.equal(row.workerShares.split(';').length, 2, 'both reuseport processes counted')
  }
  const md = fs.readFileSync(path.join(dir, 'versions.md'), 'utf8')
  t.match(md, /^# Node versions compared: \d{4}-\d\d-\d\d\n/)
  for (const n of [sys, lts]) t.match(md, new RegExp(`\\n\\| ${n.node} \\| ${n.v8.replace(/\./g, '\\.')} \\| ${n.uv.replace(/\./g, '\\.')} \\| `))
  t.match(md, '| sync ops/s [95% CI] | async ops/s [95% CI] | sync/async |')
  t.match(fs.readFileSync(path.join(dir, 'report.html'), 'utf8'), '<h2>Node versions</h2>')
  t.match(stderr, new RegExp(`\\nsync-s1-c2-node-${lts.node.replace(/\./g, '\\.')} +1/1 `), 'the table names the versions')
  t.same(loggedPids(dir).filter((pid) => !isGone(pid)), [], 'no process is left')
})
