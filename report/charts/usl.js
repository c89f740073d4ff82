'use strict'
// Chart of the USL fits: every valid repeat's throughput against nServers (points) and the fitted
// curve per cluster kind, one panel per nClients, the oversubscribed band shaded. Used by report/charts/figures.js.

const { uslThroughput } = require('../../lib/usl-model')
const { renderSvg, chartTitle } = require('./svg')
const { KIND_COLORS } = require('./scaling')

const PANEL_HEIGHT = 300
const STEPS = 120 // points of each drawn curve

/**
 * Renders the USL chart.
 * @param {{ title: string, env: object, fits: object[] }} spec fits from fitScaling, each with
 *   a fit (those without one are left out)
 * @returns {string} SVG
 */
function uslChart ({ title, env, fits }) {
  const loads = [...new Set(fits.map((f) => f.load))]
  const columns = Math.min(2, loads.length)
  const rows = Math.ceil(loads.length / columns)
  const option = { title: [chartTitle(title, env, 'points: every valid repeat · lines: least-squares ' +
    'USL fit · ▼ predicted peak')], legend: { top: 62 }, grid: [], xAxis: [], yAxis: [], series: [] }
  loads.forEach((load, p) => {
    const some = fits.filter((f) => f.load === load)
    const left = (p % columns) * (100 / columns)
    const top = 140 + Math.floor(p / columns) * PANEL_HEIGHT
    option.title.push({ text: `nClients = ${load}`, left: `${left + 50 / columns}%`, top: top - 48,
      textAlign: 'center', textStyle: { fontSize: 13, color: '#222' } })
    option.grid.push({ left: `${left + 9}%`, width: `${100 / columns - 13}%`, top, height: PANEL_HEIGHT - 90 })
    const nMax = Math.max(...some.flatMap((f) => f.points.map((pt) => pt.n)))
    const xMax = Math.ceil(Math.max(nMax * 1.5, ...some.map((f) => f.fit.peakN * 1.1)
      .filter((x) => x <= nMax * 3)))
    option.xAxis.push({ gridIndex: p, type: 'value', min: 0, max: xMax, interval: 1,
      name: 'nServers (processes)', nameLocation: 'middle', nameGap: 28, splitLine: { show: false } })
    option.yAxis.push({ gridIndex: p, type: 'value', min: 0, name: 'Throughput (ops/s)',
      nameTextStyle: { align: 'left', fontWeight: 'bold' } })
    for (const { kind, points, fit } of some) option.series.push(...kindSeries(kind, p, points, fit, xMax))
    if (xMax > env.cpus) option.series[option.series.length - 1].markArea = oversubscribedArea(env.cpus, xMax)
  })
  return renderSvg(option, { width: 940, height: 120 + rows * PANEL_HEIGHT })
}

function kindSeries (kind, p, points, fit, xMax) {
  const color = KIND_COLORS[kind]
  const axes = { xAxisIndex: p, yAxisIndex: p }
  const curve = Array.from({ length: STEPS + 1 }, (_, i) => {
    const n = 1 + (xMax - 1) * i / STEPS
    return [n, uslThroughput(fit, n)]
  })
  const line = { ...axes, name: kind, type: 'line', color, showSymbol: false, smooth: false,
    lineStyle: { width: 2 }, data: curve }
  if (fit.peakN >= 1 && fit.peakN <= xMax) {
    line.markPoint = { symbol: 'triangle', symbolRotate: 180, symbolSize: 10, symbolOffset: [0, -7],
      label: { position: 'right', distance: 4, color, fontSize: 11, formatter: `peak N≈${fit.peakN.toFixed(1)}` },
      data: [{ coord: [fit.peakN, uslThroughput(fit, fit.peakN)] }] }
  }
  const dots = { ...axes, name: kind, type: 'scatter', color, symbolSize: 7,
    itemStyle: { opacity: 0.75 }, data: points.map(({ n, x }) => [n, x]) }
  return [line, dots]
}

// Beyond the cores the curve describes processes sharing cores, not adding them.
function oversubscribedArea (cores, xMax) {
  return { silent: true, itemStyle: { color: 'rgba(192, 57, 43, 0.08)' },
    label: { position: 'insideBottom', color: '#a93226', fontSize: 11,
      formatter: `oversubscribed: N > ${cores} cores` },
    data: [[{ xAxis: cores + 0.5 }, { xAxis: xMax }]] }
}

module.exports = { uslChart }
