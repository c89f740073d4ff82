'use strict'
// The report across Node versions and process models: versions.md and the versions section
// (V8, libuv, line status, intervals, which verdicts hold on every supported line), and cluster
// beside reusePort with shares and fairness. Run: npx tap test/report/stats/versions.test.js

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { renderReport } = require('../../../report')
const { writeVersionsFolder, RUNTIMES } = require('../../fixtures/versions-folder')

const tableRows = (page, name) => {
  const start = page.indexOf(`<table class="${name}">`)
  if (start === -1) return null
  return page.slice(start, page.indexOf('</table>', start)).split('<tr').slice(1).map((tr) =>
    tr.split(/<t[dh][^>]*>/).slice(1).map((td) => td.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim()))
}
const render = (t, options) => {
  const dir = t.testdir()
  writeVersionsFolder(dir, options)
  const files = renderReport(dir).map((f) => path.relative(dir, f))
  const read = (name) => fs.existsSync(path.join(dir, name)) ? fs.readFileSync(path.join(dir, name), 'utf8') : null
  return { files, page: read('report.html'), md: read('versions.md'), runtimesMd: read('runtimes.md') }
}

t.test('versions.md names each version, its V8, libuv and line, with intervals and each verdict', async (t) => {
  const { files, md } = render(t)
  t.ok(files.includes('versions.md'), 'renderReport lists versions.md')
  t.match(md, new RegExp('^# Node versions compared: 2026-11-23\\n\\nCommand: `\\./run_benchmark\\.sh sweep --node=system,24,26` · ' +
    '2 cores \\(Test CPU\\) · client on Node v20\\.20\\.2 · seed 9\\n'))
  t.match(md, '- sync over async in throughput (one process, nServers 1, nClients 2): sync faster on every supported line (v24.21.0, v26.10.0)\n')
  t.match(md, '- async over sync in server CPU per request (one process, nServers 1, nClients 2): sync cheaper on every supported line (v24.21.0, v26.10.0)\n')
  const table = md.slice(md.indexOf('## nServers 1, nClients 2'), md.indexOf('## nServers 2')).split('\n').filter((l) => l.startsWith('|'))
  t.equal(table[0], '| Node | V8 | libuv | line | sync ops/s [95% CI] | async ops/s [95% CI] | sync/async | sync server CPU µs/req | ' +
    'async server CPU µs/req | async/sync CPU per request | sync over v20.20.2 | async over v20.20.2 | sync CPU per request over v20.20.2 | ' +
    'async CPU per request over v20.20.2 |')
  t.equal(table.length, 5, 'head, rule and one row per version')
  const cells = (line) => line.slice(2, -2).split(' | ')
  const [v20, v24, v26] = table.slice(2).map(cells)
  t.same(v20.slice(0, 6), ['v20.20.2', '11.3.244.8-node.38', '1.46.0', 'end of life', '1,000 [970–1,030]', '1,000 [970–1,030]'])
  // Paired by round: the fixture's jitter hits both sides of a round alike, so a ratio's interval
  // may be a point.
  const ratio = (estimate, verdict) => new RegExp(`^${estimate.replace('.', '\\.')}× \\[\\d\\.\\d\\d–\\d\\.\\d\\d\\] ${verdict}$`)
  t.match(v20.slice(6), [ratio('1.00', 'the same within ±5%'), '400', '400', ratio('1.00', 'the same within ±5%'), '1', '1', '1', '1'])
  t.same(v24.slice(0, 6), ['v24.21.0', '13.6.233.17-node.53', '1.52.1', 'maintenance LTS', '2,000 [1,940–2,060]', '1,000 [970–1,030]'])
  t.match(v24.slice(6), [ratio('2.00', 'sync faster'), '200', '400', ratio('2.00', 'sync cheaper'),
    ratio('2.00', 'v24\\.21\\.0 faster'), ratio('1.00', 'the same within ±5%'), ratio('0.50', 'v24\\.21\\.0 cheaper'), ratio('1.00', 'the same within ±5%')])
  t.match(v26, ['v26.10.0', String, String, 'active LTS', /^2,100 /])
  t.match(md, '## nServers 2, nClients 2\n', 'a table for the multi-process cells too')
})

