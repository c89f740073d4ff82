'use strict'
// The report generator: a synthetic results folder in, SVG charts and report.html out.
// Run: npx tap test/report/report.test.js

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { parse } = require('csv-parse/sync')
const { stringify } = require('csv-stringify/sync')
const { renderReport } = require('../../report')
const { writeSweepFolder, writePeakFolder, INJECTION } = require('../fixtures/results-folder')
const { checkXmlish } = require('../fixtures/xmlish')
const { parseHgrm, decodeHistogram } = require('../../lib/results/hgrm')

const SUBTITLE = '2 cores · Node v20.20.2'
const read = (file) => fs.readFileSync(file, 'utf8')
const svgs = (files) => files.filter((f) => f.endsWith('.svg'))
// The markup of <table class="NAME"> in a page, and its body rows.
const table = (page, name) => {
  const start = page.indexOf(`<table class="${name}">`)
  return page.slice(start, page.indexOf('</table>', start))
}
const bodyRows = (markup) => markup.split('<tr').length - 2 // minus the text before and the head row
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

t.test('a sweep folder gets one SVG per chart, each well-formed and drawn', async (t) => {
  const dir = t.testdir()
  const { cells } = writeSweepFolder(dir)
  const files = renderReport(dir)
  t.same(files.map((f) => path.relative(dir, f)), [
    'charts/verdicts.svg', ...cells.map((c) => `charts/candles-${c.cell}.svg`),
    'charts/runtime-nClients-2.svg', 'charts/runtime-nClients-4.svg',
    'charts/throughput-heatmap.svg', 'charts/spectrum-nClients-2.svg', 'charts/spectrum-nClients-4.svg',
    'charts/event-loop-nClients-4.svg', 'charts/usl-fit.svg',
    ...cells.flatMap((c) => [`hgrm/${c.cell}-GET.hgrm`, `hgrm/${c.cell}-PUT.hgrm`]), 'verdicts.json', 'answer.txt', 'cells.csv', 'report.html'])
  for (const file of svgs(files)) {
    const svg = read(file)
    const { root, elements } = checkXmlish(svg)
    t.equal(root, 'svg', `${path.basename(file)} is an SVG document`)
    // A cell's candlesticks are few shapes: one candle per client process and operation.
    t.ok(elements > (path.basename(file).startsWith('candles-') ? 20 : 40), `${path.basename(file)} has drawn elements`)
    t.match(svg, /<path d="M/, 'it draws paths')
    t.ok(svg.includes(SUBTITLE), 'its subtitle states cores and Node version')
  }
})

t.test('the runtime chart has units, single-process references and the oversubscribed band', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir)
  renderReport(dir)
  const svg = read(path.join(dir, 'charts/runtime-nClients-4.svg'))
  for (const text of ['Total time (s)', 'Throughput (ops/s)', 'nServers (processes)',
    'sync, 1 process', 'async, 1 process', 'oversubscribed: 2 cores']) {
    t.ok(svg.includes(`>${text}<`), `it shows "${text}"`)
  }
  t.match(svg, /stroke-dasharray/, 'the reference lines are dashed')
})

t.test('without oversubscribed cells there is no oversubscribed band', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir)
  edit(dir, (s) => s.split('\n').filter((line) => !/^c\d+,\d+,\d+,\w+-cluster,3,/.test(line)).join('\n'))
  renderReport(dir)
  const svg = read(path.join(dir, 'charts/runtime-nClients-2.svg'))
  t.ok(svg.includes('>sync, 1 process<'), 'the chart is drawn')
  t.notOk(svg.includes('oversubscribed'), 'with no band')
})

t.test('a spectrum chart per nClients overlays the kinds on one log latency scale up to 99.99%', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir)
  renderReport(dir)
  const svg = read(path.join(dir, 'charts/spectrum-nClients-4.svg'))
  // The cluster kinds at the most workers that fit the 2 cores.
  t.ok(svg.includes('>Latency spectrum with 4 client processes: sync, async, sync-cluster ×2, async-cluster ×2<'), 'the title names the lines')
  for (const label of ['0%', '90%', '99%', '99.9%', '99.99%', 'GET latency (µs)', 'PUT latency (µs)']) t.ok(svg.includes(`>${label}<`), `it shows ${label}`)
  const lines = svg.match(/<path d="M[^"]+" fill="none" pointer-events="visible" stroke="#[0-9a-f]{6}" stroke-width="2"/g) ?? []
  t.equal(lines.length, 8, 'four kinds, GET and PUT')
  // One log scale for all kinds: both panels label the same powers of ten.
  const ticks = svg.match(/>\d{1,3}(,\d{3})*</g)
  for (const tick of ['>100<', '>1,000<', '>10,000<']) t.equal(ticks.filter((x) => x === tick).length, 2, `${tick} on both panels`)
})

