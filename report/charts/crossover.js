'use strict'
// The crossover chart: throughput and GET p99 of each line (sync, async per API, io_uring, pool)
// against storage latency, median of valid repeats with min–max bars. Used by report/charts/figures.js.

const { spread } = require('../data/cells')
const { renderSvg, chartTitle } = require('./svg')
const { renderErrorBar } = require('./scaling')
const { delayLabel } = require('../stats/crossover')

const COLORS = ['#c0392b', '#2471a3', '#17a589', '#8e44ad', '#e67e22', '#2c3e50', '#b7950b', '#7f8c8d']
const PANEL_WIDTH = 520

/**
 * Renders one group's chart: two panels, ops/s and GET p99 (log scale), a line per variant.
 * @param {{ title: string, env: object, group: object }} spec group from crossoverGroups
 * @returns {string} SVG
 */
function crossoverChart ({ title, env, group }) {
  const categories = group.delays.map(delayLabel)
  const panels = [{ name: 'Throughput', unit: 'ops/s', column: 'opsPerSec', log: false },
    { name: 'GET p99', unit: 'µs', column: 'getP99', log: true }]
  const option = { title: chartTitle(title, env, 'median of valid repeats, bars min–max; storage latency per device call'),
    legend: { top: 62, type: 'scroll' }, grid: [], xAxis: [], yAxis: [], series: [] }
  panels.forEach((panel, p) => {
    option.grid.push({ left: `${p * 50 + 8}%`, width: '37%', top: 120, bottom: 56 })
    option.xAxis.push({ gridIndex: p, type: 'category', data: categories, name: 'storage latency (ioDelay)',
      nameLocation: 'middle', nameGap: 30 })
    option.yAxis.push({ gridIndex: p, type: panel.log ? 'log' : 'value', name: `${panel.name} (${panel.unit})`,
      nameTextStyle: { align: 'left', fontWeight: 'bold' } })
    group.lines.forEach((line, k) => {
      const color = COLORS[k % COLORS.length]
      const data = line.points.map(({ delay, cell }) => [delayLabel(delay), spread(cell, panel.column)])
        .filter(([, s]) => s)
      const axes = { xAxisIndex: p, yAxisIndex: p, name: line.name, color }
      option.series.push({ ...axes, type: 'line', symbolSize: 8, lineStyle: { type: line.sync ? 'solid' : 'dashed' },
        data: data.map(([x, s]) => [x, s.median]) })
      option.series.push({ ...axes, type: 'custom', encode: { x: 0, y: [1, 2] }, renderItem: renderErrorBar,
        data: data.map(([x, s]) => [x, s.min, s.max]) })
    })
  })
  return renderSvg(option, { width: PANEL_WIDTH * 2, height: 460 })
}

module.exports = { crossoverChart }
