'use strict'
// What a folder with --storage says about real storage: each plain-folder cell's cache state (residency
// before and after its rounds, bytes read from the device per GET), the delay layer checked against
// the real disk (storage-check: the same sync-vs-async comparison cold and on the delay layer, and
// whether their verdicts agree), and the regime axis (the sync-vs-async verdict at each --cacheShare).

const { pairLabel } = require('../../lib/kinds')
const { spread } = require('../data/cells')

const storageOf = (cell) => cell.rows[0]?.storage ?? null
const shareOf = (cell) => cell.rows[0]?.cacheShare ?? null
const median = (cell, column) => spread(cell, column)?.median ?? null
// The comparisons of sync and async throughput, one process model and count at a time.
const storeVerdicts = (verdicts) => verdicts.filter((v) => v.kind === 'store' && v.metric === 'opsPerSec')
const pairKey = (v) => `${v.cells[0].kind}|${v.cells[0].nServers}|${v.cells[0].load}`

/**
 * Whether two verdicts on one comparison agree: the rule of storage-check.
 * - undecided: either verdict is undecided (its interval is too wide to say);
 * - disagree: the verdicts differ (faster, slower or the same);
 * - agree: the same verdict, and the intervals overlap;
 * - same direction: the same verdict, but the intervals do not overlap (the size of the effect differs).
 * @param {{ verdict: string, estimate?: number, low?: number, high?: number }} real the real disk's
 * @param {{ verdict: string, estimate?: number, low?: number, high?: number }} stand the stand-in's
 * @returns {{ agreement: 'agree'|'same direction'|'disagree'|'undecided', gap: number|null }} gap: the stand-in's ratio over the real one's
 */
function agreementOf (real, stand) {
  const gap = real.estimate && stand.estimate ? stand.estimate / real.estimate : null
  if (real.verdict === 'undecided' || stand.verdict === 'undecided') return { agreement: 'undecided', gap }
  if (real.verdict !== stand.verdict) return { agreement: 'disagree', gap }
  const overlap = real.low <= stand.high && stand.low <= real.high
  return { agreement: overlap ? 'agree' : 'same direction', gap }
}

/**
 * The storage-check rows: each sync-vs-async comparison on the cold real disk beside the same on the delay layer.
 * @param {object[]} verdicts report/stats/comparisons.js comparisons
 * @returns {object[]} { label, real, stand, agreement, gap, delayUs }
 */
function checkRows (verdicts) {
  const store = storeVerdicts(verdicts)
  const real = store.filter((v) => storageOf(v.cells[0]) === 'cold' && [0, null].includes(shareOf(v.cells[0])))
  return real.flatMap((r) => {
    const stand = store.find((v) => storageOf(v.cells[0]) === 'delay' && pairKey(v) === pairKey(r))
    if (!stand) return []
    return [{ label: pairLabel(r.cells[0], r.cells[1]), real: r, stand, delayUs: stand.cells[0].rows[0].ioDelay, ...agreementOf(r, stand) }]
  })
}

/**
 * The regime axis: per sync-vs-async pair, its verdict at each cache share, and the largest share up to which async
 * is clearly faster at every share measured.
 * @param {object[]} verdicts
 * @returns {object[]} { label, points: [{ share, verdict, deviceBytesPerGet }] by share, upTo: number|null, next: object|null }
 */
function regimeRows (verdicts) {
  const cold = storeVerdicts(verdicts).filter((v) => storageOf(v.cells[0]) === 'cold' && shareOf(v.cells[0]) !== null)
  const groups = new Map()
  for (const v of cold) {
    if (!groups.has(pairKey(v))) groups.set(pairKey(v), { label: pairLabel(v.cells[0], v.cells[1]), points: [] })
    groups.get(pairKey(v)).points.push({ share: shareOf(v.cells[0]), verdict: v, deviceBytesPerGet: median(v.cells[1], 'deviceBytesPerGet') })
  }
  return [...groups.values()].filter((g) => g.points.length > 1).map((g) => {
    const points = g.points.sort((a, b) => a.share - b.share)
    const firstNot = points.findIndex((p) => p.verdict.verdict !== 'slower') // sync slower: async faster
    const upTo = firstNot === 0 ? null : points[(firstNot === -1 ? points.length : firstNot) - 1].share
    return { ...g, points, upTo, next: firstNot > 0 ? points[firstNot] : null }
  })
}

/**
 * The cache state of every plain-folder cell that recorded it.
 * @param {object[]} cells summariseCells' (main cells)
 * @returns {object[]} { id, storage, share, before, after, deviceBytesPerGet, limitBytes }
 */
function cacheRows (cells) {
  return cells.filter((c) => c.rows.some((r) => r.residencyAfter !== null && r.residencyAfter !== undefined)).map((c) => ({
    id: c.id, storage: storageOf(c), share: shareOf(c), before: median(c, 'residencyBefore'), after: median(c, 'residencyAfter'),
    deviceBytesPerGet: median(c, 'deviceBytesPerGet'), limitBytes: median(c, 'cacheLimitBytes')
  }))
}

/**
 * A folder's real-storage findings, or null when it has none.
 * @param {object} env env.json (its `device`: storage/device.js probeDevice)
 * @param {object[]} cells main cells
 * @param {object[]} verdicts
 * @returns {{ device: object|null, cache: object[], check: object[], regime: object[] }|null}
 */
function realStorage (env, cells, verdicts) {
  const found = { device: env.device ?? null, cache: cacheRows(cells), check: checkRows(verdicts), regime: regimeRows(verdicts) }
  return found.device || found.check.length > 0 || found.regime.length > 0 || found.cache.some((c) => c.storage === 'cold') ? found : null
}

module.exports = { realStorage, agreementOf, checkRows, regimeRows, cacheRows }
