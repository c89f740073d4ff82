'use strict'
// Renders an ECharts option to an SVG string in Node, plus the pieces every report chart shares.
// Used by sweep/chart-*.js.

const echarts = require('echarts')

// The same colour for a kind in every chart.
const KIND_COLORS = {
  sync: '#c0392b', async: '#2471a3', 'sync-cluster': '#e67e22', 'async-cluster': '#17a589'
}
const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif' // no quotes: it lands in an attribute

/**
 * Renders an option with ECharts' server-side SVG renderer; the chart is always disposed.
 * @param {object} option an ECharts option (animation is turned off)
 * @param {{ width: number, height: number }} size in px
 * @returns {string} the SVG document
 */
function renderSvg (option, { width, height }) {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height })
  try {
    chart.setOption({ animation: false, textStyle: { fontFamily: FONT }, ...option })
    return chart.renderToSVGString()
  } finally {
    chart.dispose()
  }
}

/** The title block: what the chart shows, then cores and Node version from env.json. */
function chartTitle (text, env, note) {
  const subtext = [`${env.cpus} cores · Node ${env.node}`, note].filter(Boolean).join(' · ')
  return { text, subtext, left: 'center', top: 8,
    textStyle: { fontSize: 16, color: '#222' }, subtextStyle: { fontSize: 12, color: '#555' } }
}

/** The shaded band over x > cores on a value axis of nServers, or undefined if no x is there. */
function oversubscribedArea (cores, xMax) {
  if (xMax <= cores + 0.5) return undefined
  return {
    silent: true,
    itemStyle: { color: 'rgba(192, 57, 43, 0.08)' },
    label: { position: 'top', color: '#a93226', fontSize: 11,
      formatter: `oversubscribed: ${cores} cores` },
    data: [[{ xAxis: cores + 0.5 }, { xAxis: xMax }]]
  }
}

module.exports = { renderSvg, KIND_COLORS, chartTitle, oversubscribedArea }
