'use strict'
// --fail-on=slower with --rev, a gate for CI: after the report, exit 1 when this tree is slower than a revision beyond
// noise and beyond the run's margin, 0 otherwise. Its k "this tree vs REF" throughput comparisons are judged together
// (report/stats/comparisons.js `gate`): each interval at 1 - 5%/k, so that round-to-round noise fails the same code in at
// most one run in 40 however many kinds the run has. Rounds do not see what is fixed for a server process's life (two
// processes of one server differed by up to 4% for a whole run: bench/RESULTS.md), so a comparison is also slower only
// when its estimate is below 1 / (1 + margin). sweep/runner.js runs it on the results folder's verdicts.json.

const fs = require('node:fs')
const path = require('node:path')
const { formatRatio } = require('../report/stats/verdicts')

const percent = (level) => `${Number((level * 100).toFixed(2))}%`

/**
 * The gate on a run's comparisons.
 * @param {object[]} comparisons verdicts.json's (report/stats/comparisons.js, without their cells)
 * @returns {{ status: 0|1, lines: string[] }} status 1 when a revision comparison is slower at the gate's level and by more
 *   than its margin; lines: what was judged, for stderr
 */
function revGate (comparisons) {
  const revs = comparisons.filter((c) => c.kind === 'rev' && c.metric === 'opsPerSec')
  const beyondNoise = revs.filter((c) => c.gate.verdict === 'slower')
  const slower = beyondNoise.filter((c) => c.estimate < 1 / (1 + c.margin))
  const level = revs[0]?.gate.level ?? 0.95
  const at = revs.length > 1 ? `each interval at ${percent(level)}, 95% for the ${revs.length} together` : `its interval at ${percent(level)}`
  const named = (c) => {
    if (c.gate.low === undefined) return `${c.label}: no interval`
    const short = c.gate.confidence < level ? ` (${c.gate.n} rounds reach ${percent(c.gate.confidence)} at most)` : ''
    return `${c.label}: ${formatRatio({ estimate: c.estimate, low: c.gate.low, high: c.gate.high })}${short}`
  }
  if (slower.length > 0) {
    return { status: 1, lines: [`--fail-on=slower: this tree is slower beyond noise and the ±${percent(slower[0].margin)} margin in ` +
      `${slower.length} of ${revs.length} (${at}):`, ...slower.map(named)] }
  }
  const within = beyondNoise.length > 0
    ? `; slower within the ±${percent(beyondNoise[0].margin)} margin, as two processes of one server can be, not judged: ${beyondNoise.map(named).join('; ')}`
    : ''
  const undecided = revs.filter((c) => !['same', 'faster', 'slower'].includes(c.gate.verdict))
  const open = undecided.length > 0 ? `; undecided, not judged slower: ${undecided.map(named).join('; ')}` : ''
  const compared = `${revs.length} comparison${revs.length === 1 ? '' : 's'}`
  return { status: 0, lines: [`--fail-on=slower: passed, nothing slower beyond noise and margin in ${compared} of this tree and ` +
    `a revision (${at})${within}${open}`] }
}

/**
 * The gate on a results folder, its lines on stderr (with --quiet on stdout, after the verdict lines: they are the gate's).
 * @param {string} dir
 * @param {NodeJS.WritableStream} [out]
 * @returns {0|1} 1 also when the folder has no verdicts.json (the report failed)
 */
function gateFolder (dir, out = process.stderr) {
  let comparisons
  try {
    comparisons = JSON.parse(fs.readFileSync(path.join(dir, 'verdicts.json'), 'utf8')).comparisons
  } catch (err) {
    out.write(`--fail-on=slower: no verdicts to judge (${err.message})\n`)
    return 1
  }
  const { status, lines } = revGate(comparisons)
  out.write(lines.map((line) => `${line}\n`).join(''))
  return status
}

module.exports = { revGate, gateFolder }
