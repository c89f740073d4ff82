'use strict'
// The capacity charts: the latency–load curve of each regime (p50, p99 and p99.9 against the
// offered rate, every kind on one log latency axis, the SLO as a line, each capacity marked) and
// the regime map (capacity against storage latency, per kind). Used by report/capacity/capacity.js.

const { renderSvg, chartTitle } = require('../charts/svg')
const { KIND_COLORS } = require('../charts/scaling')

const STYLES = { p50: 'dashed', p99: 'solid', p999: 'dotted' }
const color = (kind) => KIND_COLORS[kind] ?? '#2c3e50'

/**
 * Renders one regime's latency–load chart.
 * @param {{ title: string, env: object, slo: object[], cells: Array<{ id: string, name: string, kind: string,
 *   capacity: number|null, points: Array<{ rate: number, p50: number, p99: number, p999: number }> }> }} spec
 *   name: the legend's; points: per offered rate (req/s), the median over its probes of the percentile of each probe's
 *   requests pooled (µs, GET and PUT together); slo: lib/slo.js targets
 * @returns {string} SVG
 */
function latencyLoadChart ({ title, env, slo, cells }) {
  const series = []
  for (const cell of cells) {
    for (const name of Object.keys(STYLES)) {
      series.push({ name: cell.name, type: 'line', color: color(cell.kind), symbol: name === 'p99' ? 'circle' : 'none', symbolSize: 5,
        lineStyle: { type: STYLES[name], width: name === 'p99' ? 2 : 1.2 },
        data: cell.points.filter((p) => p[name] > 0).map((p) => [p.rate, p[name] / 1000]) })
    }
    const line = series[series.length - 2] // the p99 line carries the marks
    if (cell.capacity !== null) {
      line.markLine = { silent: true, symbol: 'none', lineStyle: { type: 'solid', color: color(cell.kind), width: 1, opacity: 0.7 },
        label: { formatter: `${cell.name}: ${Math.round(cell.capacity).toLocaleString('en-US')}`, color: color(cell.kind),
          fontSize: 11, position: 'insideEndTop' },
        data: [{ xAxis: cell.capacity }] }
    }
  }
  if (series.length > 0) {
    series.push({ name: 'SLO', type: 'line', data: [], markLine: { silent: true, symbol: 'none', lineStyle: { color: '#111', type: [6, 3], width: 1.5 },
      label: { formatter: (p) => p.name, position: 'insideStartTop', color: '#111' },
      data: slo.map((t) => ({ name: `SLO ${t.name} ≤ ${t.us / 1000} ms`, yAxis: t.us / 1000 })) } })
  }
  const option = {
    title: chartTitle(title, env, 'each probe\'s requests pooled, median over rounds · solid p99, dashed p50, dotted p99.9 · vertical: capacity'),
    legend: { top: 62, data: cells.map((c) => c.name) },
    grid: { left: 80, right: 40, top: 110, bottom: 60 },
    xAxis: { type: 'value', name: 'offered rate (requests/s, open loop)', nameLocation: 'middle', nameGap: 32, min: 0 },
    yAxis: { type: 'log', name: 'latency (ms, log)', nameTextStyle: { align: 'left', fontWeight: 'bold' } },
    series
  }
  return renderSvg(option, { width: 940, height: 480 })
}

/**
 * Renders the regime map: each kind's capacity (with its interval) at each storage latency.
 * @param {{ title: string, env: object, regimes: string[], kinds: Array<{ kind: string, name: string,
 *   values: Array<{ estimate: number, low: number, high: number }|null> }> }} spec values in the order of regimes
 * @returns {string} SVG
 */
function regimeMapChart ({ title, env, regimes, kinds }) {
  const series = kinds.flatMap(({ kind, name, values }) => [
    { name, type: 'line', color: color(kind), symbol: 'circle', symbolSize: 7, data: values.map((v) => v?.estimate ?? null) },
    { name, type: 'custom', color: color(kind), data: values.map((v, i) => (v ? [i, v.low, v.high] : [i, null, null])),
      renderItem: (params, api) => {
        if (api.value(1) === null || !(api.value(1) > 0)) return null
        const [x, y0] = api.coord([api.value(0), api.value(1)])
        const [, y1] = api.coord([api.value(0), api.value(2)])
        return { type: 'group', children: [[x, y0, x, y1], [x - 5, y0, x + 5, y0], [x - 5, y1, x + 5, y1]].map(([x1, ya, x2, yb]) =>
          ({ type: 'line', shape: { x1, y1: ya, x2, y2: yb }, style: { stroke: api.visual('color'), lineWidth: 1.5 } })) }
      } }
  ])
  const option = {
    title: chartTitle(title, env, 'median capacity over the rounds, bars: its interval'),
    legend: { top: 62, data: kinds.map((k) => k.name) },
    grid: { left: 80, right: 40, top: 110, bottom: 60 },
    xAxis: { type: 'category', data: regimes, name: 'storage latency per device call', nameLocation: 'middle', nameGap: 32 },
    yAxis: { type: 'log', name: 'capacity (requests/s, log)', nameTextStyle: { align: 'left', fontWeight: 'bold' } },
    series
  }
  return renderSvg(option, { width: 940, height: 440 })
}

module.exports = { latencyLoadChart, regimeMapChart }
