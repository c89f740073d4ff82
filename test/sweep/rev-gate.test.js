'use strict'
// sweep/rev-gate.js: --fail-on=slower with --rev fails the run when a "this tree vs REF" throughput comparison is slower at
// the gate's level (each of k at 1 - 5%/k) and by more than the margin, and passes it when each is the same, faster,
// undecided or slower within the margin; other comparisons and metrics are not its business. Simulated runs: the same code
// fails it in at most one run in 40, a tree 10% slower nearly always.

const t = require('tap')
const path = require('node:path')
const { revGate, gateFolder } = require('../../sweep/rev-gate')
const { comparisons } = require('../../report/stats/comparisons')
const { mulberry32 } = require('../../lib/random')

// Comparisons as verdicts.json holds them, with their figures given.
// gate: the interval and verdict at the gate's level (here 97.5%, two comparisons), apart from the 95% ones.
const entry = (label, verdict, [estimate, low, high], more = {}, gate = { low: low - 0.01, high: high + 0.01, verdict }) => ({ a: 'x', b: 'y', label,
  kind: 'rev', metric: 'opsPerSec', better: 'higher', estimate, low, high, n: 8, confidence: 0.992, margin: 0.05, verdict,
  gate: { level: 0.975, n: 8, confidence: 0.984, ...gate }, ...more })
const same = entry('async, 1 process: this tree vs 1a2b3c4', 'same', [1.01, 0.98, 1.03])
const slower = entry('sync, 1 process: this tree vs 1a2b3c4', 'slower', [0.62, 0.6, 0.64])

t.test('a revision comparison decided slower fails the gate, naming it with its interval', async (t) => {
  t.same(revGate([same, slower]), { status: 1, lines: ['--fail-on=slower: this tree is slower beyond noise and the ±5% margin in 1 of 2 (each ' +
    'interval at 97.5%, 95% for the 2 together):', 'sync, 1 process: this tree vs 1a2b3c4: 0.62× [0.59–0.65]'] })
})

t.test('slower beyond noise but by less than the margin passes, named: two processes of one server can differ as much', async (t) => {
  const slight = entry('sync, 1 process: this tree vs 1a2b3c4', 'slower', [0.96, 0.94, 0.98], {}, { low: 0.93, high: 0.99, verdict: 'slower' })
  t.same(revGate([slight, same]), { status: 0, lines: ['--fail-on=slower: passed, nothing slower beyond noise and margin in 2 comparisons of ' +
    'this tree and a revision (each interval at 97.5%, 95% for the 2 together); slower within the ±5% margin, as two processes of one server ' +
    'can be, not judged: sync, 1 process: this tree vs 1a2b3c4: 0.96× [0.93–0.99]'] })
  const beyond = entry('sync, 1 process: this tree vs 1a2b3c4', 'slower', [0.94, 0.92, 0.96], {}, { low: 0.91, high: 0.97, verdict: 'slower' })
  t.equal(revGate([beyond, same]).status, 1, '6% slower: beyond the margin')
})

t.test('slower at 95% alone is not slower at the gate\'s level: it passes, named as undecided, with what its rounds can reach', async (t) => {
  const edge = entry('sync, 1 process: this tree vs 1a2b3c4', 'slower', [0.97, 0.95, 0.99], {}, { low: 0.94, high: 1.01, verdict: 'undecided' })
  const few = entry('async, 1 process: this tree vs 1a2b3c4', 'undecided', [0.98, 0.9, 1.05], {}, { low: 0.9, high: 1.05, n: 6, confidence: 0.969,
    verdict: 'undecided' })
  t.same(revGate([edge, few]), { status: 0, lines: ['--fail-on=slower: passed, nothing slower beyond noise and margin in 2 comparisons of this ' +
    'tree and a revision (each interval at 97.5%, 95% for the 2 together); undecided, not judged slower: sync, 1 process: this tree vs 1a2b3c4: 0.97× ' +
    '[0.94–1.01]; async, 1 process: this tree vs 1a2b3c4: 0.98× [0.90–1.05] (6 rounds reach 96.9% at most)'] })
})

t.test('the same, faster and undecided pass; so do other comparisons and other metrics that are slower', async (t) => {
  const others = [entry('sync vs async, 1 process', 'slower', [0.5, 0.4, 0.6], { kind: 'store' }),
    entry('sync, 1 process: this tree vs 1a2b3c4', 'slower', [1.2, 1.1, 1.3], { metric: 'serverCpuPerReqUs', better: 'lower' })]
  const faster = entry('sync, cluster of 2 workers: this tree vs 1a2b3c4', 'faster', [1.2, 1.1, 1.3])
  const undecided = entry('async, cluster of 2 workers: this tree vs 1a2b3c4', 'undecided', [0.97, 0.9, 1.04])
  t.same(revGate([same, faster, undecided, ...others]), { status: 0, lines: ['--fail-on=slower: passed, nothing slower beyond noise and ' +
    'margin in 3 comparisons of this tree and a revision (each interval at 97.5%, 95% for the 3 together); undecided, not judged slower: async, cluster of ' +
    '2 workers: this tree vs 1a2b3c4: 0.97× [0.89–1.05]'] })
})

// A simulated quick --rev: its 4 kinds in this tree and in REF, each round's ratio of the two off by `sd` on the log scale
// (a real run's rounds: 0.065-0.108, bench/RESULTS.md) around `truth`, this tree's speed over REF's. Returns the gate's status.
function gateOf (random, { truth, sd, rounds }) {
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const cells = []
  for (const [kind, nServers] of [['sync', 1], ['async', 1], ['sync-cluster', 2], ['async-cluster', 2]]) {
    for (const rev of ['tree', '1a2b3c4']) {
      const valid = Array.from({ length: rounds }, (_, k) => ({ repeat: k + 1, opsPerSec: 1000 * (rev === 'tree' ? truth * Math.exp(sd * normal()) : 1) }))
      cells.push({ id: `${kind}-${rev}`, kind, nServers, load: 2, variant: `rev=${rev}`, api: kind.startsWith('async') ? 'callback' : '', aa: '', valid })
    }
  }
  return revGate(comparisons(cells, { metrics: ['opsPerSec'] })).status
}

t.test('simulated: the same code fails the gate in at most one run in 40 of 4 comparisons; 10% slower fails it nearly always', async (t) => {
  const random = mulberry32(46)
  const runs = 1000
  const rate = (how) => Array.from({ length: runs }, () => gateOf(random, how)).filter((s) => s === 1).length / runs
  // At most 2.5% by Bonferroni's bound (about 2% here); the 1,000 runs' own noise is about ±0.5%.
  const same = rate({ truth: 1, sd: 0.1, rounds: 20 })
  t.ok(same <= 0.03, `the same code: ${(same * 100).toFixed(1)}% of runs failed (judged one by one at 95%: 5-9%)`)
  const slower = rate({ truth: 0.9, sd: 0.1, rounds: 20 })
  t.ok(slower >= 0.95, `10% slower: ${(slower * 100).toFixed(1)}% of runs failed`)
  t.equal(rate({ truth: 0.5, sd: 0.1, rounds: 7 }), 0, 'with 7 rounds no interval reaches 98.75%: never judged slower')
  t.equal(rate({ truth: 0.97, sd: 0.02, rounds: 20 }), 0, '3% slower, beyond noise: within the margin, never failed')
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
  t.match(said.join(''), /passed[\s\S]*slower beyond noise and the ±5% margin in 1 of 1[\s\S]*no verdicts to judge/)
})
