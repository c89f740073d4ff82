'use strict'
// Chart of one run's latency per client process: a candle per process (box p50..p99, whiskers
// min..max, a diamond at the mean), GET and PUT side by side. Used by report/charts.js.

const { renderSvg, chartTitle } = require('./chart-svg')

const OPS = [{ op: 'GET', color: '#2471a3' }, { op: 'PUT', color: '#b9770e' }]
const LOG_RANGE = 30 // max/min ratio above which the y axis is logarithmic
const floor = (us) => Math.max(us, 1) // a log axis cannot show 0 µs

/**
 * Renders the latency candlesticks of one run.
 * @param {{ title: string, env: object, json: object }} run the run's client JSON:
 *   { processes: [{ index, latency: { GET, PUT } }], latency: { GET, PUT } }
 * @returns {string} SVG
 */
function latencyChart ({ title, env, json }) {
  const columns = [...json.processes.map((p) => ({ name: `P${p.index}`, latency: p.latency })),
    { name: 'all', latency: json.latency }]
  // A type with no requests (a reads-only run has no PUT) has null figures: no candle, no panel.
  const panels = OPS.map(({ op, color }) => ({ op, color,
    stats: columns.map((c) => (c.latency[op]?.count > 0 ? c.latency[op] : null)) }))
    .filter((panel) => panel.stats.some(Boolean))
  const option = {
    title: chartTitle(title, env, 'box p50–p99, whiskers min–max, ◆ mean; "all" merges every process'),
    grid: [], xAxis: [], yAxis: [], series: []
  }
  panels.forEach(({ op, color, stats }, i) => {
    const share = 100 / panels.length
    const present = stats.filter(Boolean)
    const lowest = Math.min(...present.map((s) => floor(s.min)))
    const log = Math.max(...present.map((s) => s.max)) / lowest > LOG_RANGE
    option.grid.push({ left: `${i * share + 8}%`, width: `${share - 12}%`, top: 90, bottom: 50 })
    option.xAxis.push({ gridIndex: i, type: 'category', data: columns.map((c) => c.name),
      name: 'client process', nameLocation: 'middle', nameGap: 28 })
    option.yAxis.push({ gridIndex: i, type: log ? 'log' : 'value', name: `${op} latency (µs)`,
      nameTextStyle: { align: 'left', fontWeight: 'bold' }, min: log ? undefined : 0 })
    const axes = { xAxisIndex: i, yAxisIndex: i }
    option.series.push({ ...axes, name: op, type: 'candlestick', barMaxWidth: 28,
      itemStyle: { color, color0: color, borderColor: color, borderColor0: color, opacity: 0.8 },
      data: stats.map((s) => (s ? [s.p50, s.p99, floor(s.min), s.max] : '-')) })
    option.series.push({ ...axes, name: `${op} mean`, type: 'scatter', symbol: 'diamond',
      symbolSize: 9, itemStyle: { color: '#222' }, data: stats.map((s) => (s ? s.mean : '-')) })
  })
  return renderSvg(option, { width: 940, height: 360 })
}

module.exports = { latencyChart }
