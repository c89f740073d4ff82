'use strict'
// What else used the machine over a sweep, beside what the cells did: per pass the CPU share others
// and the hypervisor took (passes.csv) above each cell's throughput in that pass (windows.csv).
// Used by report/charts/figures.js.

const { renderSvg, chartTitle } = require('./svg')

const COLORS = ['#2471a3', '#17a589', '#8e44ad', '#e67e22', '#2c3e50', '#b7950b', '#7f8c8d', '#c0392b']
const DROPPED = '#c0392b'
const DROPPED_AREA = { silent: true, itemStyle: { color: 'rgba(192, 57, 43, 0.12)' } }
const TOP = { top: 110, height: 150 }
const LEGEND_ROW = 32
const CELLS_PER_ROW = 4 // cell names run to some 25 characters

// An ECharts custom-series item: a rectangle over x from value 0 to 1 and y from value 2 to 3.
function renderSpan (params, api) {
  const [x0, y0] = api.coord([api.value(0), api.value(2)])
  const [x1, y1] = api.coord([api.value(1), api.value(3)])
  return { type: 'rect', shape: { x: x0, y: y1, width: Math.max(1, x1 - x0), height: y0 - y1 },
    style: { fill: api.visual('color') } }
}

// Each pass with its span in seconds since the first pass started.
function passSpans (passes) {
  const t0 = Math.min(...passes.map((p) => Date.parse(p.startedAt)))
  return passes.map((p) => {
    const from = (Date.parse(p.startedAt) - t0) / 1000
    return { ...p, from, to: from + p.seconds }
  })
}

// The per-pass bars of others' and the hypervisor's share, stacked, in %.
function interferenceSeries (spans) {
  const stack = (name, color, low, high) => ({ name, type: 'custom', color, xAxisIndex: 0, yAxisIndex: 0,
    renderItem: renderSpan, encode: { x: [0, 1], y: [2, 3] },
    data: spans.map((s) => [s.from, s.to, low(s) * 100, high(s) * 100]) })
  return [stack('other processes', '#7f8c8d', () => 0, (s) => s.other),
    stack('steal', '#b7950b', (s) => s.other, (s) => s.other + s.steal)]
}

// One line per cell through its passes' middles, without symbols (a long sweep has thousands of
// points); a dropped pass's point is drawn hollow by a scatter series of the cell's colour.
function throughputSeries (spans, windows) {
  const byPass = new Map(spans.map((s) => [`${s.round}/${s.pass}`, s]))
  const cells = [...new Set(windows.map((w) => w.cell))]
  return cells.flatMap((cell, k) => {
    const color = COLORS[k % COLORS.length]
    const points = windows.filter((w) => w.cell === cell && byPass.has(`${w.round}/${w.pass}`)).map((w) => {
      const s = byPass.get(`${w.round}/${w.pass}`)
      return { value: [(s.from + s.to) / 2, w.opsPerSec], kept: s.kept }
    }).sort((a, b) => a.value[0] - b.value[0])
    const line = { name: cell, type: 'line', color, xAxisIndex: 1, yAxisIndex: 1, symbol: 'none', data: points.map((p) => p.value) }
    const dropped = points.filter((p) => !p.kept).map((p) => p.value)
    if (dropped.length === 0) return [line]
    return [line, { name: cell, type: 'scatter', color, xAxisIndex: 1, yAxisIndex: 1, symbolSize: 6,
      itemStyle: { color: '#ffffff', borderColor: color, borderWidth: 1.5 }, data: dropped }]
  })
}

/**
 * Renders the interference chart: two panels over seconds since the first pass, the share of the
 * machine's CPU taken by others per pass (dropped passes marked) above each cell's throughput.
 * @param {{ title: string, env: object, maxInterference: number, passes: object[], windows: object[] }} spec
 *   passes and windows: rows of passes.csv and windows.csv with numbers and booleans parsed;
 *   maxInterference a share (0.1 for 10%)
 * @returns {string} SVG
 */
function interferenceChart ({ title, env, maxInterference, passes, windows }) {
  const limit = Number((maxInterference * 100).toFixed(1))
  const dropped = passes.filter((p) => !p.kept).length
  const option = { title: chartTitle(title, env, `per pass: CPU taken by others, and ops/s per cell · ${dropped} of ${passes.length} passes dropped`) }
  if (passes.length === 0) {
    option.graphic = { type: 'text', left: 'center', top: 140, style: { text: 'no passes recorded', fontSize: 14, fill: '#555' } }
    return renderSvg(option, { width: 900, height: 300 })
  }
  const spans = passSpans(passes)
  const end = Math.max(...spans.map((s) => s.to))
  const drops = spans.filter((s) => !s.kept)
  const x = (gridIndex, more) => ({ gridIndex, type: 'value', min: 0, max: end, ...more })
  const lines = throughputSeries(spans, windows)
  const hasSteal = spans.some((s) => s.steal !== null) // not measured off Linux
  option.legend = [{ top: 62, itemGap: 20, data: ['other processes', ...(hasSteal ? ['steal'] : []), 'dropped pass'] },
    { top: 285, left: 40, right: 40, itemGap: 20, data: lines.filter((l) => l.type === 'line').map((l) => l.name) }]
  // A static SVG cannot scroll a legend: it wraps, and the lower panel moves down by its rows.
  const bottomTop = 315 + LEGEND_ROW * Math.ceil(option.legend[1].data.length / CELLS_PER_ROW)
  option.grid = [{ left: 80, right: 40, ...TOP }, { left: 80, right: 40, top: bottomTop, height: 180 }]
  option.xAxis = [x(0, { axisLabel: { show: false } }),
    x(1, { name: 'seconds since the first pass', nameLocation: 'middle', nameGap: 30, axisLabel: { showMaxLabel: false } })]
  option.yAxis = [
    // Room above the limit, so the line and its label are never on the frame.
    { gridIndex: 0, type: 'value', name: 'CPU taken by others (%)', nameTextStyle: { align: 'left', fontWeight: 'bold' },
      max: (v) => Math.ceil(Math.max(v.max, limit * 1.3) / 5) * 5 },
    { gridIndex: 1, type: 'value', name: 'throughput (ops/s)', nameTextStyle: { align: 'left', fontWeight: 'bold' } }
  ]
  const [other, steal] = interferenceSeries(spans)
  other.markLine = { silent: true, symbol: 'none', lineStyle: { type: 'dashed', color: DROPPED },
    label: { formatter: `--maxInterference ${limit}%`, position: 'insideEndTop', color: DROPPED },
    data: [{ yAxis: limit }] }
  other.markArea = { ...DROPPED_AREA, data: drops.map((s) => [{ xAxis: s.from }, { xAxis: s.to }]) }
  const marks = { name: 'dropped pass', type: 'scatter', color: DROPPED, xAxisIndex: 0, yAxisIndex: 0,
    symbol: 'triangle', symbolSize: 9, symbolRotate: 180, symbolOffset: [0, -8],
    data: drops.map((s) => [(s.from + s.to) / 2, (s.other + (s.steal ?? 0)) * 100]) }
  if (lines.length > 0) lines[0].markArea = { ...DROPPED_AREA, data: other.markArea.data }
  option.series = [other, ...(hasSteal ? [steal] : []), marks, ...lines]
  return renderSvg(option, { width: 900, height: bottomTop + 240 })
}

module.exports = { interferenceChart }
