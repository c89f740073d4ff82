'use strict'
// --fail-on=slower with --rev, a gate for CI: after the report, exit 1 when this tree is slower than a revision beyond
// noise (a "this tree vs REF" throughput comparison decided slower: its interval lies below 1), 0 when each one is the
// same, faster or undecided. sweep/runner.js runs it on the results folder's verdicts.json.

const fs = require('node:fs')
const path = require('node:path')
const { formatRatio } = require('../report/stats/verdicts')

/**
 * The gate on a run's comparisons.
 * @param {object[]} comparisons verdicts.json's (report/stats/comparisons.js, without their cells)
 * @returns {{ status: 0|1, lines: string[] }} status 1 when a revision comparison is slower; lines: what was judged, for stderr
 */
function revGate (comparisons) {
  const revs = comparisons.filter((c) => c.kind === 'rev' && c.metric === 'opsPerSec')
  const slower = revs.filter((c) => c.verdict === 'slower')
  const undecided = revs.filter((c) => c.verdict === 'undecided')
  const named = (c) => `${c.label}: ${c.low === undefined ? 'no interval' : formatRatio(c)}`
  if (slower.length > 0) {
    return { status: 1, lines: [`--fail-on=slower: this tree is slower beyond noise in ${slower.length} of ${revs.length}:`, ...slower.map(named)] }
  }
  const open = undecided.length > 0 ? `; undecided, not judged slower: ${undecided.map(named).join('; ')}` : ''
  return { status: 0, lines: [`--fail-on=slower: passed, nothing slower beyond noise in ${revs.length} comparisons of this tree and a revision${open}`] }
}

/**
 * The gate on a results folder, its lines on stderr.
 * @param {string} dir
 * @returns {0|1} 1 also when the folder has no verdicts.json (the report failed)
 */
function gateFolder (dir) {
  let comparisons
  try {
    comparisons = JSON.parse(fs.readFileSync(path.join(dir, 'verdicts.json'), 'utf8')).comparisons
  } catch (err) {
    process.stderr.write(`--fail-on=slower: no verdicts to judge (${err.message})\n`)
    return 1
  }
  const { status, lines } = revGate(comparisons)
  process.stderr.write(lines.map((line) => `${line}\n`).join(''))
  return status
}

module.exports = { revGate, gateFolder }
