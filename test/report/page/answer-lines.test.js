'use strict'
// report/page/answer-lines.js: the verdict lines, worst news first, and a profiled run's category line per comparison.

const t = require('tap')
const { answerLines } = require('../../../report/page/answer-lines')
const { undecidedNeeds } = require('../../../report/stats/verdicts')

const cell = (kind, nServers = 1) => ({ kind, nServers })
const entry = (label, verdict, estimate, { aa = false, cells = [cell('sync'), cell('async')], kind = 'store', metric = 'opsPerSec' } = {}) => ({
  a: `${label}-a`, b: `${label}-b`, label, kind, metric, better: 'higher', margin: 0.05, verdict, aa, cells,
  ratio: { estimate, low: estimate - (verdict === 'undecided' ? 0.1 : 0.01), high: estimate + (verdict === 'undecided' ? 0.1 : 0.01), n: 8, confidence: 0.96 }
})

t.test('an A/A pair that differs first, then undecided, the differences largest first, the same, the A/A that is the same last', async (t) => {
  const verdicts = [
    entry('A/A: sync, 1 process', 'same', 1.0, { aa: true }),
    entry('small', 'faster', 1.1),
    entry('same', 'same', 1.0),
    entry('cost', 'faster', 3, { metric: 'serverCpuPerReqUs' }),
    entry('large', 'slower', 0.5),
    entry('unsure', 'undecided', 1.04),
    entry('A/A: async, 1 process', 'faster', 1.2, { aa: true }),
    entry('models', 'faster', 1.3, { kind: 'model', cells: [cell('sync-cluster', 2), cell('sync')] })
  ]
  const lines = answerLines({ verdicts })
  t.same(lines.map((l) => l.text), [
    'A/A: async, 1 process: 1.20× [1.19–1.21] (96% over 8 rounds) A faster',
    'A/A: one configuration run as two cells came out different, which an interval allows by chance in 1 run of 20; read a verdict ' +
      'within that of 1 as undecided and run it again (bench/process-offset.js: do kept processes differ here? --restartEvery=N: new ones)',
    'unsure: 1.04× [0.94–1.14] (96% over 8 rounds) undecided',
    'large: 0.50× [0.49–0.51] (96% over 8 rounds) async faster',
    'models: 1.30× [1.29–1.31] (96% over 8 rounds) cluster of 2 workers faster',
    'small: 1.10× [1.09–1.11] (96% over 8 rounds) sync faster',
    'same: 1.00× [0.99–1.01] (96% over 8 rounds) the same within ±5%',
    'A/A: sync, 1 process: 1.00× [0.99–1.01] (96% over 8 rounds) the same within ±5%'
  ], 'throughput only, in this order')
  t.same(lines.map((l) => l.tone), ['alarm', 'alarm', 'none', 'down', 'up', 'up', 'same', 'same'])
})

t.test('every interval says what it covers: two rounds are no 95% interval, one round has none', async (t) => {
  const two = entry('sync vs async', 'undecided', 1.59)
  two.ratio = { estimate: 1.59, low: 1.47, high: 1.72, n: 2, confidence: 0.5, few: false }
  const one = entry('sync vs async-cluster', 'undecided', 1.2)
  one.ratio = { estimate: 1.2, low: 1.2, high: 1.2, n: 1, confidence: 0, few: true }
  t.same(answerLines({ verdicts: [two, one], metric: 'opsPerSec' }).map((l) => l.text), [
    'sync vs async: 1.59× [1.47–1.72] (50% over 2 rounds; no 95% interval) undecided',
    'sync vs async-cluster: 1.20× one round: no interval'
  ])
})

