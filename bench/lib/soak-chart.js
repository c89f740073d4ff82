'use strict'
// The chart of a soak (bench/soak.js --chart=FILE.svg): RSS and p99 of each kind over time, one
// panel each, the machine's load average beside p99, rendered with the report's ECharts helper.

const { renderSvg } = require('../../report/charts/svg')

const COLORS = { sync: '#1f77b4', async: '#ff7f0e', 'sync-cluster': '#2ca02c', 'async-cluster': '#d62728' }

/**
 * @param {{ kinds: Array<{ kind: string, samples: object[] }>, cores: number, node: string, rate: number }} result
 * @returns {string} the SVG document
 */
function soakChart (result) {
  const minutes = (s) => Number((s.seconds / 60).toFixed(2))
  const load = {
    name: 'machine load (1 min)', type: 'line', xAxisIndex: 1, yAxisIndex: 2, showSymbol: false, color: '#999', lineStyle: { type: 'dashed' },
    data: result.kinds[0].samples.map((s) => [minutes(s), Number(s.load1.toFixed(1))])
  }
  const series = result.kinds.flatMap(({ kind, samples }) => [
    { name: kind, type: 'line', xAxisIndex: 0, yAxisIndex: 0, showSymbol: false, color: COLORS[kind],
      data: samples.map((s) => [minutes(s), Number((s.rssBytes / 2 ** 20).toFixed(1))]) },
    { name: kind, type: 'line', xAxisIndex: 1, yAxisIndex: 1, showSymbol: false, color: COLORS[kind],
      data: samples.map((s) => [minutes(s), s.p99Us === null ? null : Number((s.p99Us / 1000).toFixed(2))]) }
  ]).concat(load)
  return renderSvg({
    title: {
      text: `Soak: ${result.rate} ops/s per kind, all kinds at once`,
      subtext: `${result.cores} cores · Node ${result.node} · a sample every ${result.interval} s`,
      left: 'center'
    },
    legend: { top: 50 },
    grid: [{ top: 90, height: 150, left: 70, right: 50 }, { top: 300, height: 150, left: 70, right: 50 }],
    xAxis: [{ gridIndex: 0, type: 'value', name: 'minutes' }, { gridIndex: 1, type: 'value', name: 'minutes' }],
    yAxis: [{ gridIndex: 0, type: 'value', name: 'server RSS (MiB)', scale: true }, { gridIndex: 1, type: 'value', name: 'p99 (ms)' },
      { gridIndex: 1, type: 'value', name: 'load', position: 'right', splitLine: { show: false } }],
    series
  }, { width: 760, height: 500 })
}

module.exports = { soakChart }
