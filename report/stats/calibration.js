'use strict'
// The A/A pair's verdict as the run's calibration: did one configuration run as two cells come out the
// same? Used by report/index.js (analysis) and report/page/answers.js.

const { KINDS, modelLabel } = require('../../lib/kinds')
const { formatRatio } = require('./verdicts')

/**
 * The sentence about the A/A calibration, and whether it failed (the report then warns at the top).
 * @param {object[]} verdicts the folder's throughput verdicts
 * @returns {{ text: string, failed: boolean } | null} null when the folder has no A/A pair
 */
function calibration (verdicts) {
  const aa = verdicts.find((e) => e.aa && e.metric === 'opsPerSec')
  if (!aa) return null
  const [a] = aa.cells
  const what = `the A/A pair (${KINDS[a.kind].store}, ${modelLabel(a.kind, a.nServers)}, ${a.load} client processes, one configuration run as two cells)`
  if (!aa.ratio || aa.ratio.few) return { text: `Calibration: ${what} has too few rounds for an interval.`, failed: false }
  const failed = aa.verdict === 'faster' || aa.verdict === 'slower'
  const outcome = { same: `came out the same within ±${Math.round(aa.margin * 100)}%, as it must`,
    undecided: 'came out undecided: its interval is wider than the margin, so "same" verdicts below are weaker than they look',
    faster: 'came out different: the machine or the method moved one copy of the same server, so no verdict here can be trusted',
    slower: 'came out different: the machine or the method moved one copy of the same server, so no verdict here can be trusted' }
  return { text: `Calibration: ${what}: A/B ${formatRatio(aa.ratio)}, ${outcome[aa.verdict]}.`, failed }
}

module.exports = { calibration }