t.test('a profiled run adds, per headline comparison, the category that differs most beyond noise', async (t) => {
  const verdicts = [entry('sync vs async', 'faster', 1.3), entry('plain', 'same', 1.0), entry('A/A: sync', 'same', 1.0, { aa: true })]
  const category = (label, estimate, beyond, n = 5) => ({ id: label, label, estimate, low: estimate - 5, high: estimate + 5, beyond, n,
    confidence: 1 - 2 / 2 ** n })
  const why = {
    comparisons: [
      { a: 'sync vs async-a', b: 'sync vs async-b', names: ['sync', 'async'], aa: false,
        categories: [category('kernel: wake-ups', -60, true), category('JS: app', -200, false), category('V8', 12, true)] },
      { a: 'plain-a', b: 'plain-b', names: ['sync', 'async'], aa: false, categories: [category('V8', 1, false)] },
      { a: 'A/A: sync-a', b: 'A/A: sync-b', names: ['A', 'B'], aa: true, categories: [category('V8', 30, true)] }
    ]
  }
  t.same(answerLines({ verdicts, why }).filter((l) => l.tone === 'why').map((l) => l.text), [
    'why sync vs async: kernel: wake-ups −60 [−65 to −55] µs per request, sync against async',
    'why plain: no category differs beyond noise'
  ], 'the largest beyond noise, not the largest; none for the A/A pair')
  why.comparisons[1].categories = [category('V8', 1, false, 2)]
  t.same(answerLines({ verdicts, why }).filter((l) => l.tone === 'why').map((l) => l.text).at(-1),
    'why plain: no category differs beyond noise (too few profiled rounds)', 'two rounds: no interval of a median')
  for (const c of why.comparisons) c.categories = [category('V8', 40, true, 1)]
  t.same(answerLines({ verdicts, why }).filter((l) => l.tone === 'why').map((l) => l.text),
    ['why: 1 profiled round, too few to tell a category\'s difference from noise (3 or more)'], 'one profiled round: one line for the run')
})

t.test('undecided verdicts: one line after the last of them, with the rounds and the budget the neediest one names', async (t) => {
  // Rounds of a / b at r × e^(±s) in turn over 8 rounds, b at 1,000 ops/s.
  const rounds = (r, s) => [cell('sync'), cell('async')].map((c, k) =>
    ({ ...c, valid: [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ repeat: n, opsPerSec: k ? 1000 : 1000 * r * Math.exp(n % 2 ? s : -s) })) }))
  const verdicts = [
    entry('near', 'undecided', 1.02, { cells: rounds(1.02, 0.1) }),
    entry('wide', 'undecided', 1.09, { cells: rounds(1.09, 0.2) }),
    entry('large', 'faster', 1.5)
  ]
  // 10 s to start and warm up, 100 s for 8 rounds.
  const env = { options: { budget: 110, maxRounds: 100 }, rounds: { timing: { start: 4000, warm: 6000 } } }
  const undecided = undecidedNeeds(verdicts, env)
  // "near" (1.02) must narrow to half of 0.0488 − 0.0198 at a spread of 0.107: (1.96 × 0.1069 / 0.01449)² / 0.955 = 219 rounds;
  // "wide" (1.09) to half of 0.0862 at 0.2138: (1.96 × 0.2138 / 0.0431)² / 0.955 = 99.05, so 100.
  // At --maxRounds=300 both: "near" names the run's, 10 + 100 × 219 / 8 s.
  t.match(undecidedNeeds(verdicts, { ...env, options: { ...env.options, maxRounds: 300 } }), { rounds: 219, n: 8, count: 2, of: 2, flags: '--budget=2750' })
  const both = answerLines({ verdicts, undecided: undecidedNeeds(verdicts, { ...env, options: { ...env.options, maxRounds: 300 } }) }).map((l) => l.text)
  t.same(both.slice(0, 3).map((l) => l.split(':')[0]), ['wide', 'near', 'undecided'], 'right after the last undecided verdict')
  t.equal(both[2], 'undecided: at this run\'s noise about 219 rounds, not 8, would decide all 2: --budget=2750 gives a run like this one that many')
  // At --maxRounds=100 "near" needs more: the line names what decides "wide", 10 + 100 × 100 / 8 s, and says the other needs more.
  t.match(undecided, { rounds: 100, n: 8, count: 1, of: 2, beyond: 100, flags: '--budget=1260' })
  t.equal(answerLines({ verdicts, undecided }).map((l) => l.text)[2], 'undecided: at this run\'s noise about 100 rounds, not 8, would decide ' +
    '1 of the 2: --budget=1260 gives a run like this one that many; the other needs more than 100 rounds (--maxRounds)')
  // Every one beyond it: the neediest, with the --maxRounds it takes.
  const near = undecidedNeeds([verdicts[0]], env)
  t.match(near, { rounds: 219, count: 1, of: 1, flags: '--budget=2750 --maxRounds=219' })
  t.notOk('beyond' in near)
  t.equal(answerLines({ verdicts: [verdicts[0]], undecided: near }).map((l) => l.text)[1],
    'undecided: at this run\'s noise about 219 rounds, not 8, would decide it: --budget=2750 --maxRounds=219 gives a run like this one that many')
  t.notOk(answerLines({ verdicts }).some((l) => l.text.startsWith('undecided:')), 'none without what they need')
  t.equal(undecidedNeeds([verdicts[2]], env), null, 'nothing when every verdict is decided')
})
