'use strict'
// The report's analysis: cells.csv with intervals, the verdicts (first screen and verdicts.json),
// the A/A calibration, the USL fit, the event-loop chart and client-bound marks.
// Run: npx tap test/report/analysis.test.js

const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parse } = require('csv-parse/sync')
const { stringify } = require('csv-stringify/sync')
const { renderReport } = require('../../report')
const { median } = require('../../lib/median')
const { writeSweepFolder, KIND_SPEED, USL_TRUTH, JITTER } = require('../fixtures/results-folder')
const { checkXmlish } = require('../fixtures/xmlish')

const read = (file) => fs.readFileSync(file, 'utf8')
const readCsv = (file) => parse(read(file), { columns: true })
// The rows of <table class="NAME"> as arrays of cell texts (tags dropped), head row first.
const tableRows = (page, name) => {
  const start = page.indexOf(`<table class="${name}">`)
  if (start === -1) return null
  return page.slice(start, page.indexOf('</table>', start)).split('<tr').slice(1).map((tr) =>
    tr.split(/<t[dh][^>]*>/).slice(1).map((td) => td.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim()))
}
// Each call gets its own folder: t.testdir() hands one test the same folder every time.
const render = (options) => (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-analysis-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const written = writeSweepFolder(dir, options)
  const files = renderReport(dir)
  return { dir, ...written, files, names: files.map((f) => path.relative(dir, f)),
    page: read(path.join(dir, 'report.html')), csv: readCsv(path.join(dir, 'cells.csv')) }
}

t.test('cells.csv has one row per cell, with intervals that bracket the median of the valid repeats', async (t) => {
  const { rows, csv, names } = render({ aa: true })(t)
  t.ok(names.includes('cells.csv'), 'renderReport lists cells.csv')
  t.equal(csv.length, 18, '16 cells and the A/A pair')
  const figures = ['opsPerSec', 'getMean', 'getP99', 'putMean', 'putP99']
  t.same(Object.keys(csv[0]), ['cell', 'kind', 'nServers', 'nClients', 'variant', 'repeats',
    'validRepeats', ...figures.flatMap((f) => [`${f}Median`, `${f}Low`, `${f}High`]), 'eldP50Us',
    'eldP99Us', 'meanUtilization', 'fairness', 'clientCpuPerReqUs', 'serverCpuPerReqUs', 'clientBound'])
  for (const cell of csv) {
    const valid = rows.filter((r) => r.cell === cell.cell && r.valid)
    t.equal(Number(cell.validRepeats), valid.length, `${cell.cell}: valid repeats`)
    t.equal(Number(cell.opsPerSecMedian), median(valid.map((r) => r.opsPerSec)), `${cell.cell}: median ops/s`)
    t.equal(Number(cell.meanUtilization), median(valid.map((r) => r.meanUtilization)), `${cell.cell}: utilization`)
    for (const f of figures) {
      const [low, mid, high] = ['Low', 'Median', 'High'].map((s) => Number(cell[f + s]))
      t.ok(low <= mid && mid <= high && low < high, `${cell.cell}: ${f} ${low} <= ${mid} <= ${high}`)
    }
  }
  const byId = Object.fromEntries(csv.map((c) => [c.cell, c]))
  t.equal(byId.c14.repeats, '3', 'c14 ran 3 repeats')
  t.equal(byId.c03.clientBound, 'true', 'client-bound in 2 of 3 repeats: flagged')
  t.equal(byId.c01.clientBound, 'false', 'client-bound in 1 of 3 repeats: not flagged')
  t.same([byId['c17-A'].variant, byId['c17-B'].variant, byId.c14.variant], ['A', 'B', ''])
})

// The first screen's table: label, throughput, server CPU, client CPU, rounds per comparison.
const firstScreen = (page) => Object.fromEntries(tableRows(page, 'verdicts').slice(1).map((r) => [r[0], r.slice(1)]))
const verdictsJson = (dir) => JSON.parse(read(path.join(dir, 'verdicts.json'))).comparisons

