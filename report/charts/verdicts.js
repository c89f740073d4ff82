'use strict'
// The report's first chart: a forest plot of the a/b throughput ratios, one row per comparison,
// its interval against the band of "same", coloured by verdict. Used by report/charts/figures.js.

const { renderSvg, chartTitle } = require('./svg')

const VERDICT_COLORS = { faster: '#2471a3', slower: '#c0392b', same: '#7daa92', undecided: '#999999' }
const ROW = 34
const TOP = 100
const BOTTOM = 50
const PLOT = 400 // the least width of the plot itself, px
const CHAR = 6.5 // px per character of a 12 px label, about
// Tick steps, roundest first; each stands for itself and its reciprocal, so that 1.25× faster and
// 1.25× slower sit at the same distance from 1.
const STEPS = [2, 5, 10, 1.25, 1.5, 3, 20, 50, 100, 1.1]

const hasInterval = (e) => [e.estimate, e.low, e.high].every(Number.isFinite)

/** The text at the right of a row: the ratio with its interval and the verdict. */
function verdictText (entry) {
  if (!hasInterval(entry)) return `no interval · ${entry.verdict}`
  return `${entry.estimate.toFixed(2)}× [${entry.low.toFixed(2)}–${entry.high.toFixed(2)}] ${entry.verdict}`
}

// The x range in ratios: the data and the band, with a tenth of the span to spare in log space.
function xRange (entries, margin) {
  const values = entries.filter(hasInterval).flatMap((e) => [e.low, e.high]).concat(1 / (1 + margin), 1 + margin)
  const lo = Math.log(Math.min(...values))
  const hi = Math.log(Math.max(...values))
  const pad = (hi - lo) * 0.1
  return [Math.exp(lo - pad), Math.exp(hi + pad)]
}

// Tick values within the range, roundest first, each far enough from the others for its label to fit.
function ticksWithin ([min, max]) {
  const gap = Math.log(max / min) / 10
  const ticks = [1]
  for (const v of STEPS.flatMap((s) => [s, 1 / s])) {
    if (v >= min && v <= max && ticks.every((t) => Math.abs(Math.log(v / t)) >= gap)) ticks.push(v)
  }
  return ticks.sort((a, b) => a - b)
}

// An ECharts custom-series item: a bar from low to high on the row, with caps and a point at the estimate.
function renderInterval (params, api) {
  const [x1, y] = api.coord([api.value(0), api.value(3)])
  const [x2] = api.coord([api.value(1), api.value(3)])
  const [xe] = api.coord([api.value(2), api.value(3)])
  const style = { stroke: api.visual('color'), lineWidth: 2 }
  const line = (a, b, c, d) => ({ type: 'line', shape: { x1: a, y1: b, x2: c, y2: d }, style })
  return { type: 'group', children: [line(x1, y, x2, y), line(x1, y - 6, x1, y + 6), line(x2, y - 6, x2, y + 6),
    { type: 'circle', shape: { cx: xe, cy: y, r: 5 }, style: { fill: api.visual('color') } }] }
}

/**
 * Renders the forest plot of the comparisons, rows top to bottom in the given order.
 * @param {{ title: string, env: object, margin: number, entries: { label: string, estimate?: number,
 *   low?: number, high?: number, verdict: 'faster'|'slower'|'same'|'undecided', aa?: boolean }[] }} spec
 *   ratios a/b; margin: the share within which a and b count as the same (0.05 for ±5%)
 * @returns {string} SVG
 */
function verdictsChart ({ title, env, margin, entries }) {
  const percent = `±${Number((margin * 100).toFixed(1))}%`
  const option = { title: chartTitle(title, env, `ratio a/b (log scale), bars the interval; same within ${percent}`) }
  if (entries.length === 0) {
    option.graphic = { type: 'text', left: 'center', top: 110, style: { text: 'no comparisons to draw', fontSize: 14, fill: '#555' } }
    return renderSvg(option, { width: 900, height: 180 })
  }
  const range = xRange(entries, margin)
  const ticks = ticksWithin(range)
  const rows = entries.map((e, i) => String(i))
  const colorOf = (i) => VERDICT_COLORS[entries[i].verdict] ?? VERDICT_COLORS.undecided
  const category = (labels, position, color) => ({ type: 'category', data: rows, inverse: true, position,
    axisTick: { show: false }, axisLine: { show: position === 'left' },
    axisLabel: { formatter: (v, i) => labels[i], color, rich: { aa: { fontStyle: 'italic', color: '#555' } } } })
  // Labels are cell names of any length: the margins grow to hold them rather than cut them.
  const room = (texts) => Math.max(150, 24 + CHAR * Math.max(...texts.map((s) => s.length)))
  const labels = entries.map((e) => (e.aa ? `${e.label} (A/A)` : e.label))
  const [left, right] = [room(labels), room(entries.map(verdictText))]
  option.grid = { left, right, top: TOP, bottom: BOTTOM }
  option.xAxis = { type: 'log', min: range[0], max: range[1], name: 'ratio a/b', nameLocation: 'middle', nameGap: 28,
    axisLabel: { customValues: ticks, formatter: (v) => String(Number(v.toFixed(2))) },
    axisTick: { customValues: ticks }, splitLine: { lineStyle: { color: '#eeeeee' } } }
  option.yAxis = [
    category(labels.map((l, i) => (entries[i].aa ? `{aa|${l}}` : l)), 'left', '#222'),
    category(entries.map(verdictText), 'right', (v, i) => colorOf(i))
  ]
  option.series = [{
    type: 'custom', renderItem: renderInterval, encode: { x: [0, 1, 2], y: 3 },
    data: entries.flatMap((e, i) => (hasInterval(e)
      ? [{ value: [e.low, e.high, e.estimate, i], itemStyle: { color: colorOf(i) } }]
      : [])),
    markArea: { silent: true, itemStyle: { color: 'rgba(125, 170, 146, 0.18)' },
      label: { position: 'top', color: '#4d7a62', fontSize: 11, formatter: `same (${percent})` },
      data: [[{ xAxis: 1 / (1 + margin) }, { xAxis: 1 + margin }]] },
    markLine: { silent: true, symbol: 'none', label: { show: false }, lineStyle: { color: '#444', type: 'solid' },
      data: [{ xAxis: 1 }] }
  }]
  return renderSvg(option, { width: Math.ceil(Math.max(900, left + right + PLOT)), height: TOP + BOTTOM + ROW * entries.length })
}

module.exports = { verdictsChart, VERDICT_COLORS }
