'use strict'
// The one seeded generator (mulberry32) and a shuffle that uses it: the same seed gives the same
// order, so a run's schedule can be replayed from the seed in its env.json.

/**
 * mulberry32: a small, fast, seedable generator.
 * @param {number} seed a 32-bit integer
 * @returns {() => number} numbers in [0, 1)
 */
function mulberry32 (seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), a | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
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

module.exports = { mulberry32, shuffle }
