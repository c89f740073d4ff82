'use strict'
// Turns a results folder into charts/*.svg and one self-contained report.html.
// Run: node sweep/report.js RESULTS_DIR (prints the files written); the sweep calls renderReport.

const fs = require('node:fs')
const path = require('node:path')
const { readResults } = require('./report-read')
const { groupCells } = require('./report-cells')
const { buildCharts } = require('./report-charts')
const { reportHtml } = require('./report-html')

/**
 * Renders the report of a results folder (a sweep or a peak one).
 * @param {string} dir the results folder, holding env.json and summary.csv
 * @returns {string[]} the files written: dir/charts/*.svg, then dir/report.html
 * @throws {Error} naming the file when env.json, summary.csv or a cell's JSON is missing or malformed
 */
function renderReport (dir) {
  const results = readResults(dir)
  const cells = groupCells(results)
  const charts = buildCharts(results, cells)
  fs.mkdirSync(path.join(dir, 'charts'), { recursive: true })
  const files = charts.map(({ file, svg }) => {
    const target = path.join(dir, 'charts', file)
    fs.writeFileSync(target, svg)
    return target
  })
  const page = path.join(dir, 'report.html')
  fs.writeFileSync(page, reportHtml({ results, cells, charts }))
  return [...files, page]
}

if (require.main === module) {
  const dir = process.argv[2]
  if (!dir) {
    process.stderr.write('usage: node sweep/report.js RESULTS_DIR\n')
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
