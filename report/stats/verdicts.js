'use strict'
// How the report and compare word a ratio: "1.23× [1.10–1.37]", its verdict (faster, slower,
// same within ±margin, undecided: report/stats/intervals.js judge) in words, and what the intervals'
// round counts give in confidence.

const { judge, roundsToDecide, MARGIN } = require('./intervals')
const { KINDS, modelLabel } = require('../../lib/kinds')
const { poolSide, revSide } = require('./comparisons')

/**
 * "With 1 process", "With a cluster of 2 workers", "With 2 backends behind HAProxy" (lib/kinds.js
 * modelLabel), and a note when they outnumber the cores.
 */
function processes ({ kind, nServers }, cores) {
  const over = nServers > cores ? ` (oversubscribed: more than the ${cores} cores)` : ''
  const label = modelLabel(kind, nServers)
  return `With ${label.startsWith('cluster') ? `a ${label}` : label}${over}`
}

/**
 * Entries (each with load and ratio) worded by verdict, e.g. ["sync faster at nClients 1, 2:
 * 1.21× [1.10–1.30] to 1.49× [1.35–1.69]", "the same within ±5% at nClients 4: 0.98× [0.96–1.01]"].
 * @param {object[]} entries
 * @param {{ up: string, down: string }} words the verdict faster and slower (report/stats/intervals.js judge)
 * @param {number} [margin]
 * @param {'higher'|'lower'} [better] lower for a cost: faster then means less
 * @returns {string[]}
 */
function verdictParts (entries, words, margin = MARGIN, better = 'higher') {
  const by = { faster: [], slower: [], same: [], undecided: [], few: [] }
  for (const e of entries) by[judge(e.ratio, { margin, better })].push(e)
  const what = { faster: words.up, slower: words.down, same: `the same within ±${pct(margin)}`, undecided: 'undecided', few: 'a single round (no interval)' }
  return Object.entries(by).filter(([, some]) => some.length > 0).map(([verdict, some]) => {
    const sorted = [...some].sort((a, b) => a.ratio.estimate - b.ratio.estimate)
    const loads = [...new Set(some.map((e) => e.load))].sort((a, b) => a - b).join(', ')
    const [first, last] = [formatRatio(sorted[0].ratio), formatRatio(sorted[sorted.length - 1].ratio)]
    const range = first === last ? first : `${first} to ${last}`
    return `${what[verdict]} at nClients ${loads}: ${range}`
  })
}

const pct = (margin) => `${Math.round(margin * 100)}%`

/** Entries grouped by a key, in first-seen order. */
function groupBy (entries, key) {
  const groups = new Map()
  for (const e of entries) groups.set(key(e), [...(groups.get(key(e)) ?? []), e])
  return [...groups.values()]
}

/** x with exactly `digits` decimals and thousands separators, e.g. fixed(1234.5, 1) is "1,234.5". */
const fixed = (x, digits) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

/**
 * @param {{ estimate: number, low: number, high: number }} r
 * @returns {string} e.g. "1.23× [1.10–1.37]"
 */
function formatRatio (r) {
  return `${fixed(r.estimate, 2)}× [${fixed(r.low, 2)}–${fixed(r.high, 2)}]`
}

/**
 * A ratio's verdict in words and its tone (a CSS class), from report/stats/intervals.js judge.
 * @param {object|null} r a ratio from report/stats/intervals.js
 * @param {string} faster what is faster (or cheaper) when the verdict is faster
 * @param {string} slower what is faster when the verdict is slower
 * @param {{ margin?: number, better?: 'higher'|'lower' }} [how] better: lower for a cost, whose words are
 *   "cheaper" instead of "faster"
 * @returns {[string, 'up'|'down'|'same'|'none']}
 */
