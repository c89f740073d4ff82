'use strict'
// Turns a results folder into charts/*.svg, cells.csv and one self-contained report.html.
// Run: node report RESULTS_DIR (prints the files written); the sweep calls renderReport.

const fs = require('node:fs')
const path = require('node:path')
const { readResults } = require('./data/read')
const { groupCells } = require('./data/cells')
const { summariseCells, cellsCsv } = require('./stats/cell-stats')
const { fitScaling } = require('./stats/usl-fit')
const { comparisons } = require('./stats/comparisons')
const { calibration } = require('./stats/calibration')
const { runFigures, runNote } = require('./stats/run-figures')
const { MARGIN } = require('./stats/intervals')
const { crossoverGroups } = require('./stats/crossover')
const { addSpectra, writeSpectra } = require('./data/spectra')
const { buildCharts } = require('./charts/figures')
const { runCharts } = require('./charts/run-charts')
const { reportHtml } = require('./page/page')
const { renderCapacityReport } = require('./capacity/capacity')
const { compareVersions } = require('./stats/versions')
const { compareModels } = require('./stats/models')
const { comparePlacement } = require('./stats/placement')
const { versionsMarkdown, versionsFile } = require('./page/versions-section')
const { storageMarkdown } = require('./page/storage-section')
const { realStorage } = require('./stats/real-storage')
const { readProfile } = require('./data/profile')
const { whyAnalysis } = require('./stats/why')
const { answerLines } = require('./page/answer-lines')
const { whyCharts } = require('./charts/why')
const { parseFolded, perRequest, flameHtml } = require('./charts/flame')
const { wantsHelp, entryHelp } = require('../lib/help')

/**
 * Renders the report of a results folder (a sweep or a peak one).
 * @param {string} dir the results folder, holding env.json and summary.csv
 * @returns {string[]} the files written: dir/charts/*.svg, dir/hgrm/*.hgrm (a sweep's latency
 *   spectra, each cell's valid repeats merged), dir/profile/*.html (a profiled sweep's flame graphs), dir/cells.csv,
 *   dir/verdicts.json and dir/answer.txt (a sweep's: report/page/answer-lines.js), dir/versions.md or runtimes.md (when the folder
 *   has several Node versions, or Bun or Deno), dir/storage.md (when it checked
 *   the delay layer against the real disk or varied --cacheShare), then dir/report.html
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
  const charts = [...(analysis ? runCharts(results, analysis) : []), ...(analysis?.why ? whyCharts(results.env, analysis.why) : []),
    ...buildCharts(results, cells, analysis ?? undefined)]
  fs.mkdirSync(path.join(dir, 'charts'), { recursive: true })
  const files = charts.map(({ file, svg }) => {
    const target = path.join(dir, 'charts', file)
    fs.writeFileSync(target, svg)
    return target
  })
  files.push(...writeSpectra(dir, all))
  const flames = analysis?.why ? writeFlames(dir, profile, analysis.why) : []
  files.push(...flames.map((name) => path.join(dir, name)))
  const csv = path.join(dir, 'cells.csv')
  fs.writeFileSync(csv, cellsCsv(results, all))
  if (analysis) {
    const verdictsFile = path.join(dir, 'verdicts.json')
    fs.writeFileSync(verdictsFile, JSON.stringify(verdictsJson(analysis), null, 2) + '\n')
    const answerFile = path.join(dir, 'answer.txt')
    fs.writeFileSync(answerFile, analysis.answer.map((l) => `${l.text}\n`).join(''))
    files.push(verdictsFile, answerFile)
  }
  const md = analysis?.versions && path.join(dir, versionsFile(analysis.versions))
  if (md) fs.writeFileSync(md, versionsMarkdown(results, analysis.versions))
  const storageMd = (analysis?.storage?.check.length > 0 || analysis?.storage?.regime.length > 0) && path.join(dir, 'storage.md')
  if (storageMd) fs.writeFileSync(storageMd, storageMarkdown(analysis.storage, results.env))
  const page = path.join(dir, 'report.html')
  fs.writeFileSync(page, reportHtml({ results, cells, charts, analysis, flames }))
  return [...files, csv, ...(md ? [md] : []), ...(storageMd ? [storageMd] : []), page]
}

// A sweep folder's comparisons and findings; why: what its profile says, when a run with --profile left one.
function analyse (results, all, cells, profile) {
  const margin = results.env.options?.margin ?? MARGIN
  const verdicts = comparisons(all, { margin })
  const run = runFigures(results)
  const why = profile && whyAnalysis(profile, verdicts)
  return { verdicts, margin, calibration: calibration(verdicts), run, runNote: runNote(run), fits: fitScaling(cells),
    crossover: crossoverGroups(cells), versions: compareVersions(results, cells), models: compareModels(cells), placement: comparePlacement(cells),
    why, storage: realStorage(results.env, cells, verdicts), answer: answerLines({ verdicts, why }) }
}

// Each profiled cell's flame graph and each profiled comparison's differential one, per request, beside the folded
// stacks; returns their names inside dir. A cell without its folded file gets none.
function writeFlames (dir, profile, why) {
  const stacks = new Map()
  for (const cell of why.cells) {
    const text = cell.requests > 0 && profile.readFolded(cell.id)
    if (!text) continue
    try {
      stacks.set(cell.id, perRequest(parseFolded(text), cell.requests))
    } catch (err) {
      throw new Error(`${path.join(dir, 'profile', `${cell.id}.folded`)}: ${err.message}`, { cause: err })
    }
  }
  const how = `${why.mode === 'perf' ? 'Linux perf: every thread and the kernel' : "V8's profiler: main threads only"}, ${why.rounds} rounds`
  const pages = [...stacks].map(([id, s]) => [`profile/${id}.html`,
    flameHtml({ title: `${id}: where the server's time goes, per request`, subtitle: how, stacks: s })])
  for (const c of why.comparisons.filter((c) => stacks.has(c.a) && stacks.has(c.b))) {
    pages.push([`profile/diff-${c.a}-vs-${c.b}.html`, flameHtml({ title: `${c.label}: ${c.names[0]} against ${c.names[1]}, per request`,
      subtitle: how, stacks: stacks.get(c.a), base: stacks.get(c.b), labels: { a: c.names[0], b: c.names[1] } })])
  }
  for (const [name, page] of pages) fs.writeFileSync(path.join(dir, name), page)
  return pages.map(([name]) => name)
}

/**
 * verdicts.json: one entry per comparison, throughput first, then server and client CPU per request.
 * @param {{ verdicts: object[], margin: number }} analysis
 * @returns {object} { margin, confidence, comparisons: [{ a, b, label, kind, metric, better, estimate, low, high, n,
 *   confidence, margin, verdict, aa? }] }
 */
function verdictsJson ({ verdicts, margin }) {
  return { margin, confidence: 0.95, comparisons: verdicts.map(({ ratio, cells, ...entry }) => entry) }
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