t.test('each cell\'s latency histogram, merged over its valid repeats, is an .hgrm file', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir)
  renderReport(dir)
  const c14 = parseHgrm(read(path.join(dir, 'hgrm/c14-GET.hgrm')))
  t.equal(c14.totalCount, 2 * 500, 'c14: the two valid repeats of 500 GETs (repeat 2 is invalid)')
  const c01 = parseHgrm(read(path.join(dir, 'hgrm/c01-PUT.hgrm')))
  t.equal(c01.totalCount, 3 * 50, 'c01: three repeats of 50 PUTs')
  const repeats = [1, 2, 3].map((r) => decodeHistogram(JSON.parse(read(path.join(dir, `cells/c01-r${r}.json`))).histograms.PUT))
  const mean = repeats.reduce((sum, h) => sum + h.mean, 0) / 3 / 1000
  t.ok(Math.abs(c01.meanMs - mean) < 0.001, `its mean ${c01.meanMs} ms is the repeats' ${mean.toFixed(3)} ms`)
  t.equal(c01.maxMs, Math.max(...repeats.map((h) => h.maxValue)) / 1000, 'its max the largest repeat\'s')
})

t.test('the heat map labels every cell with the median ops/s of its valid repeats', async (t) => {
  const dir = t.testdir()
  const { rows, cells } = writeSweepFolder(dir)
  renderReport(dir)
  const svg = read(path.join(dir, 'charts/throughput-heatmap.svg'))
  for (const { cell, nServers } of cells) {
    const valid = rows.filter((r) => r.cell === cell && r.valid).map((r) => r.opsPerSec)
    const label = `${Math.round(median(valid))}${nServers > 2 ? ' †' : ''}${cell === 'c03' ? ' ⚠' : ''}`
    t.ok(svg.includes(`>${label}<`), `${cell} is labelled ${label}`)
  }
  t.ok(svg.includes('† oversubscribed: nServers &gt; 2 cores'), 'the marker is explained')
  t.ok(svg.includes('⚠ client-bound'), 'and so is the client-bound one')
})

t.test('report.html embeds the charts, environment and tables, and escapes the folder\'s strings', async (t) => {
  const dir = t.testdir()
  const { rows, cells, env } = writeSweepFolder(dir)
  const files = renderReport(dir)
  const page = read(path.join(dir, 'report.html'))
  for (const file of svgs(files)) {
    t.ok(page.includes(read(file)), `${path.basename(file)} is inline`)
  }
  for (const text of [env.cpuModel, env.gitCommit, env.argv.join(' '), env.seed, env.startedAt,
    '8.0 GiB']) {
    t.ok(page.includes(text), `the environment shows ${text}`)
  }
  const summary = table(page, 'summary')
  t.equal(bodyRows(summary), rows.length, 'the summary table has every row')
  t.equal(summary.split('<tr class="invalid"').length - 1, 1, 'the invalid row is highlighted')
  t.equal(bodyRows(table(page, 'medians')), cells.length, 'the medians table has one row per cell')
  t.ok(page.includes('server exited &lt;script&gt;window.injected = 1&lt;/script&gt;'),
    'the reason is shown escaped')
  t.notOk(page.includes(INJECTION), 'the planted <script> is not markup')
  t.notOk(page.includes('<img'), 'the planted <img> in the config is not markup')
  t.notMatch(page, /<script|<link|<[^>]+\s(?:src|href)=(?!"#)/, 'nothing is loaded from elsewhere')
})

t.test('a reads-only sweep draws GET latency only', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir, { readsOnly: true })
  renderReport(dir)
  const svg = read(path.join(dir, 'charts/spectrum-nClients-4.svg'))
  t.ok(svg.includes('>GET latency (µs)<'))
  t.notOk(svg.includes('PUT latency'), 'no PUT panel without PUTs')
  t.notOk(fs.existsSync(path.join(dir, 'hgrm/c01-PUT.hgrm')), 'and no PUT .hgrm')
})

t.test('a cell without a valid repeat is left out of the charts and has no medians', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir)
  edit(dir, (s) => s.replace(/^(c16,.*?,)true,,/gm, '$1false,timeout,'))
  renderReport(dir)
  const heatmap = read(path.join(dir, 'charts/throughput-heatmap.svg'))
  t.notOk(heatmap.includes('>1660 †<'), 'c16 has no label')
  t.ok(heatmap.includes('>1349 †<'), 'c15 still has one')
  const page = read(path.join(dir, 'report.html'))
  t.match(page, /<td>c16<\/td>(?:(?!<\/tr>)[\s\S])*<td class="num">–<\/td>(?:(?!<\/tr>)[\s\S])*0 \/ 3/, 'its medians are – and 0 / 3 repeats are valid')
  t.equal(page.split('<tr class="invalid"').length - 1, 4, 'its three rows are highlighted too')
})

t.test('cells that differ in another knob get their own set of charts', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir)
  const file = path.join(dir, 'summary.csv')
  const records = parse(read(file), { columns: true })
  for (const r of records) if (r.nClients === '4') r.readsPerWrite = 'inf' // reads only
  fs.writeFileSync(file, stringify(records, { header: true }))
  const names = renderReport(dir).map((f) => path.basename(f))
  t.ok(names.includes('v1-runtime-nClients-2.svg') && names.includes('v2-runtime-nClients-4.svg'))
  t.ok(names.includes('v1-throughput-heatmap.svg') && names.includes('v2-throughput-heatmap.svg'))
  t.ok(read(path.join(dir, 'charts/v2-throughput-heatmap.svg')).includes('readsPerWrite=inf'),
    'the title names the variant')
})

