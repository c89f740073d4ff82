'use strict'
// README's figures against the results folders its sections link: every "1.23× [1.20–1.26]" of a section is a
// comparison of a verdicts.json or capacity.json in one of the docs/ folders that section names, rounded as written,
// or written so in that folder's storage.md (delay/real) or runtimes.md;
// the current answer's table of ops/s and capacities is its folders' medians and estimates.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { parse } = require('csv-parse/sync')
const { ROOT } = require('../../lib/config')

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
// Measured before the project kept its folders: their figures are in bench/RESULTS.md and docs/RESULTS.md only.
const WITHOUT_FOLDER = ['Past one machine']

const sections = readme.split(/^## /m).slice(1).map((text) => ({ title: text.split('\n')[0], text }))
const triples = (text) => [...text.matchAll(/(\d+\.\d\d)× \[(\d+\.\d\d)–(\d+\.\d\d)\]/g)].map((m) => m.slice(1, 4).map(Number))
const comparisons = (folder) => ['verdicts.json', 'capacity.json'].map((f) => path.join(ROOT, 'docs', folder, f)).filter((f) => fs.existsSync(f))
  .flatMap((f) => JSON.parse(fs.readFileSync(f, 'utf8')).comparisons ?? [])
const near = (written, value) => Math.abs(written - value) <= 0.005 + 1e-9

for (const { title, text } of sections.filter((s) => triples(s.text).length > 0)) {
  t.test(title, async (t) => {
    if (WITHOUT_FOLDER.some((w) => title.startsWith(w))) return t.skip('measured before its folder was kept (docs/RESULTS.md)')
    const folders = [...new Set([...text.matchAll(/\]\(docs\/([\w.-]+)\//g)].map((m) => m[1]))]
    t.ok(folders.length > 0, 'it links its results folders')
    const found = folders.flatMap(comparisons)
    const written = folders.flatMap((f) => ['storage.md', 'runtimes.md'].map((m) => path.join(ROOT, 'docs', f, m)))
      .filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f, 'utf8')).join('\n')
    for (const [e, l, h] of triples(text)) {
      const text = `${e.toFixed(2)}× [${l.toFixed(2)}–${h.toFixed(2)}]`
      t.ok(found.some((c) => near(e, c.estimate) && near(l, c.low) && near(h, c.high)) || written.includes(text), `${text} is in ${folders.join(', ')}`)
    }
  })
}

t.test('the current answer\'s table: each ops/s the median of its cell in the sweep folder, each capacity its cell\'s in capacity.json', async (t) => {
  const section = sections.find((s) => s.title.startsWith('The current answer')).text
  const [sweep, capacity] = ['sweep', 'capacity'].map((name) => new RegExp(`\\]\\(docs\\/(${name}-[\\w.-]+)\\/`).exec(section)[1])
  const medians = Object.fromEntries(parse(fs.readFileSync(path.join(ROOT, 'docs', sweep, 'cells.csv')), { columns: true })
    .map((c) => [c.cell, Number(c.opsPerSecMedian)]))
  const capacities = Object.fromEntries(JSON.parse(fs.readFileSync(path.join(ROOT, 'docs', capacity, 'capacity.json'), 'utf8')).cells
    .map((c) => [c.cell, c.capacity?.estimate]))
  const rows = section.split('\n').filter((line) => /^\| (a?sync)/.test(line))
  t.ok(rows.length >= 4, `${rows.length} rows`)
  for (const line of rows) {
    const [label, ...cells] = line.split('|').slice(1, -1).map((c) => c.trim())
    const kind = label.split(' ')[0]
    const id = (source, storage) => Object.keys(source).find((c) => new RegExp(`^${kind}-s\\d+-c2-${storage}-node-v[\\d.]+$`).test(c))
    const expected = [[medians, 'doff'], [medians, 'd1000'], [capacities, 'doff'], [capacities, 'd1000']].map(([source, storage]) => {
      const value = source[id(source, storage)]
      return Number.isFinite(value) ? Math.round(value) : null
    })
    const written = cells.map((c) => (c === '–' ? null : Number(c.replace(/^at least /, '').replaceAll(',', ''))))
    t.same(written, expected, `${label}: ops/s and capacity, page cache and 1 ms storage`)
  }
})

t.test('the Why table: each figure the median over its cell\'s profiled rounds in profile.json, per request', async (t) => {
  const section = sections.find((s) => s.title.startsWith('Why')).text
  const folders = { 20: /\[Node 20\]\(docs\/([\w.-]+)\//.exec(section)[1], 26: /\[Node 26\]\(docs\/([\w.-]+)\//.exec(section)[1] }
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 }
  const groups = [['app', 'express', 'http', 'fs', 'callbacks'], ['gc'], ['engine'], ['pool'], ['kernel-wake'], ['kernel-net', 'kernel-fs', 'kernel-other']]
  // As the README rounds: two significant figures under 10 (3.0, 6.6), whole numbers above.
  const shown = (x) => (x < 10 ? x.toFixed(1).replace(/^0\.0$/, '0') : String(Math.round(x)))
  const rows = section.split('\n').filter((line) => /^\| a?sync, plain folder, Node \d+/.test(line))
  t.equal(rows.length, 4)
  for (const line of rows) {
    const [label, ...cells] = line.split('|').slice(1, -1).map((c) => c.trim())
    const [, kind, major] = /^(a?sync), plain folder, Node (\d+)/.exec(label)
    const doc = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs', folders[major], 'profile', 'profile.json'), 'utf8'))
    const [, cell] = Object.entries(doc.cells).find(([id]) => new RegExp(`^${kind}-s1-c2-doff(-node-v[\\d.]+)?$`).test(id))
    const rounds = cell.rounds.filter((r) => r.requests > 0 && !r.problem)
    const per = (f) => shown(median(rounds.map((r) => f(r) / r.requests)))
    const expected = [...groups.map((g) => per((r) => g.reduce((a, k) => a + (r.categories[k] ?? 0), 0))),
      per((r) => r.sampledUs), per((r) => r.serverCpuUs), per((r) => r.waits.sleeps)]
    t.same(cells, expected, label)
  }
})