t.test('a verdict that differs between supported lines is reported as not holding, with each line\'s ratio', async (t) => {
  const { md, page } = render(t, { speeds: { 'v26.10.0': { sync: 500 } } })
  t.match(md, new RegExp('- sync over async in throughput \\(one process, nServers 1, nClients 2\\): ' +
    'not the same clear verdict on every supported line: v20\\.20\\.2 1\\.00× \\[[^\\]]+\\] the same within ±5%; ' +
    'v24\\.21\\.0 2\\.00× \\[[^\\]]+\\] sync faster; v26\\.10\\.0 0\\.50× \\[[^\\]]+\\] async faster\\n'))
  t.match(page, '<h2>Node versions</h2>')
  const rows = tableRows(page, 'versions')
  t.equal(rows.length, 4)
  t.same(rows.map((r) => r[0]), ['Node', 'v20.20.2', 'v24.21.0', 'v26.10.0'])
  t.match(rows[3][6], /^0\.50× \[.*\] async faster$/)
})

t.test('with one Node version there is no versions section and no versions.md', async (t) => {
  const { files, page, md } = render(t, { versions: ['v24.21.0'] })
  t.equal(md, null)
  t.notOk(files.includes('versions.md'))
  t.notMatch(page, 'Node versions</h2>')
})

t.test('cluster and reusePort sit side by side with shares, fairness and their ratio, per version', async (t) => {
  const { page } = render(t)
  const [head, ...rows] = tableRows(page, 'models')
  t.same(head, ['settings', 'store', 'nServers', 'nClients', 'cluster ops/s [95% CI]', 'cluster shares', 'fairness',
    'reusePort ops/s [95% CI]', 'reusePort shares', 'fairness', 'reusePort / cluster'])
  t.same(rows.map((r) => r[0]), ['runtime=node-v20.20.2', 'runtime=node-v24.21.0', 'runtime=node-v26.10.0'])
  t.same(rows[0].slice(1, 10), ['sync', '2', '2', '1,500 [1,455–1,545]', '0.50 / 0.50', '1.000', '–', '–', '–'], 'no reusePort on Node 20')
  t.same(rows[1].slice(7, 10), ['1,800 [1,746–1,854]', '0.80 / 0.20', '0.735'])
  t.match(rows[1][10], /^1\.20× \[1\.\d\d–1\.\d\d\] reusePort faster$/)
  t.match(page, /<table class="matrix"><thead><tr><th>comparison<\/th><th>cluster of 2 workers<\/th><th>2 reusePort processes<\/th><\/tr>/,
    'the matrix of process models puts them side by side')
})

t.test('Bun and Deno beside Node: runtimes.md and a Runtimes section, each runtime over Node, the pool against its rivals', async (t) => {
  const { files, page, md, runtimesMd } = render(t, { versions: RUNTIMES })
  t.ok(files.includes('runtimes.md') && md === null, 'runtimes.md, not versions.md')
  t.match(page, '<h2>Runtimes</h2>')
  t.match(runtimesMd, /^# Runtimes compared: 2026-11-23\n/)
  const table = (title) => runtimesMd.slice(runtimesMd.indexOf(`## ${title}`)).split('\n').filter((l) => l.startsWith('|')).slice(0, 99)
    .map((l) => l.slice(2, -2).split(' | '))
  const ratios = table('Throughput ratios within each runtime')
  t.same(ratios[0], ['comparison', 'Node v26.10.0', 'Bun 1.4.5', 'Deno 2.9.6'])
  const row = (name) => ratios.find((r) => r[0] === name)
  t.match(row('sync/async'), ['sync/async', /^2\.10× .* sync faster$/, /^3\.00× .* sync faster$/, /^1\.00× .* the same within ±5%$/])
  t.match(row('sync-pool/sync-cluster'), [String, /^0\.80× .* sync-cluster faster$/, /^0\.50× .* sync-cluster faster$/, /^1\.00× /])
  t.match(row('sync-pool/async'), [String, /^1\.20× .* sync-pool faster$/, /^2\.10× .* sync-pool faster$/, /^1\.50× .* sync-pool faster$/])
  const kinds = table('Each kind on each runtime')
  t.same(kinds[0], ['kind', 'Node v26.10.0', 'Bun 1.4.5', 'Deno 2.9.6'])
  const bunCluster = kinds.find((r) => r[0] === 'sync-cluster')[2]
  t.match(bunCluster, /^4,200 · \d+ µs · 2\.80× \[[\d.–]+\] Bun 1\.4\.5 faster$/, 'each runtime over Node at the same kind')
  t.match(runtimesMd, '| runtime | engine | libuv | Node line |')
  t.match(runtimesMd, '| Bun 1.4.5 | JavaScriptCore | – | – |')
  t.match(runtimesMd, '| Deno 2.9.6 | V8 15.0.245.2-rusty | – | – |')
})
