'use strict'
// The files a sweep or peak folder's report is made of, one entry each: its name, when it is written, and
// what it holds. renderReport (report/index.js) writes them in this order.

const path = require('node:path')
const { cellsCsv } = require('./stats/cell-stats')
const { spectraFiles } = require('./data/spectra')
const { reportHtml } = require('./page/page')
const { versionsMarkdown, versionsFile } = require('./page/versions-section')
const { storageMarkdown } = require('./page/storage-section')
const { threadpoolMarkdown } = require('./page/threadpool-section')
const { fsApiMarkdown } = require('./fsapi/section')
const { answerLines } = require('./page/answer-lines')
const { parseFolded, perRequest, flameHtml } = require('./charts/flame')

const json = (value) => JSON.stringify(value, null, 2) + '\n'
const lines = (list) => list.map((l) => `${l.text}\n`).join('')

/**
 * @typedef {object} Output
 * @property {string} file its name in the results folder (a pattern for several)
 * @property {(r: object) => boolean} when whether this folder has it
 * @property {(r: object) => [string, string][]} render its files: [path inside the folder, content]
 */

/** @type {Output[]} r: { dir, results, all, cells, profile, analysis, charts, flames } (report/index.js) */
const OUTPUTS = [
  { file: 'charts/*.svg', when: () => true, render: (r) => r.charts.map((c) => [path.join('charts', c.file), c.svg]) },
  { file: 'hgrm/<cell>-<op>.hgrm', when: () => true, render: (r) => spectraFiles(r.all) },
  { file: 'profile/*.html', when: (r) => Boolean(r.analysis?.why), render: (r) => r.flames },
  { file: 'verdicts.json', when: (r) => Boolean(r.analysis), render: (r) => [['verdicts.json', json(verdictsJson(r.analysis))]] },
  { file: 'answer.txt', when: (r) => Boolean(r.analysis), render: (r) => [['answer.txt', lines(answerLines(r.analysis))]] },
  { file: 'cells.csv', when: () => true, render: (r) => [['cells.csv', cellsCsv(r.results, r.all)]] },
  { file: 'versions.md, runtimes.md', when: (r) => Boolean(r.analysis?.versions),
    render: (r) => [[versionsFile(r.analysis.versions), versionsMarkdown(r.results, r.analysis.versions)]] },
  { file: 'storage.md', when: (r) => r.analysis?.storage?.check.length > 0 || r.analysis?.storage?.regime.length > 0,
    render: (r) => [['storage.md', storageMarkdown(r.analysis.storage, r.results.env)]] },
  { file: 'threadpool.md', when: (r) => Boolean(r.analysis?.pool), render: (r) => [['threadpool.md', threadpoolMarkdown(r.analysis.pool, r.results.env)]] },
  { file: 'fsapi.md', when: (r) => Boolean(r.analysis?.fsapi), render: (r) => [['fsapi.md', fsApiMarkdown(r.analysis.fsapi, r.results.env)]] },
  { file: 'report.html',
    when: () => true,
    render: (r) => [['report.html', reportHtml({ ...r, analysis: r.analysis && { ...r.analysis, answer: answerLines(r.analysis) },
      flames: r.flames.map(([name]) => name) })]] }
]

/**
 * verdicts.json: one entry per comparison, throughput first, then server and client CPU per request.
 * @param {{ verdicts: object[], margin: number }} analysis
 * @returns {object} { margin, confidence, comparisons: [{ a, b, label, kind, metric, better, estimate, low, high, n,
 *   confidence, margin, verdict, aa? }] }
 */
function verdictsJson ({ verdicts, margin }) {
  return { margin, confidence: 0.95, comparisons: verdicts.map(({ ratio, cells, ...entry }) => entry) }
}

/**
 * Each profiled cell's flame graph and each profiled comparison's differential one, per request: [name inside the
 * folder, page]. A cell without its folded stacks gets none.
 * @param {string} dir the results folder (named in an error)
 * @param {object} profile from report/data/profile.js readProfile
 * @param {object} why from report/stats/why.js whyAnalysis
 * @returns {[string, string][]}
 */
function flamePages (dir, profile, why) {
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
  return pages
}

module.exports = { OUTPUTS, flamePages }