t.test('with 8 rounds sync vs async is "the same" for one distribution and a verdict for kinds 2× apart', async (t) => {
  // sync and async draw the same values in other rounds; the async cluster is half the sync cluster's speed.
  const { page, dir } = render({ speeds: { async: 900, 'async-cluster': 425 }, rounds: 8 })(t)
  const rows = firstScreen(page)
  t.match(rows['sync vs async, 1 process, 2 client processes'][0], /^1\.00× \[0\.9\d–1\.0\d\] the same within ±5%$/, 'the same distribution')
  for (const n of [1, 2, 3]) {
    const entry = rows[`sync vs async, cluster of ${n === 1 ? '1 worker' : `${n} workers`}, 4 client processes`][0]
    t.match(entry, /^\d\.\d\d× \[\d\.\d\d–\d\.\d\d\] sync faster$/, entry)
    t.ok(Math.abs(parseFloat(entry) - 2) < 0.1, 'about 2×')
  }
  const slow = render({ speeds: { sync: 350 }, rounds: 8 })(t)
  const other = firstScreen(slow.page)['sync vs async, 1 process, 4 client processes'][0]
  t.match(other, /^0\.\d\d× \[0\.\d\d–0\.\d\d\] async faster$/, 'and the other way')
  t.ok(Math.abs(parseFloat(other) - 0.5) < 0.03, other)
  t.match(rows['sync: cluster of 2 workers vs 1 process, 4 client processes'][0], /cluster of 2 workers faster$/, 'two workers beat one process')
  t.match(page,
    /7–8 rounds: each figure is the Hodges–Lehmann estimate of the per-round ratios with its Wilcoxon signed-rank interval, at 95\.3% confidence or more\./,
    'the page says how many rounds the intervals rest on and what confidence that gives')
  // verdicts.json holds the same comparisons, throughput first, then the two CPU metrics.
  const json = verdictsJson(dir)
  const entry = json.find((v) => v.label === 'sync vs async, cluster of 2 workers, 4 client processes' && v.metric === 'opsPerSec')
  t.match(entry, { a: 'c08', b: 'c14', kind: 'store', metric: 'opsPerSec', better: 'higher', n: 7, margin: 0.05, verdict: 'faster' }, 'c14 lost a round')
  t.ok(entry.low <= entry.estimate && entry.estimate <= entry.high && entry.low > 1)
  t.same([...new Set(json.map((v) => v.metric))], ['opsPerSec', 'serverCpuPerReqUs', 'clientCpuPerReqUs'])
  t.same(Object.keys(entry).sort(), ['a', 'b', 'better', 'confidence', 'estimate', 'high', 'kind', 'label', 'low', 'margin', 'metric', 'n', 'verdict'])
})

t.test('with 3 rounds every verdict is undecided: no interval reaches 95%', async (t) => {
  const { page, dir } = render({ speeds: { async: 450 } })(t)
  t.same([...new Set(verdictsJson(dir).map((v) => v.verdict))], ['undecided'])
  t.match(page,
    /2–3 rounds: .* at 50\.0% confidence or more \(below 95%: 2 rounds are too few; 6 are the fewest that reach it, and no verdict is given below it\)/)
})

t.test('a single round gives no verdict, only a point', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir)
  const file = path.join(dir, 'summary.csv')
  fs.writeFileSync(file, stringify(readCsv(file).filter((r) => r.repeat === '1'), { header: true }))
  renderReport(dir)
  const page = read(path.join(dir, 'report.html'))
  const entries = tableRows(page, 'verdicts').slice(1).flatMap((r) => r.slice(1, 4))
  t.ok(entries.length > 0 && entries.every((e) => e.endsWith('one round: no interval')), entries.join(' | '))
  t.match(page, /too few rounds for any interval/)
})

