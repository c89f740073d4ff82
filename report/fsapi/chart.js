'use strict'
// The fs API model's chart: each cell's measured server CPU per request against what the model gives
// (report/fsapi/analysis.js), one colour per idiom, the cells it was fitted on hollow, with the line where they are equal
// and the band of ±20% the findings judge a miss by; report/index.js adds it to the report's charts.

const { renderSvg, chartTitle } = require('../charts/svg')
const { niceBelow, niceAbove } = require('../charts/pool-model')

const COLORS = ['#2471a3', '#c0392b', '#17a589', '#8e44ad', '#d68910', '#34495e', '#e84393', '#7d6608']

/**
 * @param {{ title: string, env: object, fsapi: object }} spec fsapi: fsApiAnalysis's
 * @returns {string} SVG
 */
function fsApiModelChart ({ title, env, fsapi }) {
  const rows = fsapi.rows.filter((r) => r.model && Number.isFinite(r.cpuUs))
  const all = rows.flatMap((r) => [r.model.cpuUs, r.cpuUs])
  const [low, high] = [niceBelow(Math.min(...all) / 1.3), niceAbove(Math.max(...all) * 1.3)]
  const idioms = [...new Set(rows.map((r) => r.idiom))]
  const series = idioms.map((idiom, i) => ({
    type: 'scatter', name: idiom, color: COLORS[i % COLORS.length], symbolSize: 9,
    data: rows.filter((r) => r.idiom === idiom).map((r) => ({
      name: r.id,
      value: [r.model.cpuUs, r.cpuUs],
      itemStyle: r.model.fitted ? { color: 'transparent', borderColor: COLORS[i % COLORS.length], borderWidth: 2 } : undefined
    }))
  }))
  const line = (name, f, type) => ({ type: 'line', name, color: '#777', symbol: 'none', lineStyle: { type }, data: [[low, low * f], [high, high * f]] })
  series.push(line('measured = model', 1, 'dashed'), line('±20%', 1.2, 'dotted'), { ...line('±20%', 0.8, 'dotted') })
  return renderSvg({
    title: chartTitle(title, env, 'each cell; hollow: fitted on'),
    legend: { top: 62, itemGap: 18 },
    grid: { left: 90, right: 40, top: 120, bottom: 60 },
    xAxis: { type: 'log', min: low, max: high, name: 'model (CPU µs per request)', nameLocation: 'middle', nameGap: 32 },
    yAxis: { type: 'log', min: low, max: high, name: 'measured (CPU µs per request)', nameLocation: 'middle', nameGap: 60 },
    series
  }, { width: 720, height: 560 })
}

const TITLE = 'CPU per request measured against the fs API model'

/**
 * The fs API section's charts: the model's, where a cell has one.
 * @param {object} env env.json's
 * @param {object|null} fsapi fsApiAnalysis's
 * @returns {{ file: string, title: string, svg: string, section: 'fsapi' }[]}
 */
function fsApiCharts (env, fsapi) {
  if (!fsapi?.rows.some((r) => r.model)) return []
  return [{ file: 'fsapi-model.svg', title: TITLE, svg: fsApiModelChart({ title: TITLE, env, fsapi }), section: 'fsapi' }]
}

module.exports = { fsApiModelChart, fsApiCharts }