function verdictOf (r, faster, slower, { margin = MARGIN, better = 'higher' } = {}) {
  const word = better === 'lower' ? 'cheaper' : 'faster'
  switch (judge(r, { margin, better })) {
    case 'faster': return [`${faster} ${word}`, 'up']
    case 'slower': return [`${slower} ${word}`, 'down']
    case 'same': return [`the same within ±${pct(margin)}`, 'same']
    case 'undecided': return ['undecided', 'none']
    default: return [r ? 'one round: no interval' : 'no valid round', 'none']
  }
}

/**
 * What the intervals of some ratios rest on: their rounds and the confidence that gives.
 * @param {Array<object|null>} ratios
 * @returns {string} e.g. "10 rounds: each interval is the Hodges–Lehmann estimate of the per-round ratios with its
 *   Wilcoxon signed-rank interval, at 95.1% confidence"
 */
function roundsNote (ratios) {
  const some = ratios.filter((r) => r && !r.few)
  if (some.length === 0) return 'too few rounds for any interval'
  const ns = [...new Set(some.map((r) => r.n))].sort((a, b) => a - b)
  const confidence = Math.min(...some.map((r) => r.confidence))
  const rounds = ns.length === 1 ? `${ns[0]} rounds` : `${ns[0]}–${ns[ns.length - 1]} rounds`
  const weak = confidence < 0.95 ? ` (below 95%: ${ns[0]} rounds are too few; 6 are the fewest that reach it, and no verdict is given below it)` : ''
  return `${rounds}: each figure is the Hodges–Lehmann estimate of the per-round ratios with its Wilcoxon signed-rank interval, ` +
    `at ${fixed(confidence * 100, 1)}% confidence or more${weak}`
}

/**
 * The words of a comparison's two sides: "sync" and "async", the two async APIs, the two process models, or A and B.
 * @param {{ aa?: boolean, kind: string, cells: object[] }} e a comparison (report/stats/comparisons.js)
 * @returns {[string, string]}
 */
function sides (e) {
  const [a, b] = e.cells
  if (e.aa) return ['A', 'B']
  if (e.kind === 'store') return [KINDS[a.kind].store, KINDS[b.kind].store]
  if (e.kind === 'api') return [`async ${a.api}`, `async ${b.api}`]
  if (e.kind === 'pool') return [poolSide(a), poolSide(b)]
  if (e.kind === 'rev') return [revSide(a), revSide(b)]
  return [modelLabel(a.kind, a.nServers), modelLabel(b.kind, b.nServers)]
}

// An A/A pair that came out faster or slower: beyond what its interval allows (1 run in 20), or its processes or the machine
// moved one copy (bench/process-offset.js measures whether kept processes differ).
const DIFFERENT = 'came out different: its two copies of the same server differed beyond their interval (which happens by chance in 1 run ' +
  'of 20, or their processes or the machine moved one), so no verdict within that of 1 can be trusted; run it again'

/**
 * What an undecided comparison needs at this run's noise: its rounds' spread, the rounds that would decide it (an A/A pair
 * taken as truly 1, any other at its estimate: report/stats/intervals.js roundsToDecide), and the flags that give a run like
 * this one that many: its --budget with the servers' start and warm-up as they took and the rest scaled (each phase's share
 * of the budget scales with it), and --maxRounds when the rounds are more than it allows.
 * @param {object} e a verdict entry (report/stats/comparisons.js)
 * @param {object} [env] the folder's env.json
 * @returns {{ spread: number, rounds: number, n: number, flags: string } | null} null when it has enough rounds or too few to tell
 */
function decideNeeds (e, env) {
  const need = roundsToDecide(...e.cells, e.margin, e.aa ? 0 : Math.abs(Math.log(e.ratio.estimate)))
  const budget = env?.options?.budget
  if (!need || need.rounds <= need.n || !budget) return null
  const timing = env.rounds?.timing ?? {}
  const fixed = Math.min(budget, ((timing.start ?? 0) + (timing.warm ?? 0)) / 1000)
  const seconds = Math.ceil((fixed + (budget - fixed) * need.rounds / need.n) / 10) * 10
  const more = need.rounds > (env.options.maxRounds ?? Infinity) ? ` --maxRounds=${need.rounds}` : ''
  return { ...need, flags: `--budget=${seconds}${more}` }
}