t.test('the A/A pair calibrates: "the same" within the margin, and left out of every other chart and median', async (t) => {
  const plain = render({ rounds: 8 })(t)
  const aa = render({ aa: true, rounds: 8 })(t)
  t.same(aa.names.filter((n) => !n.includes('c17-') && n !== 'charts/verdicts.svg'), plain.names.filter((n) => n !== 'charts/verdicts.svg'),
    'the same charts but the A/A pair\'s own')
  t.ok(aa.names.includes('hgrm/c17-A-GET.hgrm') && aa.names.includes('charts/candles-c17-B.svg'), 'and the A/A cells\' spectra and candlesticks')
  // ECharts numbers its ids per chart instance in the process: compare the drawing, not ids.
  const drawing = (dir, name) => read(path.join(dir, name)).replace(/zr\d+-(cls-|[a-z])\d+/g, 'zr-$1')
  for (const name of plain.names.filter((n) => n.endsWith('.svg') && !n.endsWith('verdicts.svg'))) {
    t.equal(drawing(aa.dir, name), drawing(plain.dir, name), `${name} is unchanged`)
  }
  for (const name of ['medians', 'usl', 'matrix']) {
    t.same(tableRows(aa.page, name), tableRows(plain.page, name), `the ${name} table is unchanged: the A/A gates no other verdict`)
  }
  const rows = firstScreen(aa.page)
  t.match(rows['A/A: async, cluster of 2 workers, 4 client processes'][0], /^1\.00× \[0\.99–1\.01\] the same within ±5%$/)
  t.match(aa.page, new RegExp('Calibration: the A/A pair \\(async, cluster of 2 workers, 4 client processes, one configuration run as two cells\\): ' +
    'A/B 1\\.00× \\[0\\.99–1\\.01\\], came out the same within ±5%, as it must\\.'))
  t.notOk(aa.page.includes('class="alarm"'), 'no alarm')
  t.match(verdictsJson(aa.dir).find((v) => v.aa), { a: 'c17-A', b: 'c17-B', aa: true, verdict: 'same' })
})

t.test('an A/A pair that comes out different says at the top that the run cannot be trusted', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir, { aa: true, rounds: 8 })
  const file = path.join(dir, 'summary.csv')
  const records = readCsv(file)
  for (const r of records) if (r.cell === 'c17-B') r.opsPerSec = String(Number(r.opsPerSec) * 1.2)
  fs.writeFileSync(file, stringify(records, { header: true }))
  renderReport(dir)
  const page = read(path.join(dir, 'report.html'))
  const alarm = page.indexOf('<p class="alarm"><strong>The A/A pair came out different: this run cannot be trusted as it is.</strong>')
  t.ok(alarm > 0 && alarm < page.indexOf('<table class="verdicts">'), 'the alarm comes before the verdicts')
  t.match(page, /came out different: its two copies of the same server differed beyond their interval .* run it again/)
  const afterAA = /A\/A: [^\n]+ B faster\nA\/A: one configuration run as two cells came out different, [^\n]+--restartEvery=N/
  t.match(read(path.join(dir, 'answer.txt')), afterAA, 'the terminal\'s lines: the hint right after the A/A line')
  t.match(JSON.parse(read(path.join(dir, 'verdicts.json'))).comparisons.find((v) => v.aa), { verdict: 'slower' })
})

t.test('an undecided A/A pair says how many rounds, and which --budget, would decide it at the run\'s noise', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir, { aa: true, rounds: 8 })
  const file = path.join(dir, 'summary.csv')
  const records = readCsv(file)
  // A at 100,000 ops/s, B at 1.2 and 1/1.2 of it in turn: a spread of ln 1.2 × √(8/7) = 0.195 (log); by hand,
  // (1.96 × 0.1949 / (ln 1.05 / 2))² / (3/π) = 256.9 rounds.
  for (const r of records) if (r.cell === 'c17-A') r.opsPerSec = '100000'
  for (const r of records) if (r.cell === 'c17-B') r.opsPerSec = r.repeat % 2 ? '120000' : '83333'
  fs.writeFileSync(file, stringify(records, { header: true }))
  const envFile = path.join(dir, 'env.json')
  const env = JSON.parse(read(envFile))
  // 10 s to start and warm up, 100 s for 8 rounds: 257 rounds take 10 + 100 × 257 / 8 = 3,222.5 s, to the next 10 s.
  fs.writeFileSync(envFile, JSON.stringify({ ...env, options: { ...env.options, budget: 110, maxRounds: 300 },
    rounds: { rounds: 8, disturbed: 0, stop: 'budget', timing: { start: 2000, warm: 8000, rounds: 100000, profile: 0, stop: 100, measured: 90000 } } }))
  renderReport(dir)
  const lines = read(path.join(dir, 'answer.txt')).split('\n')
  const at = lines.findIndex((l) => /^A\/A: async, cluster of 2 workers, 4 client processes: .* undecided$/.test(l))
  t.ok(at >= 0, 'the A/A line')
  t.equal(lines[at + 1], 'A/A: undecided at this machine\'s noise: its rounds\' ratios spread by 0.195 (log), so about 257 rounds, not 8, ' +
    'would decide it: --budget=3230 gives a run like this one that many')
  const page = read(path.join(dir, 'report.html'))
  t.match(page, /came out undecided: .*so about 257 rounds, not 8, would decide it: --budget=3230/)
  const needs = page.indexOf('<p class="note" id="aa-needs"><strong>The A/A pair came out undecided at this machine\'s noise:</strong>')
  t.ok(needs > 0 && needs < page.indexOf('<table class="verdicts">'), 'the first screen says it above the verdicts')
  // At most 100 rounds a run (the default): the flags raise that too.
  fs.writeFileSync(envFile, JSON.stringify({ ...JSON.parse(read(envFile)), options: { ...env.options, budget: 110, maxRounds: 100 } }))
  renderReport(dir)
  t.match(read(path.join(dir, 'answer.txt')), /would decide it: --budget=3230 --maxRounds=257 gives/)
})

