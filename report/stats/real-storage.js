'use strict'
// What a folder with --storage says about real storage: each cell's cache state (residency before and after
// its rounds, bytes read from the device per GET), the delay layer checked against the real disk
// (storage-check: the same sync-vs-async comparison cold and on the delay layer, their ratio delay/real
// taken within each round with its interval and verdict), and the regime axis (the sync-vs-async verdict
// at each --cacheShare).

const { pairLabel } = require('../../lib/kinds')
const { VARIANTS } = require('../../lib/results/dimensions')
const { spread } = require('../data/cells')
const { roundValues, divideRounds, pairedSummary, judge, MARGIN } = require('./intervals')

const storageOf = (cell) => cell.rows[0]?.storage ?? null
const shareOf = (cell) => cell.rows[0]?.cacheShare ?? null
const median = (cell, column) => spread(cell, column)?.median ?? null
// The comparisons of sync and async throughput, one process model and count at a time.
const storeVerdicts = (verdicts) => verdicts.filter((v) => v.kind === 'store' && v.metric === 'opsPerSec')
// Where a cell reads from, and the delay layer's settings: what the two sides of the check differ by.
const STORAGE_COLUMNS = ['storage', 'cacheShare', 'ioDelay', 'ioDelayQd4', 'ioDepth']
const DELAY_COLUMNS = ['ioDelay', 'ioDelayQd4', 'ioDepth']
// A cell's kind, count, load, fs API and every other setting, its runtime included: all but where it reads from.
const settingsOf = (cell) => [cell.kind, cell.nServers, cell.load, cell.api ?? '',
  ...VARIANTS.filter((c) => !STORAGE_COLUMNS.includes(c)).map((c) => `${c}=${cell.rows[0]?.[c] ?? ''}`)].join('|')
const pairKey = (v) => v.cells.map(settingsOf).join(' vs ')
const delayOf = (v) => Object.fromEntries(DELAY_COLUMNS.map((c) => [c, v.cells[0].rows[0]?.[c] ?? null]))

/**
 * The delay layer's sync/async over the real disk's, taken within each round (the four cells' windows of a round
 * saw the same moment of the machine) and summarised over the rounds all four have, with its verdict by the
 * comparisons' rule: faster (the layer's ratio is higher), slower, same (within ±margin), undecided.
 * @param {object} real the cold comparison (cells [sync, async])
 * @param {object} stand the same comparison on the delay layer
 * @param {number} [margin]
 * @returns {{ estimate?: number, low?: number, high?: number, n?: number, confidence?: number, verdict: string }}
 */
function delayOverReal (real, stand, margin = MARGIN) {
  const within = (v) => divideRounds(roundValues(v.cells[0], v.metric), roundValues(v.cells[1], v.metric))
  const ratio = pairedSummary(divideRounds(within(stand), within(real)))
  const verdict = judge(ratio, { margin })
  return { ...(ratio && { estimate: ratio.estimate, low: ratio.low, high: ratio.high, n: ratio.n, confidence: ratio.confidence }),
    verdict: verdict === 'few' ? 'undecided' : verdict }
}

/**
 * Whether the delay layer agrees with the real disk, by the verdict on delay/real: the rule of storage-check.
 * - agree: delay/real is the same (its interval within ±margin): the layer gives the disk's sync/async;
 * - same direction: delay/real is faster or slower, and the two sync/async verdicts are the same decided word (the size differs);
 * - disagree: delay/real is faster or slower, and the verdicts differ;
 * - undecided: delay/real is undecided (its interval holds 1 but reaches past the margin, or too few rounds).
 * @param {{ verdict: string }} real the real disk's sync/async verdict
 * @param {{ verdict: string }} stand the delay layer's
 * @param {{ verdict: string }} gap delayOverReal
 * @returns {'agree'|'same direction'|'disagree'|'undecided'}
 */
function agreementOf (real, stand, gap) {
  if (gap.verdict === 'same') return 'agree'
  if (gap.verdict !== 'faster' && gap.verdict !== 'slower') return 'undecided'
  return real.verdict === stand.verdict && ['faster', 'slower'].includes(real.verdict) ? 'same direction' : 'disagree'
}

/**
 * The storage-check rows: each sync-vs-async comparison on the cold real disk beside the same one (the same kinds,
 * counts, load, runtime and every other setting) on the delay layer, a row per delay.
 * @param {object[]} verdicts report/stats/comparisons.js comparisons
 * @returns {object[]} { label, real, stand, gap (delayOverReal), agreement, delayUs, qd4Us (null: one delay at every depth) }
 */
function checkRows (verdicts) {
  const store = storeVerdicts(verdicts)
  const real = store.filter((v) => storageOf(v.cells[0]) === 'cold' && [0, null].includes(shareOf(v.cells[0])))
  return real.flatMap((r) => store.filter((v) => storageOf(v.cells[0]) === 'delay' && pairKey(v) === pairKey(r)).map((stand) => {
    const gap = delayOverReal(r, stand, r.margin)
    const { ioDelay, ioDelayQd4 } = delayOf(stand)
    return { label: pairLabel(r.cells[0], r.cells[1]), real: r, stand, gap, agreement: agreementOf(r, stand, gap),
      delayUs: Number(ioDelay), qd4Us: /^\d+$/.test(String(ioDelayQd4)) ? Number(ioDelayQd4) : null }
  }))
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
 * The cache state of every cell that recorded it (a delay cell's: its backing folder's).
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

module.exports = { realStorage, agreementOf, delayOverReal, checkRows, regimeRows, cacheRows }
