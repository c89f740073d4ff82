'use strict'
// How much an interleaved run's windows vary, beside what its A/A pair said: per results folder, the A/A verdict (its ratio,
// interval, verdict and rounds, from verdicts.json) and how far its per-round ratio spread (the standard deviation of its log),
// how long the A/A cell's kept windows lasted (median ms), how much their throughput varied within a round (the median over
// rounds of the coefficient of variation, windows.csv), how alike a window and the cell's next one in its round were
// (correlation of their logs over the round's mean: about −1/(passes−1) when each is its own), how far the A/A pair's
// windows of one pass differ when they ran next to each other and when apart (a slow spell that outlasts a window
// shows as adjacent windows alike), and whether its files grew.
// With fresh files and windows of 200 operations quick's windows varied more than at 300, and its A/A came out the same in 6
// of 9 runs against 5 of 5 (docs/RESULTS.md, "Every round from the files as created, by default"); on the Intel Xeon VM each
// window draws a speed of its own (bench/RESULTS.md, "Where the windows' noise comes from").
// `node bench/window-noise.js RESULTS_DIR...`

const fs = require('node:fs')
const path = require('node:path')
const { readResults } = require('../report/data/read')
const { median } = require('../lib/median')
const { wantsHelp, entryHelp } = require('../lib/entry-help')

const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length
const sd = (xs) => Math.sqrt(xs.reduce((s, x) => s + (x - mean(xs)) ** 2, 0) / xs.length)
const cv = (xs) => sd(xs) / mean(xs)
// Pearson's correlation of pairs.
const correlation = (pairs) => {
  const [mx, my] = [mean(pairs.map((p) => p[0])), mean(pairs.map((p) => p[1]))]
  const cov = pairs.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0)
  return cov / Math.sqrt(pairs.reduce((s, [x]) => s + (x - mx) ** 2, 0) * pairs.reduce((s, [, y]) => s + (y - my) ** 2, 0))
}
// A cell's kept windows by round.
const byRound = (windows, cell) => {
  const rounds = new Map()
  for (const w of windows.filter((w) => w.cell === cell && w.kept)) rounds.set(w.round, [...(rounds.get(w.round) ?? []), w])
  return rounds
}
const rate = (ws) => ws.reduce((s, w) => s + w.ops, 0) / ws.reduce((s, w) => s + w.wallUs, 0)

/**
 * How far two cells' windows of one pass differ, by whether they ran next to each other: per pass that kept one window of
 * each, the log of A's throughput over B's, less its mean over the passes; the root mean square of those.
 * @param {{ round: number, pass: number, cell: string, kept: boolean, opsPerSec: number }[]} windows in the order they ran
 * @returns {{ adjacent: { spread: number, n: number }, apart: { spread: number, n: number } }} spread NaN without passes
 */
function pairByDistance (windows, a, b) {
  const passes = new Map()
  for (const w of windows) {
    const key = `${w.round}/${w.pass}`
    passes.set(key, [...(passes.get(key) ?? []), w])
  }
  const pairs = []
  for (const ws of passes.values()) {
    const [i, j] = [a, b].map((cell) => ws.findIndex((w) => w.cell === cell))
    if (i < 0 || j < 0 || !ws[i].kept || !ws[j].kept) continue
    pairs.push({ adjacent: Math.abs(i - j) === 1, log: Math.log(ws[i].opsPerSec / ws[j].opsPerSec) })
  }
  const center = mean(pairs.map((p) => p.log))
  const rms = (ps) => ({ spread: Math.sqrt(mean(ps.map((p) => (p.log - center) ** 2))), n: ps.length })
  return { adjacent: rms(pairs.filter((p) => p.adjacent)), apart: rms(pairs.filter((p) => !p.adjacent)) }
}

function main (args) {
  if (wantsHelp(args)) {
    process.stdout.write(entryHelp({ usage: 'node bench/window-noise.js RESULTS_DIR...',
      about: 'The A/A verdict of each interleaved results folder beside how long its windows lasted and how much they varied.', config: false }))
    return 0
  }
  if (args.length === 0 || args.some((a) => a.startsWith('-'))) {
    process.stderr.write('bench/window-noise.js: use RESULTS_DIR... (interleaved results folders with an A/A pair)\n')
    return 2
  }
  let status = 0
  for (const dir of args) {
    try {
      const { env, windows } = readResults(dir)
      const verdicts = JSON.parse(fs.readFileSync(path.join(dir, 'verdicts.json'), 'utf8'))
      const aa = verdicts.comparisons.find((c) => c.metric === 'opsPerSec' && c.kind === 'aa')
      if (!aa || windows.length === 0) throw new Error('no A/A pair or no windows.csv: not an interleaved run with one')
      const rounds = byRound(windows, aa.a)
      const kept = [...rounds.values()].flat()
      const variation = median([...rounds.values()].filter((ws) => ws.length > 2).map((ws) => cv(ws.map((w) => w.opsPerSec))))
      // The A/A ratio of each round (its windows' operations over their time, as a round's row has it) and its spread.
      const copy = byRound(windows, aa.b)
      const spread = sd([...rounds].filter(([round]) => copy.has(round)).map(([round, ws]) => Math.log(rate(ws) / rate(copy.get(round)))))
      // Each window against the cell's next one in its round, both over the round's mean (log): alike, or each its own?
      const next = [...rounds.values()].flatMap((ws) => {
        const logs = ws.map((w) => Math.log(w.opsPerSec))
        return logs.slice(1).map((x, k) => [logs[k] - mean(logs), x - mean(logs)])
      })
      const files = env.options?.freshFiles ? 'fresh files' : 'files growing'
      const { adjacent, apart } = pairByDistance(windows, aa.a, aa.b)
      console.log(`${path.basename(dir)}: A/A ${aa.estimate.toFixed(3)}× [${aa.low.toFixed(3)}–${aa.high.toFixed(3)}] ${aa.verdict} ` +
        `(${aa.n} rounds, per-round ratio spread ${spread.toFixed(3)}); windows ${median(kept.map((w) => w.wallUs / 1000)).toFixed(0)} ms, ` +
        `varying by ${variation.toFixed(3)} within a round, a window against the next ${correlation(next).toFixed(2)}; A's window over B's ` +
        `in one pass spread by ${adjacent.spread.toFixed(3)} next to each other (${adjacent.n} passes), ${apart.spread.toFixed(3)} apart ` +
        `(${apart.n}); ${files}`)
    } catch (err) {
      process.stderr.write(`bench/window-noise.js: ${dir}: ${err.message}\n`)
      status = 1
    }
  }
  return status
}

if (require.main === module) process.exitCode = main(process.argv.slice(2))
module.exports = { pairByDistance }
