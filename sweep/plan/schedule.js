'use strict'
// The order of a run's cells: shuffled with a seeded PRNG (the seed is recorded), in rounds that
// hold every cell once, so repeats interleave and a machine's slow drift spreads over all cells.

const { mulberry32, shuffle } = require('../../lib/random')

/**
 * @param {object[]} cells
 * @param {number} repeats how many rounds
 * @param {number} seed of the PRNG (mulberry32)
 * @returns {Array<{ cell: object, repeat: number, order: number }>} the runs in order, `order` from 1
 */
function schedule (cells, repeats, seed) {
  const random = mulberry32(seed)
  const runs = []
  for (let repeat = 1; repeat <= repeats; repeat++) {
    for (const cell of shuffle(cells, random)) runs.push({ cell, repeat, order: runs.length + 1 })
  }
  return runs
}

module.exports = { schedule }
