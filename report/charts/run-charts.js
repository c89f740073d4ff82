'use strict'
// The charts of an interleaved sweep folder beyond report/charts/figures.js: the first screen's verdicts,
// what else used the machine beside throughput, and each cell's candlesticks per client process
// (the chart the historic benchmark drew from its CSV). Used by report/index.js.

const { verdictsChart } = require('./verdicts')
const { interferenceChart } = require('./interference')
const { candlesChart, mergeProcessLatency } = require('./candles')
const { MAX_INTERFERENCE } = require('../../lib/machine/cpu-share')

/**
 * @param {object} results from readResults
 * @param {{ verdicts: object[], margin: number }} analysis from report/index.js
 * @returns {{ file: string, title: string, svg: string, section: string }[]} sections verdicts, run, candles
 */
function runCharts (results, { verdicts, margin }) {
  const { env } = results
  const charts = []
  const entries = verdicts.filter((e) => e.metric === 'opsPerSec')
  if (entries.length > 0) {
    const title = 'Throughput verdicts: a over b, 95% intervals'
    charts.push({ file: 'verdicts.svg', title, section: 'verdicts', svg: verdictsChart({ title, env, margin, entries }) })
  }
  if (results.passes.some((p) => p.interference !== null)) { // not measured: no chart (the run section says so)
    const title = 'What else used the machine, pass by pass, beside each cell\'s throughput'
    const maxInterference = env.options?.maxInterference ?? MAX_INTERFERENCE
    charts.push({ file: 'interference.svg', title, section: 'run',
      svg: interferenceChart({ title, env, maxInterference, passes: results.passes, windows: results.windows }) })
  }
  const byCell = new Map()
  for (const row of results.rows.filter((r) => r.valid && r.json)) byCell.set(row.cell, [...(byCell.get(row.cell) ?? []), row])
  for (const [cell, rows] of byCell) {
    const jsons = rows.map((r) => results.readCellJson(r)).filter(Boolean)
    if (jsons.length === 0) continue // a folder kept without its cells/
    const processes = mergeProcessLatency(jsons)
    const title = `${cell}: latency per client process (min, mean to 101% of mean, max), ${rows.length} rounds merged`
    charts.push({ file: `candles-${cell}.svg`, title, section: 'candles', svg: candlesChart({ title, env, cell, processes }) })
  }
  return charts
}

module.exports = { runCharts }
