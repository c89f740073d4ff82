'use strict'
// Turns a results folder into charts/*.svg, cells.csv and one self-contained report.html.
// Run: node report RESULTS_DIR (prints the files written); the sweep calls renderReport.

const fs = require('node:fs')
const path = require('node:path')
const { readResults } = require('./data/read')
const { groupCells } = require('./data/cells')
const { summariseCells } = require('./stats/cell-stats')
const { addSpectra } = require('./data/spectra')
const { readProfile } = require('./data/profile')
const { analyse } = require('./analysis')
const { reportCharts } = require('./charts/figures')
const { fsApiCharts } = require('./fsapi/chart')
const { OUTPUTS, flamePages } = require('./outputs')
const { renderCapacityReport } = require('./capacity/capacity')
const { wantsHelp, entryHelp } = require('../lib/entry-help')

/**
 * Renders the report of a results folder (a sweep, a peak or a capacity one): the files of report/outputs.js
 * (a capacity folder's: report/capacity/capacity.js).
 * @param {string} dir the results folder, holding env.json and summary.csv
 * @returns {string[]} the files written, in the order of report/outputs.js
 * @throws {Error} naming the file when env.json, summary.csv, a cell's JSON or profile/profile.json is malformed
 */
function renderReport (dir) {
  const results = readResults(dir)
  if (results.format === 'capacity') return renderCapacityReport(results)
  const all = summariseCells(groupCells(results), results.format)
  if (results.format === 'sweep') addSpectra(results, all)
  const cells = all.filter((c) => !c.aa) // A/A cells only ever enter the calibration
  const profile = results.format === 'sweep' ? readProfile(dir) : null
  const analysis = results.format === 'sweep' ? analyse(results, all, cells, profile) : null
  const charts = [...reportCharts(results, cells, analysis), ...fsApiCharts(results.env, analysis?.fsapi)]
  const flames = analysis?.why ? flamePages(dir, profile, analysis.why) : []
  const r = { dir, results, all, cells, profile, analysis, charts, flames }
  return OUTPUTS.filter((o) => o.when(r)).flatMap((o) => o.render(r)).map(([name, content]) => {
    const file = path.join(dir, name)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, content)
    return file
  })
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