t.test('the USL fit recovers the generating parameters and is drawn over the points', async (t) => {
  const { page, dir, names } = render()(t)
  const [head, ...fits] = tableRows(page, 'usl')
  t.same(head, ['kind', 'nClients', 'nServers values', 'λ (ops/s per process)', 'σ', 'κ', 'R²', 'predicted peak N'])
  t.equal(fits.length, 4, 'both cluster kinds at both nClients')
  t.equal(fits[0][2], '3 (9 runs)', 'sync-cluster at nClients 2: 3 values of nServers, 3 repeats each')
  const meanJitter = JITTER.reduce((a, b) => a + b) / JITTER.length
  for (const [kind, load, , lambda, sigma, kappa] of fits) {
    const truth = KIND_SPEED[kind] * Number(load) ** 0.3 * meanJitter
    const at = `${kind}, nClients ${load}`
    t.ok(Math.abs(Number(lambda.replace(',', '')) / truth - 1) < 0.02, `${at}: λ ${lambda} near ${truth.toFixed(0)}`)
    t.ok(Math.abs(Number(sigma) - USL_TRUTH.sigma) < 0.025, `${at}: σ ${sigma}`)
    t.ok(Math.abs(Number(kappa) - USL_TRUTH.kappa) < 0.01, `${at}: κ ${kappa}`)
  }
  t.equal(fits[0][7], '3.3, beyond the measured range, oversubscribed', 'peak √(0.85/0.08) ≈ 3.26')
  t.match(page, /Beyond the 2 cores the curve measures oversubscription/)
  t.match(page, /indicative only/)
  t.ok(names.includes('charts/usl-fit.svg'))
  const svg = read(path.join(dir, 'charts/usl-fit.svg'))
  checkXmlish(svg)
  for (const text of ['nClients = 2', 'nClients = 4', 'Throughput (ops/s)', 'peak N≈3.3',
    'oversubscribed: N &gt; 2 cores', 'sync-cluster', 'async-cluster']) {
    t.ok(svg.includes(`>${text}<`), `the chart shows "${text}"`)
  }
  t.ok(svg.includes('>2 cores · Node v20.20.2 · '), 'the subtitle states cores and Node version')
  t.equal(svg.split('ecmeta_series_index="1"').length - 1, 9, 'sync-cluster at nClients 2: 9 points')
})

t.test('with fewer than 3 values of nServers the USL is skipped with a note', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir)
  const file = path.join(dir, 'summary.csv')
  const records = readCsv(file)
  for (const r of records) if (r.cell === 'c16') r.valid = 'false' // async-cluster, 3 servers, 4 clients
  fs.writeFileSync(file, stringify(records, { header: true }))
  renderReport(dir)
  let page = read(path.join(dir, 'report.html'))
  t.equal(tableRows(page, 'usl').length, 1 + 3, 'the three other fits are in the table')
  t.match(page, /Not fitted \(fewer than 3 values of\s+nServers\): async-cluster at nClients 4\./)
  fs.writeFileSync(file, stringify(records.filter((r) => r.nServers !== '3'), { header: true }))
  const names = renderReport(dir).map((f) => path.basename(f))
  t.notOk(names.includes('usl-fit.svg'), 'no USL chart')
  page = read(path.join(dir, 'report.html'))
  t.match(page, /No USL fit: the cluster kinds ran at only 2 values of nServers; a fit\s+needs valid repeats at 3 or more/)
  t.equal(tableRows(page, 'usl'), null, 'no USL table')
})

