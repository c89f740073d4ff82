'use strict'
// How much an interleaved run's windows vary, beside what its A/A pair said: per results folder, the A/A verdict (its ratio,
// interval, verdict and rounds, from verdicts.json), how long the A/A cell's kept windows lasted (median ms) and how much their
// throughput varied within a round (the median over rounds of the coefficient of variation, windows.csv), and whether its
// files grew through the run. With fresh files and windows of 200 operations quick's windows varied more than at 300, and
// its A/A came out the same in 6 of 9 runs against 5 of 5 (docs/RESULTS.md, "Every round from the files as created, by default").
// `node bench/window-noise.js RESULTS_DIR...`

const fs = require('node:fs')
const path = require('node:path')
const { readResults } = require('../report/data/read')
const { median } = require('../lib/median')
const { wantsHelp, entryHelp } = require('../lib/entry-help')

const args = process.argv.slice(2)
if (wantsHelp(args)) {
  process.stdout.write(entryHelp({ usage: 'node bench/window-noise.js RESULTS_DIR...',
    about: 'The A/A verdict of each interleaved results folder beside how long its windows lasted and how much they varied.', config: false }))
  process.exit(0)
}
if (args.length === 0 || args.some((a) => a.startsWith('-'))) {
  process.stderr.write('bench/window-noise.js: use RESULTS_DIR... (interleaved results folders with an A/A pair)\n')
  process.exit(2)
}

const cv = (xs) => {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length
  return Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length) / mean
}
let status = 0
for (const dir of args) {
  try {
    const { env, windows } = readResults(dir)
    const verdicts = JSON.parse(fs.readFileSync(path.join(dir, 'verdicts.json'), 'utf8'))
    const aa = verdicts.comparisons.find((c) => c.metric === 'opsPerSec' && c.kind === 'aa')
    if (!aa || windows.length === 0) throw new Error('no A/A pair or no windows.csv: not an interleaved run with one')
    const kept = windows.filter((w) => w.cell === aa.a && w.kept)
    const rounds = new Map()
    for (const w of kept) rounds.set(w.round, [...(rounds.get(w.round) ?? []), w])
    const variation = median([...rounds.values()].filter((ws) => ws.length > 2).map((ws) => cv(ws.map((w) => w.opsPerSec))))
    const files = env.options?.freshFiles ? 'fresh files' : 'files growing'
    console.log(`${path.basename(dir)}: A/A ${aa.estimate.toFixed(3)}× [${aa.low.toFixed(3)}–${aa.high.toFixed(3)}] ${aa.verdict} ` +
      `(${aa.n} rounds); windows ${median(kept.map((w) => w.wallUs / 1000)).toFixed(0)} ms, varying by ${variation.toFixed(3)} ` +
      `within a round; ${files}`)
  } catch (err) {
    process.stderr.write(`bench/window-noise.js: ${dir}: ${err.message}\n`)
    status = 1
  }
}
process.exitCode = status
