'use strict'
// The order of a run's cells: shuffled with a seeded PRNG (the seed is recorded), in rounds that
// hold every cell once, so repeats interleave and a machine's slow drift spreads over all cells.

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

/**
 * @param {any[]} list
 * @param {() => number} random in [0, 1)
 * @returns {any[]} a shuffled copy (Fisher-Yates)
 */
function shuffle (list, random) {
  const out = [...list]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

function mulberry32 (seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), a | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

module.exports = { schedule, shuffle, mulberry32 }
