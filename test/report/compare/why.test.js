'use strict'
// compare A B's "Why" tables (report/compare/why.js) on the committed compare folders given profiles: each category's
// µs per request in A and B and B − A per cell profiled in both, matched across Node versions; nothing unless both have one.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { writeProfile } = require('../../fixtures/profile-folder')

const COMPARE = path.resolve(__dirname, '..', '..', '..', 'report', 'compare', 'compare.js')
const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'compare')
const A = 'sync-s1-c4'
const B = 'async-s1-c4'

// dir/before and dir/after, copies of the fixtures; after's ids carry the Node version when `node` is given.
function folders (t, { node } = {}) {
  const dir = t.testdir()
  for (const name of ['before', 'after']) fs.cpSync(path.join(FIXTURES, name), path.join(dir, name), { recursive: true })
  if (node) {
    const csv = path.join(dir, 'after', 'summary.csv')
    fs.writeFileSync(csv, fs.readFileSync(csv, 'utf8').replace(/^([a-z-]+-s\d+-c\d+)(-[AB])?,/gm, `$1-node-${node}$2,`))
  }
  return dir
}
// A profile in folder/profile whose a cell's app costs `scale` times the fixture's (40, 42, 38 µs per request).
function profile (folder, { suffix = '', scale = 1, mode } = {}) {
  const doc = writeProfile(folder, { a: A + suffix, b: B + suffix, mode })
  for (const r of doc.cells[A + suffix].rounds) r.categories.app *= scale
  fs.writeFileSync(path.join(folder, 'profile', 'profile.json'), JSON.stringify(doc))
}
const compare = (dir) => {
  const page = path.join(dir, 'compare.html')
  const run = spawnSync(process.execPath, [COMPARE, path.join(dir, 'before'), path.join(dir, 'after'), `--html=${page}`], { encoding: 'utf8' })
  return { ...run, html: fs.existsSync(page) ? fs.readFileSync(page, 'utf8') : '' }
}
// A cell's table in the Markdown: from its heading to the blank line after its rows.
const section = (markdown, cell) => {
  const start = markdown.indexOf(`### ${cell}\n`)
  if (start < 0) return ''
  const end = markdown.indexOf('\n\n', markdown.indexOf('|', start))
  return markdown.slice(start, end < 0 ? undefined : end)
}

t.test('both folders profiled: per cell, each category in A, in B and B − A', async (t) => {
  const dir = folders(t)
  profile(path.join(dir, 'before'))
  profile(path.join(dir, 'after'), { scale: 1.5 })
  const { status, stdout, stderr, html } = compare(dir)
  t.equal(status, 0, stderr)
  t.match(stdout, '## Why: µs per request by category (2 cells profiled in both)')
  t.match(stdout, 'Both profiled with perf.')
  const sync = section(stdout, A)
  t.match(sync, '| app | 40 | 60 | +20 |', 'a category that changed')
  t.match(sync, '| http | 30 | 30 | 0 |', 'one that did not')
  t.match(sync, '| fs | 20 | 20 | 0 |')
  t.match(sync, '| sampled | 108 | 128 | +20 |', 'the categories summed')
  t.notMatch(sync, '| pool |', 'a category neither folder shows is left out')
  t.match(section(stdout, B), '| pool | 22 | 22 | 0 |')
  t.ok(stdout.indexOf('## Why') > stdout.indexOf('## Shared cells'), 'after the shared cells')
  t.match(html, /<h3>sync-s1-c4<\/h3><table class="why">/)
  t.match(html, /<tr><td title="the app&#39;s own work">app<\/td><td>40<\/td><td>60<\/td><td>\+20<\/td><\/tr>/)
})

t.test('a folder made with --node matches its profiled cells by their settings', async (t) => {
  const dir = folders(t, { node: 'v22.23.3' })
  profile(path.join(dir, 'before'))
  profile(path.join(dir, 'after'), { suffix: '-node-v22.23.3', scale: 0.5 })
  const { status, stdout, stderr } = compare(dir)
  t.equal(status, 0, stderr)
  t.match(section(stdout, A), '| app | 40 | 20 | −20 |')
})

t.test('profiled with different tools, the tables say their categories do not compare', async (t) => {
  const dir = folders(t)
  profile(path.join(dir, 'before'))
  profile(path.join(dir, 'after'), { mode: 'v8' })
  t.match(compare(dir).stdout, 'A was profiled with perf, B with v8: V8\'s profiler sees neither the thread pool nor the kernel')
})

t.test('no why table when either folder lacks a profile', async (t) => {
  for (const side of ['before', 'after']) {
    const dir = folders(t)
    profile(path.join(dir, side))
    const { status, stdout, html } = compare(dir)
    t.equal(status, 0)
    t.match(stdout, '## Shared cells (4)', 'the rest is there')
    t.notMatch(stdout, '## Why', `only ${side} profiled: no why table`)
    t.notMatch(html, 'Why:')
  }
})

t.test('a profile of a newer format stops compare with one line', async (t) => {
  const dir = folders(t)
  profile(path.join(dir, 'before'))
  writeProfile(path.join(dir, 'after'), { a: A, b: B, format: 2 })
  const { status, stderr } = compare(dir)
  t.equal(status, 2)
  t.match(stderr, /^compare: .*after is not a results folder: .*profile\.json: profile format 2 is newer than this checkout reads/)
  t.equal(stderr.trim().split('\n').length, 1)
})
