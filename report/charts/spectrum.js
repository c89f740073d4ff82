'use strict'
// The latency spectrum chart: latency against percentile on a log axis of 1/(1-p) (so 90%, 99%,
// 99.9%, 99.99% are evenly spaced, as HdrHistogram's plotter draws it), a line per kind, GET and
// PUT side by side on one log latency scale. Used by report/charts/figures.js.

const { renderSvg, chartTitle } = require('./svg')
const { KIND_COLORS } = require('./scaling')
const { OPS } = require('../data/spectra')

const MAX_X = 1e4 // 1/(1-p) at 99.99%
const DASHES = ['solid', 'dashed', 'dotted']

/** The axis label at 1/(1-p) = 10^k: 0%, 90%, 99%, 99.9%, 99.99%. */
function percentileLabel (x) {
  const k = Math.round(Math.log10(x))
  if (k === 0) return '0%'
  return `${(100 - 100 / 10 ** k).toFixed(Math.max(0, k - 2))}%`
}

// A spectrum's points: [1/(1-p), µs] up to 99.99%.
function points (spectrum) {
  return spectrum.rows.filter((r) => r.percentile < 1 && 1 / (1 - r.percentile) <= MAX_X * 1.0001)
    .map((r) => [1 / (1 - r.percentile), Math.max(1, r.valueMs * 1000)])
}

/**
 * Renders one spectrum chart.
 * @param {{ title: string, env: object, lines: { name: string, kind: string, cell: object }[] }} spec
 *   lines from spectrumGroups, each cell with spectra
 * @returns {string} SVG
 */
function spectrumChart ({ title, env, lines }) {
  const panels = OPS.filter((op) => lines.some((l) => l.cell.spectra[op]))
  const all = lines.flatMap((l) => panels.flatMap((op) => (l.cell.spectra[op] ? points(l.cell.spectra[op]) : [])))
  const ys = all.map(([, y]) => y)
  const [yMin, yMax] = [10 ** Math.floor(Math.log10(Math.min(...ys))), 10 ** Math.ceil(Math.log10(Math.max(...ys)))]
  const option = { title: chartTitle(title, env, 'valid repeats merged · x: percentile, log scale of 1/(1−p) · y: µs, log scale, the same for every line'),
    legend: { top: 62, type: 'scroll' }, grid: [], xAxis: [], yAxis: [], series: [] }
  const seen = new Map()
  const dashOf = (kind) => { seen.set(kind, (seen.get(kind) ?? -1) + 1); return DASHES[seen.get(kind) % DASHES.length] }
  const dashes = lines.map((l) => dashOf(l.kind))
  panels.forEach((op, p) => {
    const share = 100 / panels.length
    option.grid.push({ left: `${p * share + 8}%`, width: `${share - 12}%`, top: 110, bottom: 56 })
    option.xAxis.push({ gridIndex: p, type: 'log', min: 1, max: MAX_X, logBase: 10, name: 'percentile',
      nameLocation: 'middle', nameGap: 30, axisLabel: { formatter: percentileLabel } })
    option.yAxis.push({ gridIndex: p, type: 'log', min: yMin, max: yMax, logBase: 10, name: `${op} latency (µs)`,
      nameTextStyle: { align: 'left', fontWeight: 'bold' } })
    lines.forEach((line, i) => {
      const spectrum = line.cell.spectra[op]
      if (!spectrum) return
      option.series.push({ xAxisIndex: p, yAxisIndex: p, name: line.name, type: 'line', showSymbol: false,
        color: KIND_COLORS[line.kind], lineStyle: { width: 2, type: dashes[i] }, data: points(spectrum) })
    })
  })
  return renderSvg(option, { width: 940, height: 420 })
}

module.exports = { spectrumChart }
