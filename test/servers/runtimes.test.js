'use strict'
// The servers on Bun and Deno (the newest of each in .node-cache/, which setup fills): each kind answers a trace as it does
// on Node, its telemetry names the runtime that ran and leaves out the event-loop figures those runtimes only pretend to
// have, and how a cluster's processes share the port is read from /proc, not assumed. Run: npx tap test/servers/runtimes.test.js

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { startServer, request } = require('../fixtures/server')
const { cachedRuntimes, RUNTIMES } = require('../../lib/install/runtime-specs')
const { listenMechanism } = require('../../lib/machine/listeners')
const { processTable, processTree } = require('../../lib/machine/cpu-share')

const KINDS = ['sync', 'async', 'sync-cluster', 'async-cluster']
// What each runtime's cluster was seen to do on Linux: Node's primary accepts and hands out connections; Bun's workers each
// bind the port with SO_REUSEPORT; Deno's follows Node's.
const CLUSTER = { node: 'primary round-robin', bun: 'reusePort', deno: 'primary round-robin' }

async function trace (srv) {
  const steps = [{ method: 'POST', path: '/put?key=alpha', body: 'c|b|a\n' }, { path: '/get?key=alpha' }, { path: '/get?key=nope' },
    { path: '/get?key=..' }, { method: 'POST', path: '/put?key=alpha', body: '' }, { method: 'DELETE', path: '/get?key=alpha' }]
  const answers = []
  for (const step of steps) {
    const { status, body } = await request(srv, step)
    answers.push(`${status} ${body}`)
  }
  return answers
}

const stats = async (srv) => JSON.parse((await request(srv, { path: '/_stats' })).body)
const mechanismOf = (srv) => listenMechanism(srv.port, srv.pid, [...processTree(processTable(), srv.pid)])

for (const name of ['bun', 'deno']) {
  const [cached] = cachedRuntimes(name)
  const skip = cached ? false : `no ${RUNTIMES[name].title} in .node-cache/ (./run_benchmark.sh setup installs it from the npm registry)`
  t.test(`${name}: every kind answers as on Node, names its runtime and shares the port as seen in /proc`, { skip }, async (t) => {
    const id = `${name}-${cached.version}`
    for (const kind of KINDS) {
      const root = t.testdir({ node: {}, other: {} })
      const node = await startServer(t, kind, { dataPath: path.join(root, 'node') })
      const other = await startServer(t, kind, { dataPath: path.join(root, 'other'), execPath: cached.path, execArgs: RUNTIMES[name].args })
      t.same(await trace(other), await trace(node), `${kind}: the same answers`)
      t.same(fs.readFileSync(path.join(root, 'other', 'alpha'), 'utf8'), 'c|b|a\n', `${kind}: the same file`)
      const { processes } = await stats(other)
      t.same([...new Set(processes.map((p) => p.runtime))], [id], `${kind}: every process says it ran ${id}`)
      t.same(processes.filter((p) => p.role !== 'primary').map((p) => p.utilization), processes.filter((p) => p.role !== 'primary').map(() => null),
        `${kind}: no event-loop utilization where the runtime has none`)
      const multi = kind.endsWith('-cluster')
      t.equal(mechanismOf(node).mechanism, multi ? CLUSTER.node : 'one process', `${kind} on Node`)
      t.equal(mechanismOf(other).mechanism, multi ? CLUSTER[name] : 'one process', `${kind} on ${id}`)
      for (const srv of [node, other]) srv.child.kill('SIGTERM')
      t.same([await node.exit, await other.exit].map((e) => e.code), [0, 0], `${kind}: both stop on SIGTERM with 0`)
    }
  })
}
