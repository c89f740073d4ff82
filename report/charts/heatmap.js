'use strict'
// Heat map of median throughput over kind × nServers (x) and nClients (y), values labelled;
// oversubscribed cells carry a † and a dashed border, client-bound ones a ⚠. Used by report/charts/figures.js.

const { spread } = require('../data/cells')
const { renderSvg, chartTitle } = require('./svg')

const OVERSUBSCRIBED_BORDER = { borderColor: '#a93226', borderWidth: 2, borderType: 'dashed' }

/**
 * Renders the throughput heat map of a set of cells.
 * @param {{ title: string, env: object, cells: object[] }} spec cells from groupCells
 * @returns {string} SVG
 */
function heatmapChart ({ title, env, cells }) {
  const column = (cell) => `${cell.kind}\n${cell.nServers}`
  const columns = [...new Set(cells.map(column))]
  const loads = [...new Set(cells.map((c) => c.load))].sort((a, b) => a - b)
  const data = []
  for (const cell of cells) {
    const s = spread(cell, 'opsPerSec')
    if (!s) continue
    data.push({
      value: [columns.indexOf(column(cell)), loads.indexOf(cell.load), s.median],
      label: { formatter: `${Math.round(s.median)}${cell.oversubscribed ? ' †' : ''}` +
        `${cell.clientBound ? ' ⚠' : ''}` },
      itemStyle: cell.oversubscribed ? OVERSUBSCRIBED_BORDER : undefined
    })
  }
  const values = data.map((d) => d.value[2])
  const note = `median ops/s of valid repeats · † oversubscribed: nServers > ${env.cpus} cores` +
    (cells.some((c) => c.clientBound) ? ' · ⚠ client-bound' : '')
  const option = {
    title: chartTitle(title, env, note),
    grid: { left: 90, right: 30, top: 80, bottom: 110 },
    xAxis: { type: 'category', data: columns, name: 'kind, nServers', nameLocation: 'middle',
      nameGap: 44, splitArea: { show: true } },
    yAxis: { type: 'category', data: loads.map(String), name: 'nClients', nameLocation: 'middle',
      nameGap: 40, splitArea: { show: true } },
    visualMap: { type: 'continuous', min: Math.min(...values), max: Math.max(...values),
      orient: 'horizontal', left: 'center', bottom: 8, itemHeight: 240, calculable: false,
      text: ['ops/s (high)', 'low'], inRange: { color: ['#eef4fb', '#6baed6', '#08306b'] } },
    series: [{ type: 'heatmap', data, label: { show: true, fontSize: 12 } }]
  }
  return renderSvg(option, { width: 940, height: 130 + 60 * loads.length + 110 })
}

module.exports = { heatmapChart }
