'use strict'
// The stopping rule of an interleaved run (sweep/interleaved/rounds.js): after each round, whether to
// stop and why, in the words the run prints ("stopped: …") and env.json keeps.

/**
 * Why the run stops after this round, or null to run another. In this order: interrupted; every cell
 * failed; --maxRounds clean rounds; more disturbed rounds than --rounds; then, once --rounds clean rounds
 * are in, every headline interval narrow enough to decide, or another round that would overrun the budget.
 * @param {{ aborted: boolean, allFailed: boolean, clean: number, disturbed: number, precise: boolean,
 *   elapsed: number, perRound: number }} now elapsed: seconds since the run began; perRound: seconds a round
 *   has taken on average
 * @param {{ rounds: number, maxRounds: number, margin: number, budget: number }} options
 * @returns {string|null}
 */
function stopReason (now, { rounds, maxRounds, margin, budget }) {
  if (now.aborted) return 'interrupted'
  if (now.allFailed) return 'every cell failed'
  if (now.clean >= maxRounds) return `${maxRounds} rounds (--maxRounds)`
  if (now.disturbed > rounds) return `${now.disturbed} disturbed rounds, more than --rounds=${rounds}`
  if (now.clean < rounds) return null
  if (now.precise) return `every headline interval is narrow enough to decide (under ${margin * 100}% wide)`
  return now.elapsed + now.perRound > budget ? `another round would overrun the budget of ${budget} s` : null
}

module.exports = { stopReason }
