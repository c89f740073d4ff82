'use strict'
// The "why" charts of a profiled run: each cell's server time per request stacked by category, and per headline
// comparison the categories' differences a − b, coloured when beyond noise. Used by report/index.js.

const { renderSvg, chartTitle } = require('./svg')
const { differenceText, signed } = require('../stats/why')

/** One colour per category of profile.json, in its fixed order; an unknown id is drawn in OTHER_COLOR. */
const CATEGORY_COLORS = {
  app: '#2471a3', express: '#5dade2', http: '#48c9b0', fs: '#1e8449', pool: '#f5b041', callbacks: '#af7ac5',
  gc: '#ec7063', engine: '#a04000', 'kernel-net': '#566573', 'kernel-fs': '#7dcea0', 'kernel-wake': '#c0392b',
  'kernel-other': '#aab7b8', primary: '#6c3483', balancer: '#b7950b', profiler: '#f1948a', other: '#d5d8dc'
}
const OTHER_COLOR = '#d5d8dc'
/** A difference beyond noise: red where a needs more, blue where it needs less; grey within noise. */
const DIFF_COLORS = { more: '#c0392b', less: '#2471a3', noise: '#bbbbbb' }
const ROW = 30
const TOP = 110
const BOTTOM = 50
const CHAR = 6.5 // px per character of a 12 px label, about

const colorOf = (id) => CATEGORY_COLORS[id] ?? OTHER_COLOR
const room = (texts) => Math.max(120, 24 + CHAR * Math.max(...texts.map((s) => s.length)))
// The least 1, 2, 2.5 or 5 × 10^k at or above x: a round end for a symmetric axis.
const roundUp = (x) => {
  const power = 10 ** Math.floor(Math.log10(x))
  return [1, 2, 2.5, 5, 10].find((m) => m * power >= x) * power
}

/**
 * A horizontal stacked bar per cell: µs per request by category, the categories in the profile's order.
 * @param {{ title: string, env: object, why: object }} spec why from report/stats/why.js whyAnalysis
 * @returns {string} SVG
 */
function costsChart ({ title, env, why }) {
  const { cells } = why
  const shown = why.categories.filter((c) => cells.some((cell) => cell.categories[c.id]?.estimate > 0))
  const left = room(cells.map((c) => c.id))
  const option = {
    title: chartTitle(title, env, `median over ${why.rounds ?? 'the'} rounds, profiled windows (${why.mode})`),
    legend: { top: 56, left: 'center', data: shown.map((c) => c.id), textStyle: { fontSize: 11 } },
    grid: { left, right: 40, top: TOP, bottom: BOTTOM },
    xAxis: { type: 'value', name: 'µs per request', nameLocation: 'middle', nameGap: 28, splitLine: { lineStyle: { color: '#eeeeee' } } },
    yAxis: { type: 'category', data: cells.map((c) => c.id), inverse: true, axisTick: { show: false } },
    series: shown.map((c) => ({ type: 'bar', name: c.id, stack: 'cost', barWidth: 18, itemStyle: { color: colorOf(c.id) },
      data: cells.map((cell) => cell.categories[c.id]?.estimate ?? 0) }))
  }
  return renderSvg(option, { width: 900, height: TOP + BOTTOM + ROW * Math.max(1, cells.length) })
}

/**
 * A diverging bar of one comparison's category differences a − b (µs per request), the interval at the right.
 * @param {{ title: string, env: object, comparison: object }} spec one of whyAnalysis's comparisons
 * @returns {string} SVG
 */
function differenceChart ({ title, env, comparison }) {
  const rows = comparison.categories.filter((d) => d.estimate !== 0 || d.low !== 0 || d.high !== 0)
  const [na, nb] = comparison.names
  const option = { title: chartTitle(title, env, `${na} − ${nb}, µs per request, median of the rounds' differences; coloured: beyond noise`) }
  if (rows.length === 0) {
    option.graphic = { type: 'text', left: 'center', top: 110, style: { text: 'no category differs', fontSize: 14, fill: '#555' } }
    return renderSvg(option, { width: 900, height: 180 })
  }
  const tone = (d) => (!d.beyond ? DIFF_COLORS.noise : d.estimate > 0 ? DIFF_COLORS.more : DIFF_COLORS.less)
  const texts = rows.map(differenceText)
  const axis = (labels, position, color) => ({ type: 'category', data: rows.map((d) => d.id), inverse: true, position,
    axisTick: { show: false }, axisLine: { show: false }, axisLabel: { formatter: (v, i) => labels[i], color } })
  const reach = roundUp(Math.max(...rows.map((d) => Math.abs(d.estimate))) * 1.05 || 1)
  option.grid = { left: room(rows.map((d) => d.id)), right: room(texts), top: TOP - 30, bottom: BOTTOM }
  option.xAxis = { type: 'value', min: -reach, max: reach, interval: reach / 2, name: `${na} needs less ← µs per request → ${na} needs more`,
    nameLocation: 'middle', nameGap: 28, axisLabel: { formatter: (v) => signed(v, String) }, splitLine: { lineStyle: { color: '#eeeeee' } } }
  option.yAxis = [axis(rows.map((d) => d.id), 'left', '#222'), axis(texts, 'right', (v, i) => tone(rows[i]))]
  option.series = [{ type: 'bar', barWidth: 16, data: rows.map((d) => ({ value: d.estimate, itemStyle: { color: tone(d) } })),
    markLine: { silent: true, symbol: 'none', label: { show: false }, lineStyle: { color: '#444', type: 'solid' }, data: [{ xAxis: 0 }] } }]
  return renderSvg(option, { width: 900, height: TOP - 30 + BOTTOM + ROW * rows.length })
}

/**
 * The why section's charts.
 * @param {object} env from env.json
 * @param {object} why from report/stats/why.js whyAnalysis
 * @returns {{ file: string, title: string, svg: string, section: 'why', pair?: string }[]} pair: "a-vs-b" of a comparison's chart
 */
function whyCharts (env, why) {
  if (why.cells.length === 0) return []
  const title = 'Where each server\'s time goes, per request'
  return [{ file: 'why-costs.svg', title, section: 'why', svg: costsChart({ title, env, why }) },
    ...why.comparisons.map((comparison) => {
      const pair = `${comparison.a}-vs-${comparison.b}`
      const text = `${comparison.label}: ${comparison.names.join(' − ')} by category`
      return { file: `why-${pair}.svg`, title: text, section: 'why', pair, svg: differenceChart({ title: text, env, comparison }) }
    })]
}

module.exports = { whyCharts, costsChart, differenceChart, CATEGORY_COLORS, DIFF_COLORS }
