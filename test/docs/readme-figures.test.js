'use strict'
// README's verdict figures against the results folders its sections link: every "1.23× [1.20–1.26]" of a section is a
// comparison of a verdicts.json or capacity.json in one of the docs/ folders that section names, rounded as written.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { ROOT } = require('../../lib/config')

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
// Measured before the project kept its folders: their figures are in bench/RESULTS.md and docs/RESULTS.md only.
const WITHOUT_FOLDER = ['Real storage', 'Past one machine']

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
    for (const [e, l, h] of triples(text)) {
      t.ok(found.some((c) => near(e, c.estimate) && near(l, c.low) && near(h, c.high)), `${e}× [${l}–${h}] is in ${folders.join(', ')}`)
    }
  })
}
