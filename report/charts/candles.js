'use strict'
// The historic benchmark's chart of one cell: per client process and operation a candle from Min to
// Max, its body from Mean to 101% of Mean, in µs on a log axis. Used by report/charts/figures.js.

const { renderSvg, chartTitle } = require('./svg')

const OPS = ['GET', 'PUT']
const OP_COLORS = { GET: '#2471a3', PUT: '#e67e22' }

/**
 * Merges the per-process latency of a cell's client documents (one per round): per process index
 * and operation the least min, the count-weighted mean, the greatest max and the summed count.
 * @param {{ processes: { index: number, latency: Record<'GET'|'PUT', { count: number, min: number|null,
 *   mean: number|null, max: number|null }> }[] }[]} jsons
 * @returns {{ process: number, op: 'GET'|'PUT', min: number|null, mean: number|null, max: number|null,
 *   count: number }[]} GETs first, then PUTs, each by process; min, mean and max are null when count is 0
 */
function mergeProcessLatency (jsons) {
  const merged = new Map()
  for (const doc of jsons) {
    for (const p of doc.processes ?? []) {
      for (const op of OPS) {
        const key = `${op} ${p.index}`
        if (!merged.has(key)) merged.set(key, { process: p.index, op, min: null, sum: 0, max: null, count: 0 })
        const m = merged.get(key)
        const l = p.latency?.[op]
        if (!l || !(l.count > 0)) continue
        m.min = m.min === null ? l.min : Math.min(m.min, l.min)
        m.max = m.max === null ? l.max : Math.max(m.max, l.max)
        m.sum += l.mean * l.count
        m.count += l.count
      }
    }
  }
  return [...merged.values()]
    .sort((a, b) => OPS.indexOf(a.op) - OPS.indexOf(b.op) || a.process - b.process)
    .map(({ sum, ...m }) => ({ ...m, mean: m.count > 0 ? sum / m.count : null }))
}

/**
 * Renders the candles of one cell, GETs first, then PUTs, each by process number.
 * @param {{ title: string, env: object, cell: string, processes: { process: number, op: 'GET'|'PUT',
 *   min: number, mean: number, max: number, count: number }[] }} spec processes from mergeProcessLatency
 * @returns {string} SVG
 */
function candlesChart ({ title, env, cell, processes }) {
  const drawn = processes.filter((p) => p.count > 0)
    .sort((a, b) => OPS.indexOf(a.op) - OPS.indexOf(b.op) || a.process - b.process)
  const option = { title: chartTitle(title, env, `${cell} · per client process: min–max, body mean to 101% of mean`) }
  if (drawn.length === 0) {
    option.graphic = { type: 'text', left: 'center', top: 140, style: { text: 'no latency recorded', fontSize: 14, fill: '#555' } }
    return renderSvg(option, { width: 900, height: 300 })
  }
  option.grid = { left: 80, right: 30, top: 90, bottom: 56 }
  option.xAxis = { type: 'category', data: drawn.map((p) => `${p.op} ${p.process}`), name: 'operation, client process',
    nameLocation: 'middle', nameGap: 32 }
  // Max is often a hundred times the mean: a linear axis would flatten every body to a line.
  option.yAxis = { type: 'log', name: 'latency (µs)', nameTextStyle: { align: 'left', fontWeight: 'bold' } }
  option.series = [{
    type: 'candlestick',
    barMaxWidth: 28,
    data: drawn.map((p) => ({ value: [p.mean, p.mean * 1.01, p.min, p.max],
      itemStyle: { color: OP_COLORS[p.op], borderColor: OP_COLORS[p.op] } }))
  }]
  return renderSvg(option, { width: Math.max(900, 160 + 50 * drawn.length), height: 440 })
}

module.exports = { candlesChart, mergeProcessLatency }
