'use strict'
// How the report and compare word a ratio: "1.23× [1.10–1.37]", its verdict against the A/A
// noise band, the noise floor in %, and what the intervals' round counts give in confidence.

const { judge } = require('./intervals')

/** "1 worker", "2 workers". */
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** "With 1 process", "With a cluster of 2 workers" (and a note when they outnumber the cores). */
function processes ({ cluster, model = 'cluster', nServers }, cores) {
  if (!cluster) return 'With 1 process'
  const over = nServers > cores ? ` (oversubscribed: more than the ${cores} cores)` : ''
  return model === 'reuseport' ? `With ${plural(nServers, 'reusePort process', 'reusePort processes')}${over}` : `With a cluster of ${plural(nServers, 'worker')}${over}`
}

/**
 * Entries (each with load and ratio) worded by verdict, e.g. ["sync faster at nClients 1, 2:
 * 1.21× [1.10–1.30] to 1.49× [1.35–1.69]", "within noise at nClients 4: 0.98× [0.90–1.05]"].
 * @param {object[]} entries
 * @param {object|null} band the A/A noise band
 * @param {{ up: string, down: string }} words the verdict above the band and below it
 * @returns {string[]}
 */
function verdictParts (entries, band, words) {
  const by = { up: [], down: [], noise: [], few: [] }
  for (const e of entries) by[judge(e.ratio, band)].push(e)
  const what = { ...words, noise: band ? 'within noise' : 'no clear difference', few: 'a single round (no interval)' }
  return Object.entries(by).filter(([, some]) => some.length > 0).map(([verdict, some]) => {
    const sorted = [...some].sort((a, b) => a.ratio.estimate - b.ratio.estimate)
    const loads = [...new Set(some.map((e) => e.load))].sort((a, b) => a - b).join(', ')
    const [first, last] = [formatRatio(sorted[0].ratio), formatRatio(sorted[sorted.length - 1].ratio)]
    const range = first === last ? first : `${first} to ${last}`
    return `${what[verdict]} at nClients ${loads}: ${range}`
  })
}

/** Entries grouped by a key, in first-seen order. */
function groupBy (entries, key) {
  const groups = new Map()
  for (const e of entries) groups.set(key(e), [...(groups.get(key(e)) ?? []), e])
  return [...groups.values()]
}

/** x with exactly `digits` decimals and thousands separators, e.g. fixed(1234.5, 1) is "1,234.5". */
const fixed = (x, digits) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

/**
 * @param {{ estimate: number, low: number, high: number }} r
 * @returns {string} e.g. "1.23× [1.10–1.37]"
 */
function formatRatio (r) {
  return `${fixed(r.estimate, 2)}× [${fixed(r.low, 2)}–${fixed(r.high, 2)}]`
}

/**
 * A ratio's verdict in words and its tone (a CSS class): `faster` or `slower` faster when its
 * interval clears the noise band, else within noise (no clear difference without a band).
 * @param {object|null} r a ratio from report/intervals.js
 * @param {{ low: number, high: number } | null} band
 * @param {string} faster what is faster above 1
 * @param {string} slower what is faster below 1
 * @returns {[string, 'up'|'down'|'none']}
 */
function verdictOf (r, band, faster, slower) {
  switch (judge(r, band)) {
    case 'up': return [`${faster} faster`, 'up']
    case 'down': return [`${slower} faster`, 'down']
    case 'noise': return [band ? 'within noise' : 'no clear difference', 'none']
    default: return [r ? 'one round: no interval' : 'no valid repeat', 'none']
  }
}

/**
 * How far one A/A label can be from the other, in %: the far end of the noise band.
 * @param {{ low: number, high: number } | null} band
 * @returns {number|null}
 */
function noisePercent (band) {
  return band ? Math.round((Math.max(band.high, 1 / band.low) - 1) * 100) : null
}

/**
 * What the intervals of some ratios rest on: their rounds and the confidence that gives.
 * @param {Array<object|null>} ratios
 * @returns {string} e.g. "6 rounds: each interval is the lowest to the highest per-round ratio, which holds the median with 96.9% confidence"
 */
function roundsNote (ratios) {
  const some = ratios.filter((r) => r && !r.few)
  if (some.length === 0) return 'too few rounds for any interval'
  const ns = [...new Set(some.map((r) => r.n))].sort((a, b) => a - b)
  const confidence = Math.min(...some.map((r) => r.confidence))
  const rounds = ns.length === 1 ? `${ns[0]} rounds` : `${ns[0]}–${ns[ns.length - 1]} rounds`
  const what = ns[ns.length - 1] <= 8 ? 'the lowest to the highest per-round ratio' : 'an order statistic of the per-round ratios'
  const weak = confidence < 0.95 ? ` (below 95%: ${ns[0]} rounds are too few for it; 6 are the fewest that reach it)` : ''
  return `${rounds}: an interval is ${what}, which holds the true median with at least ${fixed(confidence * 100, 1)}% confidence${weak}`
}

module.exports = { fixed, formatRatio, verdictOf, noisePercent, roundsNote, verdictParts, groupBy, processes, plural }
