'use strict'
// The capacity report (report/capacity/capacity.js) of the committed capacity folder, copied: each cell's
// capacity with its interval over the rounds in capacity.json and the page, the curve from the probes'
// percentiles (pooled; an older folder's worst windows), and passing probes with a window over the target noted.

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { readResults } = require('../../../report/data/read')
const { renderCapacityReport } = require('../../../report/capacity/capacity')
const { intervalOfMedian } = require('../../../report/stats/intervals')
const { coverage } = require('../../../lib/median')

const FOLDER = path.join(__dirname, '..', '..', '..', 'docs', 'capacity-2026-11-24-lts')

// A copy of the folder in the test's own directory, under `name`.
function copyFolder (t, name) {
  const dir = path.join(t.testdirName, name)
  fs.mkdirSync(dir, { recursive: true })
  for (const file of ['capacity.csv', 'env.json', 'summary.csv']) fs.copyFileSync(path.join(FOLDER, file), path.join(dir, file))
  return dir
}

t.test("each cell's capacity is the median over its rounds with the order-statistic interval, in capacity.json and the page", async (t) => {
  const dir = copyFolder(t, 'run')
  renderCapacityReport(readResults(dir))
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'capacity.json'), 'utf8'))
  t.equal(json.minRequests, 3000, 'p99: 3,000 requests a verdict')
  const rows = readResults(dir).rows
  for (const cell of json.cells) {
    const capacities = rows.filter((r) => r.cell === cell.cell && r.valid && Number.isFinite(r.capacity)).map((r) => r.capacity)
    const sorted = [...capacities].sort((a, b) => a - b)
    t.same(cell.capacity, intervalOfMedian(capacities), `${cell.cell}: ${cell.capacity.estimate} [${cell.capacity.low}–${cell.capacity.high}]`)
    if (capacities.length === 6) t.same([cell.capacity.low, cell.capacity.high], [sorted[0], sorted[5]], 'six rounds: from the lowest to the highest')
  }
  const page = fs.readFileSync(path.join(dir, 'report.html'), 'utf8')
  const sync = json.cells.find((c) => c.kind === 'sync' && c.ioDelay === 'off')
  const fmt = (v) => Math.round(v).toLocaleString('en-US')
  t.match(page, `sustains ${fmt(sync.capacity.estimate)} req/s [${fmt(sync.capacity.low)}–${fmt(sync.capacity.high)}] (${coverage(sync.capacity)})`,
    'the answer gives the interval and what it covers')
  t.notMatch(page, /\d\]( |<\/td>)(?!\()/, 'no interval without what it covers, of a capacity or of a ratio')
  t.match(page, /the p99 of a probe's requests, pooled \(GET and PUT,\s+3,000 at least/)
  t.notMatch(page, /passing probe\(s\) had a 1 s window/, 'an older folder has no windows counted')
})

t.test('the curve takes the pooled percentiles where a probe has them, and passing probes with a window over the target are noted', async (t) => {
  const dir = copyFolder(t, 'run')
  const file = path.join(dir, 'capacity.csv')
  const [header, ...lines] = fs.readFileSync(file, 'utf8').trim().split('\n')
  // Every probe pooled at 1 ms (p50, p90, p99, p999), and the first two passing ones with a window over the target.
  let flagged = 0
  const rows = lines.map((line) => {
    const passing = /,true,false,/.test(line) && flagged < 2
    if (passing) flagged++
    return `${line},1000,1000,1000,1000,${passing ? '1/3' : '0/1'}`
  })
  fs.writeFileSync(file, [`${header},p50,p90,p99,p999,windowsOver`, ...rows].join('\n') + '\n')
  renderCapacityReport(readResults(dir))
  const page = fs.readFileSync(path.join(dir, 'report.html'), 'utf8')
  t.match(page, /2 passing probe\(s\) had a 1 s window whose own percentile broke the SLO \(capacity.csv windowsOver\): a flag, not a verdict/)
  // The chart's class names count renders; the rest of the SVG is the data.
  const chart = (folder) => fs.readFileSync(path.join(folder, 'charts', 'latency-load-plain-folder.svg'), 'utf8').replace(/zr\d+-(cls-\d+)?/g, '')
  const original = copyFolder(t, 'original')
  renderCapacityReport(readResults(original))
  const again = copyFolder(t, 'again')
  renderCapacityReport(readResults(again))
  t.equal(chart(again), chart(original), 'the same folder, the same chart')
  t.not(chart(dir), chart(original), 'the curve follows the pooled columns')
})
