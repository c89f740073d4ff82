'use strict'
// The report's analysis: cells.csv with intervals, sync/async verdicts, the A/A noise floor, the
// USL fit, the event-loop chart and client-bound marks. Run: npx tap test/report-analysis.test.js

const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parse } = require('csv-parse/sync')
const { stringify } = require('csv-stringify/sync')
const { renderReport } = require('../report')
const { median } = require('../lib/bootstrap')
const { writeSweepFolder, KIND_SPEED, USL_TRUTH, JITTER, AA_NOISE } = require('./fixtures/results-folder')
const { checkXmlish } = require('./fixtures/xmlish')

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

t.test('sync vs async says "no clear difference" for one distribution and a verdict for kinds 2× apart', async (t) => {
  // sync and async draw the same values in other rounds; the async cluster is half the sync cluster's speed.
  const { page } = render({ speeds: { async: 900, 'async-cluster': 425 } })(t)
  const [head, c2, c4] = tableRows(page, 'verdicts')
  t.same(head, ['nClients', 'single process', 'cluster, 1 worker', 'cluster, 2 workers', 'cluster, 3 workers †'])
  // Per round sync/async is 0.96/1, 1/1.07, 1.07/0.96: median 0.96, interval [0.93, 1.11].
  for (const row of [c2, c4]) {
    t.match(row[1], /^0\.96× \[0\.93–1\.11\].*no clear difference$/, `nClients ${row[0]}, one process: ${row[1]}`)
    for (const entry of row.slice(2)) {
      t.match(entry, /^\d\.\d\d× \[1\.\d\d–2\.\d\d\] sync faster$/, entry)
      t.ok(Math.abs(parseFloat(entry) - 2) < 0.1, 'about 2×')
    }
  }
  const slow = render({ speeds: { sync: 350 } })(t)
  const other = tableRows(slow.page, 'verdicts')[2][1]
  t.match(other, /^0\.\d\d× \[0\.\d\d–0\.\d\d\] async faster$/, 'and the other way')
  t.ok(Math.abs(parseFloat(other) - 0.5) < 0.03, other)
  const [, ...speedups] = tableRows(page, 'speedups')
  t.same(speedups.map((r) => r[0]), ['sync, nClients 2', 'sync, nClients 4', 'async, nClients 2', 'async, nClients 4'])
  t.match(speedups[1][2], /^1\.\d\d× \[.*\] cluster faster$/, 'two workers beat one process')
  t.match(page, /2–3 rounds: an interval is the lowest to the highest per-round ratio/, 'the page says how many rounds the intervals rest on')
  t.match(page, /at least 50\.0% confidence \(below 95%: 2 rounds are too few for it; 6 are the fewest that reach it\)/, 'and what confidence that gives')
})

t.test('a single repeat gives no verdict, only a point', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir)
  const file = path.join(dir, 'summary.csv')
  fs.writeFileSync(file, stringify(readCsv(file).filter((r) => r.repeat === '1'), { header: true }))
  renderReport(dir)
  const page = read(path.join(dir, 'report.html'))
  const entries = tableRows(page, 'verdicts').slice(1).flatMap((r) => r.slice(1))
  t.ok(entries.length > 0 && entries.every((e) => e.endsWith('one round: no interval')), entries.join(' | '))
  t.match(page, /too few rounds for any interval/)
})

t.test('an A/A pair gives the noise floor and is left out of every other chart and median', async (t) => {
  const plain = render()(t)
  const aa = render({ aa: true })(t)
  t.same(aa.names.filter((n) => !n.startsWith('hgrm/c17-')), plain.names, 'the same charts')
  t.ok(aa.names.includes('hgrm/c17-A-GET.hgrm'), 'and the A/A cells\' spectra')
  // ECharts numbers its ids per chart instance in the process: compare the drawing, not ids.
  const drawing = (dir, name) => read(path.join(dir, name)).replace(/zr\d+-(cls-|[a-z])\d+/g, 'zr-$1')
  for (const name of aa.names.filter((n) => n.endsWith('.svg'))) {
    t.equal(drawing(aa.dir, name), drawing(plain.dir, name), `${name} is unchanged`)
  }
  for (const name of ['medians', 'usl']) {
    t.same(tableRows(aa.page, name), tableRows(plain.page, name), `the ${name} table is unchanged`)
  }
  // The ratios are the same; their verdicts are now set against the noise band.
  const ratios = (page, name) => tableRows(page, name).map((row) => row.map((e) => e.replace(/ (within noise|no clear difference)$/, '')))
  for (const name of ['verdicts', 'speedups']) t.same(ratios(aa.page, name), ratios(plain.page, name), `the ${name} ratios are unchanged`)
  const verdictWords = (page) => ['verdicts', 'speedups'].flatMap((name) => tableRows(page, name).flat()).join(' | ')
  t.match(verdictWords(aa.page), /within noise/)
  t.notMatch(verdictWords(plain.page), /within noise/, 'without A/A cells nothing is "within noise"')
  t.notOk(plain.page.includes('Noise floor'), 'no A/A section without A/A cells')
  // A/B per round is 1/1.03, 1/0.97, 1/1.05: interval [0.952, 1.031], read both ways up to 1.05.
  t.equal(Math.round((AA_NOISE[2] - 1) * 100), 5)
  t.ok(aa.page.includes('The same configuration differed by up to 5% between labelled\n      variants'))
  t.match(aa.page, /the\s+interval clears the A\/A noise band \(5%: 0\.95–1\.05\)/, 'and the headline says so')
  const [, pair] = tableRows(aa.page, 'noise')
  t.same(pair.slice(0, 5), ['c17-A', 'c17-B', 'async-cluster', '2', '4'])
  t.match(pair[7], /^0\.97× \[0\.95–1\.03\] no clear difference$/)
  t.equal(aa.page.split('<tr').length - plain.page.split('<tr').length, 6 + 2,
    'the A/A runs are in the summary table, plus the noise table\'s rows')
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
  t.match(tableRows(page, 'verdicts')[1][1], /⚠ sync faster$/, 'sync vs async with 2 clients involves c03')
})

t.test('an older folder without the new columns still renders', async (t) => {
  const { page, names, csv } = render({ legacy: true })(t)
  t.notOk(names.includes('charts/event-loop-nClients-4.svg'), 'no event-loop chart')
  t.ok(names.includes('charts/usl-fit.svg') && names.includes('cells.csv'))
  t.equal(csv.length, 16)
  t.same([csv[0].meanUtilization, csv[0].clientBound, csv[0].variant], ['', '', ''])
  t.notOk(page.includes('loop utilization'), 'no telemetry columns')
  t.notOk(page.includes('class="bound"'), 'no client-bound marks')
  t.equal(tableRows(page, 'verdicts').length, 3, 'the comparisons are there')
})

t.test('settings that vary split charts and comparisons; the A/A label does not', async (t) => {
  const { names, page, csv } = render({ schedPolicies: ['rr', 'none'], aa: true })(t)
  t.ok(['v1-usl-fit.svg', 'v2-usl-fit.svg', 'v1-event-loop-nClients-4.svg', 'v2-throughput-heatmap.svg']
    .every((n) => names.includes(`charts/${n}`)), 'one set of charts per policy')
  t.notOk(names.some((n) => n.startsWith('charts/v3-')), 'and no third set for A/A')
  t.match(page, /<h3>schedPolicy=rr<\/h3>[\s\S]*<h3>schedPolicy=none<\/h3>/, 'a comparison per policy')
  t.equal(page.split('<table class="verdicts">').length - 1, 2)
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
