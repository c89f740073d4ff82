'use strict'
// The report's scaling model: a USL fit of throughput against nServers per multi-process kind, nClients
// and settings, over every valid repeat. Used by report/index.js (analysis) and report/page/usl-section.js.

const { isMultiProcess } = require('../../lib/kinds')
const { fitUsl } = require('../../lib/usl-model')
const { validValues } = require('./cell-stats')

/**
 * A USL fit of throughput against nServers per multi-process kind, nClients and settings, over every
 * valid repeat; fit is null when the repeats cover fewer than 3 values of nServers.
 * @param {object[]} cells main cells from summariseCells
 * @returns {{ settings, load, kind, points: { n, x }[], levels: number, fit: object|null }[]}
 */
function fitScaling (cells) {
  const groups = new Map()
  for (const cell of cells.filter((c) => isMultiProcess(c.kind))) {
    const key = [cell.variant, cell.load, cell.kind, cell.api].join('|')
    if (!groups.has(key)) groups.set(key, { settings: cell.variant, load: cell.load, kind: cell.kind, api: cell.api, points: [] })
    for (const x of validValues(cell, 'opsPerSec')) groups.get(key).points.push({ n: cell.nServers, x })
  }
  return [...groups.values()].map((group) => {
    const levels = new Set(group.points.map((p) => p.n)).size
    return { ...group, levels, fit: levels >= 3 ? fitUsl(group.points) : null }
  }).sort((a, b) => a.load - b.load)
}

module.exports = { fitScaling }