t.test('a peak folder renders req/s by kind and nServers for GET and PUT', async (t) => {
  const dir = t.testdir()
  const { rows } = writePeakFolder(dir)
  const files = renderReport(dir)
  t.same(files.map((f) => path.relative(dir, f)), ['charts/peak-connections-10.svg', 'cells.csv',
    'report.html'])
  const svg = read(files[0])
  checkXmlish(svg)
  for (const text of ['GET (req/s)', 'PUT (req/s)', 'oversubscribed: 2 cores']) {
    t.ok(svg.includes(`>${text}<`), `it shows "${text}"`)
  }
  const page = read(files[2])
  t.ok(page.includes(svg), 'the chart is inline')
  t.equal(bodyRows(table(page, 'summary')), rows.length, 'the summary table has every row')
  t.equal(bodyRows(table(page, 'medians')), 16, 'one median row per cell and op')
  edit(dir, (s) => s.replaceAll(',PUT,', ',POST,')) // the method /put is called with
  t.ok(read(renderReport(dir)[0]).includes('>POST (req/s)<'), 'ops are taken as written')
})

t.test('a missing or malformed input gives an Error naming the file', async (t) => {
  const remove = (name) => (dir) => fs.rmSync(path.join(dir, name))
  const write = (name, text) => (dir) => fs.writeFileSync(path.join(dir, name), text)
  const cases = [
    ['no summary.csv', remove('summary.csv'), /summary\.csv: ENOENT/],
    ['no env.json', remove('env.json'), /env\.json: ENOENT/],
    ['a malformed env.json', write('env.json', '{"node":'), /env\.json: Unexpected end of JSON/],
    ['an empty summary.csv', write('summary.csv', ''), /summary\.csv: the file is empty/],
    ['a ragged row', (dir) => edit(dir, (s) => `${s}c99,1,2\n`),
      /summary\.csv: Invalid Record Length/],
    ['a renamed column', (dir) => edit(dir, (s) => s.replace(',opsPerSec,', ',throughput,')),
      /summary\.csv: the header is neither a sweep, a peak nor a capacity summary \(as a sweep summary it lacks opsPerSec\)/],
    ['a word in a number column', (dir) => edit(dir, (s) => s.replace(',1064,', ',fast,')),
      /summary\.csv line 2: opsPerSec must be a number, got "fast"/],
    ['an unknown kind', (dir) => edit(dir, (s) => s.replace(',sync,', ',../../x,')),
      new RegExp('summary\\.csv line 2: kind must be one of sync, async, sync-cluster, async-cluster, sync-reuseport, async-reuseport, ' +
        'sync-lb, async-lb, sync-pool, got "\\.\\./\\.\\./x"')],
    ['a bad flag', (dir) => edit(dir, (s) => s.replace(',false,true,', ',false,yes,')),
      /summary\.csv line 2: valid must be true or false, got "yes"/],
    ['a missing cell JSON', remove('cells/c02-r2.json'), /c02-r2\.json: ENOENT/]
  ]
  for (const [name, damage, message] of cases) {
    const dir = t.testdir()
    writeSweepFolder(dir)
    damage(dir)
    t.throws(() => renderReport(dir), message, name)
  }
})

function edit (dir, change) {
  const file = path.join(dir, 'summary.csv')
  fs.writeFileSync(file, change(read(file)))
}

t.test('a folder kept without its cells/ (as docs/ keeps them) renders without spectra and candlesticks', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir, { rounds: 8 })
  fs.rmSync(path.join(dir, 'cells'), { recursive: true })
  const names = renderReport(dir).map((f) => path.relative(dir, f))
  t.notOk(names.some((n) => n.startsWith('hgrm/') || n.startsWith('charts/candles-')), 'no spectra, no candlesticks')
  t.ok(names.includes('charts/verdicts.svg') && names.includes('verdicts.json'), 'the verdicts still')
})

t.test('the CLI prints the files it wrote, and errors on stderr with a non-zero exit', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir)
  const script = path.join(__dirname, '../../report/index.js')
  const cli = (...args) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' })
  const ok = cli(dir)
  t.equal(ok.status, 0)
  t.equal(ok.stdout.trim().split('\n').length, 8 + 16 + 2 * 16 + 4,
    'eight charts and a candle chart per cell, two .hgrm files per cell, verdicts.json, answer.txt, cells.csv and the page')
  t.ok(ok.stdout.trim().endsWith('report.html'))
  const missing = cli(path.join(dir, 'nowhere'))
  t.equal(missing.status, 1)
  t.match(missing.stderr, /^report: .*nowhere.*env\.json/)
  const usage = cli()
  t.equal(usage.status, 2)
  t.match(usage.stderr, /usage: node report RESULTS_DIR/)
})
