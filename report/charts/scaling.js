'use strict'
// Chart of a figure against nServers: one line per kind (median of valid repeats) with
// min..max error bars, in side-by-side panels. Used for the runtime and the peak charts.

const { spread } = require('../data/cells')
const { renderSvg, chartTitle } = require('./svg')
const { KINDS } = require('../../lib/kinds')

// The same colour for a kind in every scaling chart.
const KIND_COLORS = {
  sync: '#c0392b', async: '#2471a3', 'sync-cluster': '#e67e22', 'async-cluster': '#17a589',
  'sync-reuseport': '#8e44ad', 'async-reuseport': '#7f8c8d', 'sync-lb': '#d4ac0d', 'async-lb': '#5d6d7e', 'sync-pool': '#a04000'
}

const PANEL_WIDTH = 470
const DODGE = 0.08 // x offset between kinds so their error bars do not overlap

/**
 * Renders the scaling chart.
 * @param {{ title: string, env: object, note: string, references?: boolean, panels: { name: string,
 *   unit: string, cells: object[], column: string, scale?: number, max?: number }[] }} spec scale
 *   multiplies the column; max fixes the top of the y axis; references: false drops the dashed
 *   single-process lines
 * @returns {string} SVG
 */
function scalingChart ({ title, env, note, panels, references = true }) {
  const option = { title: chartTitle(title, env, note), legend: { top: 62 },
    grid: [], xAxis: [], yAxis: [], series: [] }
  panels.forEach((panel, p) => {
    const share = 100 / panels.length
    option.grid.push({ left: `${p * share + 7}%`, width: `${share - 11}%`, top: 120, bottom: 56 })
    const nMax = Math.max(...panel.cells.map((c) => c.nServers))
    const xMax = nMax + 1 // one spare step each side keeps the end points off the axes
    option.xAxis.push({ gridIndex: p, type: 'value', min: 0, max: xMax, interval: 1,
      name: 'nServers (processes)', nameLocation: 'middle', nameGap: 30,
      axisLabel: { formatter: (v) => (v >= 1 && v <= nMax ? String(v) : '') },
      splitLine: { show: false } })
    option.yAxis.push({ gridIndex: p, type: 'value', max: panel.max, name: `${panel.name} (${panel.unit})`,
      nameTextStyle: { align: 'left', fontWeight: 'bold' } })
    const kinds = [...new Set(panel.cells.map((c) => c.kind))]
    const scale = panel.scale || 1
    kinds.forEach((kind, k) => {
      const x0 = (k - (kinds.length - 1) / 2) * DODGE
      const points = panel.cells.filter((c) => c.kind === kind)
        .map((c) => ({ x: c.nServers + x0, s: spread(c, panel.column) })).filter((d) => d.s)
      option.series.push(...kindSeries(kind, p, points.map(({ x, s }) =>
        [x, s.median * scale, s.min * scale, s.max * scale]), references))
    })
    if (nMax > env.cpus) {
      option.series.find((s) => s.xAxisIndex === p).markArea = oversubscribedArea(env.cpus, xMax)
    }
  })
  return renderSvg(option, { width: PANEL_WIDTH * panels.length, height: 440 })
}

// The median line (a point and a dashed reference for a single process) and its error bars.
function kindSeries (kind, p, data, references) {
  const color = KIND_COLORS[kind]
  const axes = { xAxisIndex: p, yAxisIndex: p }
  const single = KINDS[kind].model === 'single'
  const line = { ...axes, name: kind, type: single ? 'scatter' : 'line', color,
    symbolSize: 8, data: data.map(([x, m]) => [x, m]) }
  if (single && data.length > 0 && references) {
    line.markLine = { silent: true, symbol: 'none', lineStyle: { type: 'dashed', color },
      label: { formatter: `${kind}, 1 process`, position: 'insideEndTop', color },
      data: [{ yAxis: data[0][1] }] }
  }
  const bars = { ...axes, name: kind, type: 'custom', color, encode: { x: 0, y: [1, 2] },
    renderItem: renderErrorBar, data: data.map(([x, , min, max]) => [x, min, max]) }
  return [line, bars]
}

/** An ECharts custom-series item: a vertical bar from value 1 to value 2 at x = value 0, with caps. */
function renderErrorBar (params, api) {
  const [x, low] = api.coord([api.value(0), api.value(1)])
  const [, high] = api.coord([api.value(0), api.value(2)])
  const style = { stroke: api.visual('color'), lineWidth: 1.5 }
  const line = (x1, y1, x2, y2) => ({ type: 'line', shape: { x1, y1, x2, y2 }, style })
  return { type: 'group', children: [
    line(x, low, x, high), line(x - 5, low, x + 5, low), line(x - 5, high, x + 5, high)] }
}

// The shaded band over nServers > cores, up to xMax, on a value axis of nServers.
function oversubscribedArea (cores, xMax) {
  return {
    silent: true,
    itemStyle: { color: 'rgba(192, 57, 43, 0.08)' },
    // At the bottom: figures start at 0 and rarely come down there, unlike the reference labels.
    label: { position: 'insideBottom', color: '#a93226', fontSize: 11,
      formatter: `oversubscribed: ${cores} cores` },
    data: [[{ xAxis: cores + 0.5 }, { xAxis: xMax }]]
  }
}

module.exports = { scalingChart, renderErrorBar, KIND_COLORS }
