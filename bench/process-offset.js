'use strict'
// Whether processes of one configuration run at one speed, or each keeps a speed of its own: the run's A/A configuration in
// --copies cells (its own and variants B, C, …, each with its own server and client processes, kept through the run),
// interleaved as any run's cells. Per copy, its offset: the geometric mean over rounds of its throughput against the round's
// mean over the copies, with a 95% interval; then how far those offsets spread against what the rounds' noise alone gives
// (F: about 1 when the processes share one speed), the share of shuffles of the copies' labels within each round that spread
// as far (p), and the processes' own spread beyond the noise. Where an A/A pair came out different (bench/RESULTS.md,
// "Kept processes and the Intel Xeon VM's noise").
// `node bench/process-offset.js [--copies=6] -- COMMAND FLAGS` (run_benchmark.sh's command and flags, with an A/A pair: quick's
// own, or --aa=KIND:S:C); `node bench/process-offset.js RESULTS_DIR` reads a folder such a run made.

const fs = require('node:fs')
const path = require('node:path')
const { readResults } = require('../report/data/read')
const { mulberry32, shuffle } = require('../lib/random')
const { wantsHelp, entryHelp } = require('../lib/entry-help')

const USAGE = 'node bench/process-offset.js [--copies=6] -- COMMAND FLAGS (with an A/A pair) | RESULTS_DIR'
const LETTERS = 'BCDEFGHIJ'
const SHUFFLES = 2000

const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length

// F of per-round logs (rounds × copies): the copies' offsets' spread over what the rounds' noise alone gives them.
function spreadRatio (logs) {
  const [rounds, copies] = [logs.length, logs[0].length]
  const residuals = logs.map((row) => row.map((y) => y - mean(row)))
  const offsets = residuals[0].map((_, k) => mean(residuals.map((row) => row[k])))
  const within = residuals.reduce((s, row) => s + row.reduce((t, e, k) => t + (e - offsets[k]) ** 2, 0), 0) / ((rounds - 1) * (copies - 1))
  const between = offsets.reduce((s, m) => s + m * m, 0) / (copies - 1)
  return { offsets, residuals, within, between, f: within > 0 ? rounds * between / within : Infinity }
}

/**
 * The copies' offsets from their per-round throughputs, over the rounds every copy has.
 * @param {Map<string, Map<number, number>>} byCopy copy id → round → ops/s
 * @param {{ seed?: number, shuffles?: number }} [how]
 * @returns {{ rounds: number, copies: { id: string, offset: number, low: number, high: number }[], f: number, p: number,
 *   noise: number, processSpread: number }} offsets as ratios; noise: a copy's spread from round to round (log);
 *   processSpread: the copies' own spread beyond it (log, 0 when none shows)
 */
function processOffsets (byCopy, { seed = 1, shuffles = SHUFFLES } = {}) {
  const ids = [...byCopy.keys()]
  const rounds = [...byCopy.get(ids[0]).keys()].filter((r) => ids.every((id) => byCopy.get(id).get(r) > 0))
  if (ids.length < 2 || rounds.length < 3) throw new Error(`needs 2 copies or more in 3 rounds or more (${ids.length} copies, ${rounds.length} rounds)`)
  const logs = rounds.map((r) => ids.map((id) => Math.log(byCopy.get(id).get(r))))
  const seen = spreadRatio(logs)
  const random = mulberry32(seed)
  let asFar = 0
  for (let i = 0; i < shuffles; i++) if (spreadRatio(logs.map((row) => shuffle(row, random))).f >= seen.f) asFar++
  const copies = ids.map((id, k) => {
    const es = seen.residuals.map((row) => row[k])
    const half = 1.96 * Math.sqrt(es.reduce((s, e) => s + (e - seen.offsets[k]) ** 2, 0) / (es.length - 1) / es.length)
    return { id, offset: Math.exp(seen.offsets[k]), low: Math.exp(seen.offsets[k] - half), high: Math.exp(seen.offsets[k] + half) }
  })
  return { rounds: rounds.length, copies, f: seen.f, p: (asFar + 1) / (shuffles + 1), noise: Math.sqrt(seen.within),
    processSpread: Math.sqrt(Math.max(0, seen.between - seen.within / rounds.length)) }
}

