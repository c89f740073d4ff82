'use strict'
// The answer in lines, for a terminal, a CI log or an ssh session: one line per headline verdict (throughput,
// or a capacity folder's capacity; the A/A pair's too), worst news first, and for a profiled run the category behind each headline comparison. The
// report writes them to answer.txt and shows them on its first screen; every command that measures prints
// them last (sweep/runner.js). Each interval says what it covers: its confidence and rounds.

const { formatRatio, fixed, verdictOf, sides, needsText } = require('../stats/verdicts')
const { differenceText, BEYOND_CONFIDENCE } = require('../stats/why')
const { coverage } = require('../../lib/median')

// Worst news first: an A/A pair that is not the same (the run cannot be trusted), then what could not be
// decided, then the differences (largest first), what is the same, and last the A/A pair that is the same.
function rank (e) {
  if (e.aa) return e.verdict === 'same' ? 4 : 0
  return { undecided: 1, faster: 2, slower: 2, same: 3 }[e.verdict] ?? 1
}
const distance = (e) => (e.ratio ? Math.abs(Math.log(e.ratio.estimate)) : 0)
// After an A/A pair that came out different: what to make of it (report/stats/verdicts.js calibration says the same in the report).
const AA_DIFFERS = 'A/A: one configuration run as two cells came out different, which an interval allows by chance in 1 run of 20; read a ' +
  'verdict within that of 1 as undecided and run it again (bench/process-offset.js: do kept processes differ here? --restartEvery=N: new ones)'

/**
 * @param {{ verdicts: object[], why?: object|null, calibration?: object|null, undecided?: object|null, metric?: string }} analysis report/index.js analyse:
 *   comparisons with their cells, the profile's analysis (report/stats/why.js whyAnalysis) when the run was profiled, and the
 *   A/A calibration and what the undecided verdicts need (report/stats/verdicts.js); metric: the headline one, opsPerSec
 *   unless given (capacity for a capacity folder)
 * @returns {{ text: string, tone: 'alarm'|'none'|'up'|'down'|'same'|'why' }[]} tone: alarm for an A/A pair that is not
 *   the same, the rest as report/stats/verdicts.js verdictOf
 */
function answerLines ({ verdicts, why, calibration, undecided, metric = 'opsPerSec' }) {
  const headline = verdicts.filter((e) => e.metric === metric)
  const order = [...headline].sort((x, y) => rank(x) - rank(y) || distance(y) - distance(x))
  const lines = order.map((e) => {
    const [a, b] = sides(e)
    const [text, tone] = verdictOf(e.ratio, a, b, { margin: e.margin, better: e.better })
    const ratio = !e.ratio ? '' : e.ratio.few ? `${fixed(e.ratio.estimate, 2)}× ` : `${formatRatio(e.ratio)} (${coverage(e.ratio)}) `
    return { text: `${e.label}: ${ratio}${text}`, tone: e.aa && e.verdict !== 'same' ? 'alarm' : tone }
  })
  // Lines after a verdict's, spliced in from the last so that the earlier places hold.
  const after = []
  const differs = order.findIndex((e) => e.aa && (e.verdict === 'faster' || e.verdict === 'slower'))
  if (differs >= 0) after.push([differs, { tone: 'alarm', text: AA_DIFFERS }])
  const aaUndecided = order.findIndex((e) => e.aa && e.verdict === 'undecided')
  if (aaUndecided >= 0 && calibration?.needs) {
    after.push([aaUndecided, { tone: 'alarm', text: `A/A: undecided at this machine's noise: ${needsText(calibration.needs)}` }])
  }
  // After the last undecided verdict: the rounds that would decide them all at this run's noise.
  const lastUndecided = order.findLastIndex((e) => !e.aa && e.verdict === 'undecided')
  if (lastUndecided >= 0 && undecided) {
    const { count, of, beyond } = undecided
    const what = beyond ? `${count} of the ${of}` : count === 1 ? 'it' : `all ${count}`
    const rest = beyond ? `; the other${of - count === 1 ? ' needs' : `s (${of - count}) need`} more than ${beyond} rounds (--maxRounds)` : ''
    after.push([lastUndecided, { tone: 'none', text: `undecided: at this run's noise about ${undecided.rounds} rounds, not ${undecided.n}, ` +
      `would decide ${what}: ${undecided.flags} gives a run like this one that many${rest}` }])
  }
  for (const [at, line] of after.sort((x, y) => y[0] - x[0])) lines.splice(at + 1, 0, line)
  const explained = order.map((e) => [e, why?.comparisons.find((c) => c.a === e.a && c.b === e.b && !c.aa)]).filter(([, c]) => c)
  // Too few profiled rounds for an interval (report/stats/why.js): one line for the run, not one per comparison.
  const few = (c) => c.categories.every((d) => !(d.confidence >= BEYOND_CONFIDENCE))
  if (explained.length > 0 && explained.every(([, c]) => few(c))) {
    const n = Math.max(...explained.flatMap(([, c]) => c.categories.map((d) => d.n)))
    return [...lines, { tone: 'why', text: `why: ${n} profiled round${n === 1 ? '' : 's'}, too few to tell a category's difference from noise (3 or more)` }]
  }
  for (const [e, c] of explained) {
    const top = c.categories.filter((d) => d.beyond).sort((x, y) => Math.abs(y.estimate) - Math.abs(x.estimate))[0]
    lines.push({
      tone: 'why',
      text: top
        ? `why ${e.label}: ${top.label} ${differenceText(top)} µs per request, ${c.names[0]} against ${c.names[1]}`
        : `why ${e.label}: no category differs beyond noise${few(c) ? ' (too few profiled rounds)' : ''}`
    })
  }
  return lines
}

module.exports = { answerLines }
