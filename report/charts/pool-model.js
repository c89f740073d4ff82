'use strict'
// The pool model's chart: each async cell's measured ops/s against what the model predicts (report/stats/pool-model.js),
// coloured by what the model says is the limit, with the line where they are equal. Used by report/charts/figures.js.

const { renderSvg, chartTitle } = require('./svg')

const COLORS = { pool: '#c0392b', cores: '#2471a3', loop: '#17a589' }
const WORDS = { pool: 'pool-limited', cores: 'cores-limited', loop: 'event-loop-limited' }
const NICE = [1, 2, 5]
// The nice number (1, 2 or 5 times a power of 10) at or below x, or at or above it.
const niceBelow = (x) => Math.max(...[-1, 0].flatMap((e) => NICE.map((n) => n * 10 ** (Math.floor(Math.log10(x)) + e))).filter((v) => v <= x))
const niceAbove = (x) => Math.min(...[0, 1].flatMap((e) => NICE.map((n) => n * 10 ** (Math.floor(Math.log10(x)) + e))).filter((v) => v >= x))

/**
 * @param {{ title: string, env: object, pool: object }} spec pool: poolModel's
 * @returns {string} SVG
 */
function poolModelChart ({ title, env, pool }) {
  const cells = pool.cells.filter((m) => m.model?.predicted && m.measured)
  const all = cells.flatMap((m) => [m.model.predicted, m.measured.median])
  const [low, high] = [niceBelow(Math.min(...all) / 1.1), niceAbove(Math.max(...all) * 1.1)]
  const series = Object.entries(COLORS).map(([limit, color]) => ({
    type: 'scatter', name: WORDS[limit], color, symbolSize: 9,
    data: cells.filter((m) => m.model.limit === limit).map((m) => ({ name: m.id, value: [m.model.predicted, m.measured.median] }))
  }))
  series.push({ type: 'line', name: 'measured = model', color: '#777', symbol: 'none', lineStyle: { type: 'dashed' }, data: [[low, low], [high, high]] })
  return renderSvg({
    title: chartTitle(title, env, 'each async cell: the median of its valid rounds, and the model'),
    legend: { top: 62, itemGap: 24 },
    grid: { left: 90, right: 40, top: 110, bottom: 60 },
    xAxis: { type: 'log', min: low, max: high, name: 'model (ops/s)', nameLocation: 'middle', nameGap: 32 },
    yAxis: { type: 'log', min: low, max: high, name: 'measured (ops/s)', nameLocation: 'middle', nameGap: 60 },
    series
  }, { width: 720, height: 560 })
}

module.exports = { poolModelChart, niceBelow, niceAbove }