// The A/A cell's copies in a results folder: its own cell and every variant of it.
function readCopies (dir) {
  const verdicts = JSON.parse(fs.readFileSync(path.join(dir, 'verdicts.json'), 'utf8'))
  const aa = verdicts.comparisons.find((c) => c.metric === 'opsPerSec' && c.kind === 'aa')
  if (!aa) throw new Error('no A/A pair in verdicts.json')
  const byCopy = new Map()
  for (const row of readResults(dir).rows) {
    if (!row.valid || !(row.cell === aa.a || (row.cell.startsWith(`${aa.a}-`) && LETTERS.includes(row.cell.slice(aa.a.length + 1))))) continue
    if (!byCopy.has(row.cell)) byCopy.set(row.cell, new Map())
    byCopy.get(row.cell).set(row.repeat, row.opsPerSec)
  }
  return byCopy
}

function report (dir) {
  const r = processOffsets(readCopies(dir))
  const x = (v) => `${v.toFixed(3)}×`
  const lines = [`${path.basename(dir)}: ${r.copies.length} copies over ${r.rounds} rounds`]
  for (const c of r.copies) lines.push(`  ${c.id}: ${x(c.offset)} [${c.low.toFixed(3)}–${c.high.toFixed(3)}] of the copies' mean`)
  lines.push(`  offsets' spread against the rounds' noise: F ${r.f.toFixed(2)} (about 1 when the processes share one speed), ` +
    `p ${r.p.toFixed(3)} (${SHUFFLES} shuffles of the copies within each round)`)
  lines.push(`  a copy's spread from round to round ${r.noise.toFixed(3)} (log); the processes' own spread beyond it ${r.processSpread.toFixed(3)}`)
  return lines.join('\n')
}

async function main (args) {
  if (wantsHelp(args)) {
    const about = 'The A/A configuration in several copies, interleaved: does each process keep a speed of its own?'
    process.stdout.write(entryHelp({ usage: USAGE, about, config: false }))
    return 0
  }
  const split = args.indexOf('--')
  if (split < 0) {
    if (args.length !== 1 || args[0].startsWith('-')) throw new Error(`use ${USAGE}`)
    console.log(report(args[0]))
    return 0
  }
  const own = args.slice(0, split)
  const copies = Number(own.find((a) => a.startsWith('--copies='))?.slice(9) ?? 6)
  if (!(Number.isInteger(copies) && copies >= 2 && copies <= LETTERS.length + 1) || own.some((a) => !a.startsWith('--copies='))) {
    throw new Error(`use [--copies=N] (2 to ${LETTERS.length + 1}) -- COMMAND FLAGS`)
  }
  // Replaced before sweep/plan/grid.js takes it from the module (it destructures it as it loads).
  const aa = require('../sweep/plan/aa')
  aa.aaCombos = (pair, base) => [{ ...base, ...pair }, ...[...LETTERS.slice(0, copies - 1)].map((variant) => ({ ...base, ...pair, variant }))]
  // The run's folder: the one that was not in its results folder before it.
  const flags = args.slice(split + 1)
  const results = flags.find((a) => a.startsWith('--results='))?.slice(10) ?? path.join(__dirname, '..', 'results')
  const list = () => (fs.existsSync(results) ? fs.readdirSync(results) : [])
  const before = new Set(list())
  const status = await require('../sweep/index').main(flags)
  const made = list().find((name) => !before.has(name))
  if (status !== 0 || !made) return status || 1
  console.log(report(path.join(results, made)))
  return 0
}

if (require.main === module) {
  main(process.argv.slice(2)).then((status) => { process.exitCode = status }, (err) => {
    process.stderr.write(`bench/process-offset.js: ${err.message}\n`)
    process.exitCode = 2
  })
}

module.exports = { processOffsets }
