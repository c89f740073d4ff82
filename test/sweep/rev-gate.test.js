'use strict'
// sweep/rev-gate.js: --fail-on=slower with --rev fails the run when a "this tree vs REF" throughput verdict is slower,
// and passes it when each is the same, faster or undecided; other comparisons and metrics are not its business.

const t = require('tap')
const path = require('node:path')
const { revGate, gateFolder } = require('../../sweep/rev-gate')

// Comparisons as verdicts.json holds them, with their figures given.
const entry = (label, verdict, [estimate, low, high], more = {}) => ({ a: 'x', b: 'y', label, kind: 'rev', metric: 'opsPerSec', better: 'higher',
  estimate, low, high, n: 6, confidence: 0.969, margin: 0.05, verdict, ...more })
const same = entry('async, 1 process: this tree vs 1a2b3c4', 'same', [1.01, 0.98, 1.03])
const slower = entry('sync, 1 process: this tree vs 1a2b3c4', 'slower', [0.62, 0.6, 0.64])

t.test('a revision comparison decided slower fails the gate, naming it with its interval', async (t) => {
  t.same(revGate([same, slower]), { status: 1, lines: ['--fail-on=slower: this tree is slower beyond noise in 1 of 2:',
    'sync, 1 process: this tree vs 1a2b3c4: 0.62× [0.60–0.64]'] })
})

t.test('the same, faster and undecided pass; so do other comparisons and other metrics that are slower', async (t) => {
  const others = [entry('sync vs async, 1 process', 'slower', [0.5, 0.4, 0.6], { kind: 'store' }),
    entry('sync, 1 process: this tree vs 1a2b3c4', 'slower', [1.2, 1.1, 1.3], { metric: 'serverCpuPerReqUs', better: 'lower' })]
  const faster = entry('sync, cluster of 2 workers: this tree vs 1a2b3c4', 'faster', [1.2, 1.1, 1.3])
  const undecided = entry('async, cluster of 2 workers: this tree vs 1a2b3c4', 'undecided', [0.97, 0.9, 1.04])
  t.same(revGate([same, faster, undecided, ...others]), { status: 0, lines: ['--fail-on=slower: passed, nothing slower beyond noise in 3 ' +
    'comparisons of this tree and a revision; undecided, not judged slower: async, cluster of 2 workers: this tree vs 1a2b3c4: 0.97× [0.90–1.04]'] })
})

t.test('a folder is judged on its verdicts.json; one without is a failure', async (t) => {
  const verdicts = (comparisons) => ({ 'verdicts.json': JSON.stringify({ comparisons }) })
  const dir = t.testdir({ ok: verdicts([same]), bad: verdicts([slower]) })
  const said = []
  const write = process.stderr.write
  process.stderr.write = (line) => said.push(line)
  try {
    t.equal(gateFolder(path.join(dir, 'ok')), 0)
    t.equal(gateFolder(path.join(dir, 'bad')), 1)
    t.equal(gateFolder(dir), 1, 'no verdicts.json')
  } finally {
    process.stderr.write = write
  }
  t.match(said.join(''), /passed[\s\S]*slower beyond noise in 1 of 1[\s\S]*no verdicts to judge/)
})
