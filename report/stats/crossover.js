'use strict'
// Where async wins: throughput of each kind/API/io_uring/pool variant against storage latency
// (ioDelay), per process count and load, and the latency at which async overtakes sync; a group's
// and a delay's names. Used by report/index.js (analysis), report/page/answer-storage.js (sentences) and
// report/charts/crossover.js.

const { pairedRatio, judge } = require('./intervals')
const { processes } = require('./verdicts')
const { KINDS, isMultiProcess } = require('../../lib/kinds')
const { LINE_DIMENSIONS: LINE_SETTINGS, valueLabel, delayOrder } = require('../../lib/results/dimensions')

// LINE_SETTINGS make a line of their own in a crossover chart; ioDelay is the x axis.

// The throughput ratio a/b taken round by round, or null.
const ratio = (a, b) => pairedRatio(a, b, 'opsPerSec')

// What a cell's line is: sync, or async with its API, and the settings that vary in the folder.
function lineOf (cell, varying) {
  const base = KINDS[cell.kind].store === 'async' ? `async${cell.api ? ` (${cell.api})` : ''}` : 'sync'
  const first = cell.rows[0]
  const extra = varying.map((s) => valueLabel(s, first[s]))
  return [base, ...extra].join(', ')
}

/**
 * Groups the cells that have an ioDelay by process model and count (nServers), load and
 * every other setting; each group holds its lines and, per async line, the async/sync ratio at
 * each delay and the crossover.
 * @param {object[]} cells main cells from summariseCells (with rows holding ioDelay)
 * @returns {object[]} groups: { processes, cluster, model, load, rest, delays, lines: { name, sync, points:
 *   { delay, cell }[] }[], crossings: { line, against, ratios: { delay, ratio }[], from }[] }
 *   (from: the first delay from which async is clearly faster at every larger delay, or null)
 */
function crossoverGroups (cells) {
  // A cold cell (--storage=cold) is on the real disk: no point of the delay axis.
  const delayed = cells.filter((c) => c.rows[0].ioDelay !== null && c.rows[0].ioDelay !== undefined && c.rows[0].storage !== 'cold')
  if (new Set(delayed.map((c) => c.rows[0].ioDelay)).size < 2) return []
  const varying = LINE_SETTINGS.filter((s) => new Set(delayed.map((c) => c.rows[0][s])).size > 1)
  const skip = new Set(['ioDelay', 'ioDelayQd4', 'ioDepth', 'storage', ...LINE_SETTINGS])
  const groups = new Map()
  for (const cell of delayed) {
    const cluster = isMultiProcess(cell.kind) // cluster or reuseport
    const model = KINDS[cell.kind].model
    const rest = cell.variant.split(', ').filter((s) => s && !skip.has(s.split('=')[0])).join(', ')
    const key = [model, cell.nServers, cell.load, rest].join('|')
    if (!groups.has(key)) groups.set(key, { processes: cell.nServers, cluster, model, kind: cell.kind, load: cell.load, rest, lines: new Map() })
    const lines = groups.get(key).lines
    const name = lineOf(cell, varying)
    if (!lines.has(name)) lines.set(name, { name, sync: KINDS[cell.kind].store === 'sync', settings: name.split(', ').slice(1).join(', '), points: [] })
    lines.get(name).points.push({ delay: cell.rows[0].ioDelay, cell })
  }
  return [...groups.values()].map((g) => {
    const lines = [...g.lines.values()].sort((a, b) => b.sync - a.sync || a.name.localeCompare(b.name))
    for (const line of lines) line.points.sort((a, b) => delayOrder(a.delay, b.delay))
    const delays = [...new Set(lines.flatMap((l) => l.points.map((p) => p.delay)))].sort(delayOrder)
    return { ...g, lines, delays, crossings: crossings(lines) }
  }).filter((g) => g.delays.length > 1) // a single storage latency has no crossover to show
    .sort((a, b) => a.cluster - b.cluster || a.model.localeCompare(b.model) || a.processes - b.processes || a.load - b.load || a.rest.localeCompare(b.rest))
}

// Each async line against the sync line with the same settings (or the first sync line).
function crossings (lines) {
  const syncs = lines.filter((l) => l.sync)
  return lines.filter((l) => !l.sync && syncs.length > 0).map((line) => {
    const against = syncs.find((s) => s.settings === line.settings) ?? syncs[0]
    const ratios = line.points.map(({ delay, cell }) => {
      const other = against.points.find((p) => p.delay === delay)
      return { delay, ratio: other ? ratio(cell, other.cell) : null }
    }).filter((r) => r.ratio)
    return { line: line.name, against: against.name, ratios, from: firstWin(ratios) }
  })
}

// The first delay from which every ratio is clearly above 1 (its verdict faster).
function firstWin (ratios) {
  let from = null
  for (const { delay, ratio: r } of ratios) {
    const wins = judge(r) === 'faster'
    if (wins && from === null) from = delay
    if (!wins) from = null
  }
  return from
}

/**
 * Where between the last delay without a win and the first with one the ratio crosses 1, by
 * linear interpolation of the estimates in µs; null when a side is 'off' or the estimates do
 * not straddle 1.
 * @param {{ ratios: object[], from: any }} crossing from crossoverGroups
 * @returns {number|null} µs
 */
function interpolateCrossing ({ ratios, from }) {
  const i = ratios.findIndex((r) => r.delay === from)
  if (i < 1 || ratios[i - 1].delay === 'off') return null
  const [a, b] = [ratios[i - 1], ratios[i]]
  const [ya, yb] = [a.ratio.estimate, b.ratio.estimate]
  if (!(ya < 1 && yb > 1)) return null
  return Math.round(Number(a.delay) + (1 - ya) / (yb - ya) * (Number(b.delay) - Number(a.delay)))
}

/**
 * How a line setting changed an async line: the ratio of the line with it to the line without,
 * at each delay both have (io_uring over the thread pool; a bigger pool over a smaller one).
 * @param {object} group from crossoverGroups
 * @returns {{ line: string, base: string, ratios: { delay, ratio }[] }[]}
 */
function settingEffects (group) {
  const asyncLines = group.lines.filter((l) => !l.sync)
  const effects = []
  for (const line of asyncLines) {
    for (const base of asyncLines) {
      const [a, b] = [line.name.split(', '), base.name.split(', ')]
      const differ = a.filter((part, k) => part !== b[k])
      const oneStep = a.length === b.length && a[0] === b[0] && differ.length === 1 &&
        (differ[0] === 'io_uring' || (/^pool \d+$/.test(differ[0]) && Number(differ[0].slice(5)) > Number(b[a.indexOf(differ[0])].slice(5))))
      if (!oneStep) continue
      const ratios = line.points.map(({ delay, cell }) => {
        const other = base.points.find((p) => p.delay === delay)
        return { delay, ratio: other ? ratio(cell, other.cell) : null }
      }).filter((r) => r.ratio)
      effects.push({ line: line.name, base: base.name, ratios })
    }
  }
  return effects
}

/** "With 1 process", "With a cluster of 2 workers", with the load and the other settings. */
function groupName (g) {
  return `${processes({ kind: g.kind, nServers: g.processes }, Infinity)} and ${g.load} client process${g.load === 1 ? '' : 'es'}` +
    `${g.rest ? ` (${g.rest})` : ''}`
}

/** The x label of a delay: the plain folder, or the FUSE layer's delay. */
function delayLabel (delay) {
  return delay === 'off' ? 'plain folder' : `${delay} µs`
}

module.exports = { crossoverGroups, interpolateCrossing, settingEffects, groupName, delayLabel }