/**
 * What the run's undecided headline comparisons (throughput, the A/A pair apart) need together: the one that needs the
 * most rounds, and how many there are. Where some need more rounds than the run's --maxRounds and others fewer, the
 * neediest of those within it: a ratio close to 1 or to the margin's edge can need thousands of rounds, which says
 * nothing about what a longer run decides (threadpool on the Intel VM: 732 rounds for all 17, 2026-11-30).
 * @param {object[]} verdicts
 * @param {object} [env]
 * @returns {{ spread: number, rounds: number, n: number, flags: string, count: number, of: number, beyond: number } | null} count:
 *   how many the flags decide, of `of`; beyond: the --maxRounds the others need more than, when some do
 */
function undecidedNeeds (verdicts, env) {
  const undecided = verdicts.filter((e) => e.metric === 'opsPerSec' && !e.aa && e.verdict === 'undecided' && e.ratio && !e.ratio.few)
  const needs = undecided.map((e) => decideNeeds(e, env))
  if (needs.length === 0 || needs.some((x) => !x)) return null
  const cap = env.options.maxRounds ?? Infinity
  const within = needs.filter((x) => x.rounds <= cap)
  const some = within.length > 0 && within.length < needs.length ? within : needs
  const most = some.reduce((x, y) => (y.rounds > x.rounds ? y : x))
  return { ...most, count: some.length, of: needs.length, ...(some === within && { beyond: cap }) }
}

/**
 * An undecided A/A pair's need in words: "its rounds' ratios spread by 0.104 (log), so about 70 rounds, not 16, would
 * decide it: --budget=440 gives a run like this one that many".
 * @param {{ spread: number, rounds: number, n: number, flags: string }} needs from decideNeeds
 * @returns {string}
 */
const needsText = ({ spread, rounds, n, flags }) =>
  `its rounds' ratios spread by ${spread.toFixed(3)} (log), so about ${rounds} rounds, not ${n}, would decide it: ${flags} gives a run like this one that many`

// The A/A pair's verdict as the run's calibration: did one configuration run as two cells come out the same?
/**
 * The sentence about the A/A calibration, whether it failed (the report then warns at the top) and, undecided, what would decide it.
 * @param {object[]} verdicts the folder's throughput verdicts
 * @param {object} [env] the folder's env.json (for what an undecided pair needs)
 * @returns {{ text: string, failed: boolean, needs: object|null } | null} null when the folder has no A/A pair
 */
function calibration (verdicts, env) {
  const aa = verdicts.find((e) => e.aa && e.metric === 'opsPerSec')
  if (!aa) return null
  const [a] = aa.cells
  const what = `the A/A pair (${KINDS[a.kind].store}, ${modelLabel(a.kind, a.nServers)}, ${a.load} client processes, one configuration run as two cells)`
  if (!aa.ratio || aa.ratio.few) return { text: `Calibration: ${what} has too few rounds for an interval.`, failed: false, needs: null }
  const failed = aa.verdict === 'faster' || aa.verdict === 'slower'
  const needs = aa.verdict === 'undecided' ? decideNeeds(aa, env) : null
  const outcome = { same: `came out the same within ±${Math.round(aa.margin * 100)}%, as it must`,
    undecided: 'came out undecided: its interval is wider than the margin, so "same" verdicts below are weaker than they look' +
      (needs ? `; ${needsText(needs)}` : ''),
    faster: DIFFERENT,
    slower: DIFFERENT }
  return { text: `Calibration: ${what}: A/B ${formatRatio(aa.ratio)}, ${outcome[aa.verdict]}.`, failed, needs }
}

module.exports = { fixed, formatRatio, verdictOf, roundsNote, verdictParts, groupBy, processes, pct, sides, calibration, needsText, undecidedNeeds }
