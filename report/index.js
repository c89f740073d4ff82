'use strict'
// Turns a results folder into charts/*.svg, cells.csv and one self-contained report.html.
// Run: node report RESULTS_DIR (prints the files written); the sweep calls renderReport.

const fs = require('node:fs')
const path = require('node:path')
const { readResults } = require('./read')
const { groupCells } = require('./cells')
const { summariseCells, cellsCsv } = require('./cell-stats')
const { compareKinds, noiseFloor, noiseBandOf, fitScaling } = require('./analysis')
const { crossoverGroups } = require('./crossover')
const { addSpectra, writeSpectra } = require('./spectra')
const { buildCharts } = require('./charts')
const { reportHtml } = require('./page')
const { compareVersions } = require('./versions')
const { compareModels } = require('./models')
const { comparePlacement } = require('./placement')
const { versionsMarkdown } = require('./versions-view')
const { wantsHelp, entryHelp } = require('../lib/help')

/**
 * Renders the report of a results folder (a sweep or a peak one).
 * @param {string} dir the results folder, holding env.json and summary.csv
 * @returns {string[]} the files written: dir/charts/*.svg, dir/hgrm/*.hgrm (a sweep's latency
 *   spectra, each cell's valid repeats merged), dir/cells.csv, dir/versions.md (when the folder has
 *   several Node versions), then dir/report.html
 * @throws {Error} naming the file when env.json, summary.csv or a cell's JSON is missing or malformed
 */
function renderReport (dir) {
  const results = readResults(dir)
  const all = summariseCells(groupCells(results), results.format)
  if (results.format === 'sweep') addSpectra(results, all)
  const cells = all.filter((c) => !c.aa) // A/A cells only ever enter the noise floor
  const noise = noiseFloor(all.filter((c) => c.aa))
  const band = noiseBandOf(noise)
  const analysis = results.format === 'sweep'
    ? { ...compareKinds(cells), noise, band, fits: fitScaling(cells), crossover: crossoverGroups(cells, band),
      versions: compareVersions(results, cells), models: compareModels(cells), placement: comparePlacement(cells) }
    : null
  const charts = buildCharts(results, cells, analysis ?? undefined)
  fs.mkdirSync(path.join(dir, 'charts'), { recursive: true })
  const files = charts.map(({ file, svg }) => {
    const target = path.join(dir, 'charts', file)
    fs.writeFileSync(target, svg)
    return target
  })
  files.push(...writeSpectra(dir, all))
  const csv = path.join(dir, 'cells.csv')
  fs.writeFileSync(csv, cellsCsv(results, all))
  const md = analysis?.versions && path.join(dir, 'versions.md')
  if (md) fs.writeFileSync(md, versionsMarkdown(results, analysis.versions))
  const page = path.join(dir, 'report.html')
  fs.writeFileSync(page, reportHtml({ results, cells, charts, analysis }))
  return [...files, csv, ...(md ? [md] : []), page]
}

if (require.main === module) {
  const dir = process.argv[2]
  if (wantsHelp(process.argv.slice(2))) {
    process.stdout.write(entryHelp({
      usage: 'node report RESULTS_DIR',
      about: 'Renders RESULTS_DIR/report.html, RESULTS_DIR/cells.csv and RESULTS_DIR/charts/*.svg from a results folder\n' +
        'and prints the files written. Exit status: 0, 1 the folder could not be read, 2 no folder given.',
      config: false
    }))
    process.exit(0)
  }
  if (!dir) {
    process.stderr.write('usage: node report RESULTS_DIR\n')
    process.exit(2)
  }
  try {
    process.stdout.write(renderReport(dir).map((f) => `${f}\n`).join(''))
  } catch (err) {
    process.stderr.write(`report: ${err.message}\n`)
    process.exitCode = 1
  }
}

module.exports = { renderReport }
