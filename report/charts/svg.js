'use strict'
// Renders an ECharts option to an SVG string in Node, and the title block every report chart has.
// Used by report/chart-*.js.

const echarts = require('echarts')
const { runtimeLabel } = require('../../lib/install/runtime-specs')

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
  return { text, subtext: `${env.cpus} cores · ${(env.serverRuntimes ?? [`node-${env.node}`]).map(runtimeLabel).join(', ')} · ${note}`, left: 'center', top: 8,
    textStyle: { fontSize: 16, color: '#222' }, subtextStyle: { fontSize: 12, color: '#555' } }
}

module.exports = { renderSvg, chartTitle }
