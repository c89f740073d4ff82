'use strict'
// How much of an interleaved run's sync vs async answer depends on how far its files grew: a PUT appends, a GET sorts the
// whole file, so each round's files are larger than the round before's, alike in every cell and on any machine (windows
// of a fixed number of operations). A machine that does fewer operations in the same budget stops after fewer rounds, with
// smaller files. For each results folder and each sync cell with its async counterpart (same name, `async` for `sync`):
// the geometric mean of the round ratios over the first and the last K rounds, and the run's paired estimate (as the
// report makes it) had the run stopped after each share of its rounds; then the medians over the folders.
// `node bench/file-growth.js [--first=5] [--shares=1,0.8,0.6,0.4] RESULTS_DIR...`

const { readResults } = require('../report/data/read')
const { roundValues, divideRounds, pairedSummary } = require('../report/stats/intervals')
const { median } = require('../lib/median')
const { wantsHelp, entryHelp } = require('../lib/entry-help')

const args = process.argv.slice(2)
if (wantsHelp(args)) {
  process.stdout.write(entryHelp({ usage: 'node bench/file-growth.js [--first=5] [--shares=1,0.8,0.6,0.4] RESULTS_DIR...',
    about: 'Sync vs async over the first and last rounds, and as if each run had stopped after a share of its rounds.', config: false }))
  process.exit(0)
}
const flag = (name, fallback) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback
const first = Number(flag('first', '5'))
const shares = flag('shares', '1,0.8,0.6,0.4').split(',').map(Number)
const dirs = args.filter((a) => !a.startsWith('--'))
if (!(Number.isInteger(first) && first > 0) || !shares.every((s) => s > 0 && s <= 1) || dirs.length === 0) {
  process.stderr.write('bench/file-growth.js: use [--first=K] (K > 0) [--shares=S,...] (0 < S <= 1) RESULTS_DIR...\n')
  process.exit(2)
}

const geometric = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length)
const byPair = new Map()
for (const dir of dirs) {
  let rows
  try {
    rows = readResults(dir).rows
  } catch (err) {
    process.stderr.write(`bench/file-growth.js: ${err.message}\n`)
    process.exit(1)
  }
  const cells = new Map()
  for (const row of rows.filter((r) => r.valid)) cells.set(row.cell, { valid: [...(cells.get(row.cell)?.valid ?? []), row] })
  for (const [id, cell] of cells) {
    const other = cells.get(id.replace(/^sync/, 'async'))
    if (!id.startsWith('sync') || !other) continue
    const ratios = divideRounds(roundValues(cell, 'opsPerSec'), roundValues(other, 'opsPerSec'))
    const inOrder = [...ratios].sort(([a], [b]) => a - b).map(([, r]) => r)
    if (inOrder.length < 2 * first) continue
    const upTo = (share) => pairedSummary(new Map([...ratios].sort(([a], [b]) => a - b).slice(0, Math.max(2, Math.round(share * ratios.size))))).estimate
    const line = { rounds: inOrder.length, first: geometric(inOrder.slice(0, first)), last: geometric(inOrder.slice(-first)), shares: shares.map(upTo) }
    byPair.set(id, [...(byPair.get(id) ?? []), line])
    console.log(`${dir}: ${id} vs ${id.replace(/^sync/, 'async')}, ${line.rounds} rounds: first ${first} ${line.first.toFixed(3)}×, ` +
      `last ${first} ${line.last.toFixed(3)}×; ` + shares.map((s, k) => `${s * 100}% of the rounds ${line.shares[k].toFixed(3)}×`).join(', '))
  }
}
for (const [id, lines] of byPair) {
  const m = (f) => median(lines.map(f)).toFixed(3)
  console.log(`\n${id} vs ${id.replace(/^sync/, 'async')}, medians of ${lines.length} runs (${Math.min(...lines.map((l) => l.rounds))}-` +
    `${Math.max(...lines.map((l) => l.rounds))} rounds): first ${first} ${m((l) => l.first)}×, last ${first} ${m((l) => l.last)}×, ` +
    `lower at the end in ${lines.filter((l) => l.last < l.first).length}`)
  for (const [k, s] of shares.entries()) console.log(`  stopped after ${s * 100}% of its rounds: ${m((l) => l.shares[k])}×`)
}
if (byPair.size === 0) console.log(`no sync cell with its async counterpart and ${2 * first} rounds in ${dirs.join(', ')}`)
