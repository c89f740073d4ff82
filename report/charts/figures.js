'use strict'
// Chooses the report's charts for a results folder and renders each to SVG.
// Used by report/index.js; the charts themselves live in report/chart-*.js.

const { splitVariants } = require('../data/cells')
const { scalingChart } = require('./scaling')
const { heatmapChart } = require('./heatmap')
const { spectrumChart } = require('./spectrum')
const { spectrumGroups } = require('../data/spectra')
const { uslChart } = require('./usl')
const { crossoverChart } = require('./crossover')
const { groupName } = require('../stats/crossover')
const { runCharts } = require('./run-charts')
const { whyCharts } = require('./why')
const { poolModelChart } = require('./pool-model')

const SCALING_NOTE = 'median of valid repeats, bars min–max, dashed: single process'

/**
 * Renders every chart: per variant of the other knobs, for a sweep the runtime per nClients,
 * the throughput heat map, the latency spectra per nClients, the server event loops at the
 * largest nClients (when the folder has them) and the USL fits (section 'usl'), and first the
 * crossover charts (section 'crossover', one per group) when ioDelay varies; for a peak folder
 * req/s per connections.
 * @param {object} results from readResults
 * @param {object[]} cells from summariseCells, without the A/A cells
 * @param {{ fits: object[], crossover: object[] }} [analysis] from fitScaling and crossoverGroups
 * @returns {{ file: string, title: string, svg: string, section?: string, settings?: string }[]}
 *   file is a name inside charts/; settings the variant label of the cells it draws
 */
function buildCharts (results, cells, { fits = [], crossover = [] } = {}) {
  const variants = splitVariants(cells)
  const crossing = crossover.map((group, i) => ({ ...chart(`crossover-${i + 1}.svg`,
    `Throughput against storage latency: ${groupName(group).replace(/^With /, '')}`, '',
    (title) => crossoverChart({ title, env: results.env, group })), section: 'crossover' }))
  return [...crossing, ...variants.flatMap(({ label, cells: some }, v) => {
    const charts = results.format === 'peak' ? peakCharts(results.env, some, label)
      : sweepCharts(results, some, label, fits.filter((f) => f.settings === label && f.fit))
    const prefix = variants.length > 1 ? `v${v + 1}-` : ''
    return charts.map((chart) => ({ ...chart, file: prefix + chart.file, settings: label }))
  })]
}

function sweepCharts (results, cells, variant, fits) {
  const { env } = results
  const charts = byLoad(cells).map(([load, some]) => chart(`runtime-nClients-${load}.svg`,
    `Runtime with ${load} client process${load === 1 ? '' : 'es'}`, variant, (title) => scalingChart({
      title, env, note: SCALING_NOTE,
      panels: [
        { name: 'Total time', unit: 's', cells: some, column: 'wallTimeMs', scale: 1e-3 },
        { name: 'Throughput', unit: 'ops/s', cells: some, column: 'opsPerSec' }]
    })))
  charts.push(chart('throughput-heatmap.svg', 'Throughput by kind, nServers and nClients',
    variant, (title) => heatmapChart({ title, env, cells })))
  for (const { load, lines } of spectrumGroups(cells, env.cpus)) {
    charts.push(chart(`spectrum-nClients-${load}.svg`, `Latency spectrum with ${load} client ` +
      `process${load === 1 ? '' : 'es'}: ${lines.map((l) => l.name).join(', ')}`, variant,
    (title) => spectrumChart({ title, env, lines })))
  }
  const load = Math.max(...cells.map((c) => c.load))
  const loaded = cells.filter((c) => c.load === load)
  if (loaded.some((c) => c.valid.some((r) => r.meanUtilization !== null))) {
    charts.push(chart(`event-loop-nClients-${load}.svg`, `Server event loops with ${load} client ` +
      `process${load === 1 ? '' : 'es'} (the largest load)`, variant, (title) => scalingChart({
      title, env, note: 'median of valid repeats, bars min–max', references: false,
      panels: [
        { name: 'Event-loop utilization', unit: '0–1', cells: loaded, column: 'meanUtilization', max: 1 },
        { name: 'Event-loop delay p99', unit: 'µs', cells: loaded, column: 'eldP99Us' }]
    })))
  }
  if (fits.length > 0) {
    charts.push({ ...chart('usl-fit.svg', 'Throughput against nServers with the Universal ' +
      'Scalability Law fitted', variant, (title) => uslChart({ title, env, fits })), section: 'usl' })
  }
  return charts
}

function peakCharts (env, cells, variant) {
  return byLoad(cells).map(([load, some]) => chart(`peak-connections-${load}.svg`,
    `Peak throughput with ${load} connections`, variant, (title) => scalingChart({
      title, env, note: SCALING_NOTE,
      panels: [...new Set(some.map((c) => c.op))].sort().map((op) => ({ name: op, unit: 'req/s',
        column: 'reqPerSec', cells: some.filter((c) => c.op === op) }))
    })))
}

function byLoad (cells) {
  const loads = [...new Set(cells.map((c) => c.load))].sort((a, b) => a - b)
  return loads.map((load) => [load, cells.filter((c) => c.load === load)])
}

function chart (file, title, variant, render) {
  const full = variant ? `${title}; ${variant}` : title
  return { file, title: full, svg: render(full) }
}

/**
 * Every chart of a folder's report: the run's (rounds, passes), why's (a profiled run) and the sweep's.
 * @param {object} results from report/data/read.js readResults
 * @param {object[]} cells the cells without the A/A ones
 * @param {object|null} analysis from report/analysis.js (null for a peak folder)
 * @returns {{ file: string, title: string, svg: string }[]}
 */
function reportCharts (results, cells, analysis) {
  const pool = analysis?.pool?.cells.some((m) => m.model?.predicted)
    ? [{ ...chart('threadpool-model.svg', 'Measured against the pool model', '', (title) => poolModelChart({ title, env: results.env, pool: analysis.pool })),
        section: 'threadpool' }]
    : []
  return [...(analysis ? runCharts(results, analysis) : []), ...(analysis?.why ? whyCharts(results.env, analysis.why) : []), ...pool,
    ...buildCharts(results, cells, analysis ?? undefined)]
}

module.exports = { buildCharts, reportCharts }