t.test('the event-loop chart plots utilization and delay p99 against nServers at the largest load', async (t) => {
  const { dir, page } = render()(t)
  const svg = read(path.join(dir, 'charts/event-loop-nClients-4.svg'))
  checkXmlish(svg)
  for (const text of ['Server event loops with 4 client processes (the largest load)',
    'Event-loop utilization (0–1)', 'Event-loop delay p99 (µs)', 'nServers (processes)',
    'oversubscribed: 2 cores', '1']) {
    t.ok(svg.includes(`>${text}<`), `it shows "${text}"`)
  }
  t.ok(svg.includes('2 cores · Node v20.20.2'), 'with cores and Node in the subtitle')
  t.notOk(svg.includes('1 process<'), 'no single-process reference lines')
  const [head, ...medians] = tableRows(page, 'medians')
  const column = (name) => head.indexOf(name)
  const c02 = medians.find((r) => r[0] === 'c02')
  t.equal(c02[column('loop utilization')], '0.97')
  t.equal(c02[column('loop delay p99 (µs)')], '20,818')
})

t.test('a client-bound cell is marked in the medians table, the heat map and the comparisons', async (t) => {
  const { page, dir } = render()(t)
  t.ok(read(path.join(dir, 'charts/throughput-heatmap.svg')).includes('>862 ⚠<'), 'the heat map marks c03')
  const medians = tableRows(page, 'medians')
  const c03 = page.slice(page.indexOf('<td>c03'), page.indexOf('</tr>', page.indexOf('<td>c03')))
  t.match(c03, /<span class="bound"[^>]*>⚠<\/span>/, 'c03 carries the badge')
  t.same(medians.filter((r) => r[0].includes('⚠')).map((r) => r[0]), ['c03 ⚠'], 'and no other cell')
  t.match(page, /⚠<\/span> client-bound: in most valid\s+repeats the load generator spent more CPU/, 'the legend')
  t.match(firstScreen(page)['sync vs async, 1 process, 2 client processes'][0], /⚠ undecided$/, 'sync vs async with 2 clients involves c03')
})

t.test('an older folder without the new columns still renders', async (t) => {
  const { page, names, csv } = render({ legacy: true })(t)
  t.notOk(names.includes('charts/event-loop-nClients-4.svg'), 'no event-loop chart')
  t.ok(names.includes('charts/usl-fit.svg') && names.includes('cells.csv'))
  t.equal(csv.length, 16)
  t.same([csv[0].meanUtilization, csv[0].clientBound, csv[0].variant], ['', '', ''])
  t.notOk(page.includes('loop utilization'), 'no telemetry columns')
  t.notOk(page.includes('class="bound"'), 'no client-bound marks')
  t.equal(tableRows(page, 'verdicts').length, 1 + 20, 'the comparisons are there: a head row, 8 sync/async pairs and 12 cluster gains')
})

t.test('settings that vary split charts and comparisons; the A/A label does not', async (t) => {
  const { names, page, csv } = render({ schedPolicies: ['rr', 'none'], aa: true })(t)
  t.ok(['v1-usl-fit.svg', 'v2-usl-fit.svg', 'v1-event-loop-nClients-4.svg', 'v2-throughput-heatmap.svg']
    .every((n) => names.includes(`charts/${n}`)), 'one set of charts per policy')
  t.notOk(names.some((n) => n.startsWith('charts/v3-')), 'and no third set for A/A')
  t.match(page, /<h3>schedPolicy=rr<\/h3>[\s\S]*<h3>schedPolicy=none<\/h3>/, 'a comparison per policy')
  t.equal(page.split('<table class="matrix">').length - 1, 4, 'sync/async and model matrices per policy')
  t.match(page, /sync vs async, 1 process, schedPolicy=none, 2 client processes/, 'labels name the policy')
  t.same(csv.filter((c) => c.cell.startsWith('c01')).map((c) => c.schedPolicy), ['rr', 'none'])
  const dir = t.testdir()
  writeSweepFolder(dir)
  const file = path.join(dir, 'summary.csv')
  const records = readCsv(file)
  for (const r of records) if (r.nServers === '2') r.uvThreadpoolSize = '8'
  fs.writeFileSync(file, stringify(records, { header: true }))
  renderReport(dir)
  const cells = readCsv(path.join(dir, 'cells.csv'))
  t.same([...new Set(cells.map((c) => c.uvThreadpoolSize))], ['4', '8'], 'uvThreadpoolSize is a cells.csv column')
  t.ok(fs.existsSync(path.join(dir, 'charts/v2-event-loop-nClients-4.svg')))
})
