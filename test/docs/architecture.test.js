'use strict'
// docs/ARCHITECTURE.md's table of rooms against the code: every require of every source file goes
// where its room's row allows; no circle of files; no room of lib/, report/ or sweep/ holds more than 15
// files; test/ mirrors the source rooms; and the page's greps print nothing.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { execSync } = require('node:child_process')
const { ROOT } = require('../../lib/config')

const page = fs.readFileSync(path.join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8')
const SOURCE = ['lib', 'client', 'storage', 'network', 'balancer', 'profile', 'servers', 'report', 'sweep']
const ROOMED = ['lib', 'report', 'sweep'] // their sub-folders are rooms of their own

// Every .js file under the source rooms, as a path from the root.
function sourceFiles (dir = '') {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name)
    if (e.isDirectory()) return e.name === 'build' ? [] : sourceFiles(rel)
    return e.name.endsWith('.js') ? [rel] : []
  })
}
const files = SOURCE.flatMap((room) => sourceFiles(room))

// A file's room: report/stats, sweep/ (the top of sweep), servers (all of it), lib.
function roomOf (file) {
  const [top, second, third] = file.split('/')
  if (ROOMED.includes(top)) return third === undefined ? `${top}/` : `${top}/${second}`
  return top
}

// The files a file requires, from the root (relative requires only: node's modules and packages aside).
function requiresOf (file) {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8')
  return [...text.matchAll(/require\('(\.{1,2}(?:\/[^']*)?)'\)/g)].map(([, spec]) => {
    const base = path.join(path.dirname(file), spec)
    return [base, `${base}.js`, path.join(base, 'index.js')].find((c) => fs.existsSync(path.join(ROOT, c)) && fs.statSync(path.join(ROOT, c)).isFile())
  })
}

// A room as the table names it: `lib/` is lib, `report/` the top of report (its index.js), `report/stats/` report/stats.
const tableRoom = (name) => (ROOMED.includes(name.replace(/\/$/, '')) ? `${name.replace(/\/$/, '')}/` : name.replace(/\/$/, ''))

// The table: | `room` | what it holds | may require |, the last cell "nothing" or a comma list of rooms.
function allowed () {
  const rows = page.split('\n').filter((line) => /^\| `[a-z/]+`/.test(line))
  return new Map(rows.map((line) => {
    const cells = line.slice(1, -1).split(' | ').map((c) => c.trim())
    const may = cells[cells.length - 1]
    return [tableRoom(/`([a-z/]+)`/.exec(cells[0])[1]), may === 'nothing' ? [] : may.split(', ').map(tableRoom)]
  }))
}

t.test('every source file\'s room has a row, and every require goes where that row allows', async (t) => {
  const table = allowed()
  const rooms = [...new Set(files.map(roomOf))]
  t.same(rooms.filter((r) => !table.has(r)), [], 'a row for every room')
  t.same([...table.keys()].filter((r) => !rooms.includes(r)), [], 'no row for a room that is not there')
  const stray = []
  for (const file of files) {
    const from = roomOf(file)
    for (const target of requiresOf(file)) {
      if (target === undefined) continue // a path that is text, not a file (a comment's example)
      const to = roomOf(target)
      const may = table.get(from) ?? []
      // "lib" in a row outside lib is every room of lib; inside, lib/ is its top.
      const anyLib = !from.startsWith('lib') && may.includes('lib/') && to.startsWith('lib')
      const ok = to === from || may.includes(to) || anyLib || (may.includes('every room of sweep') && to.startsWith('sweep/'))
      if (!ok) stray.push(`${file} -> ${target}`)
    }
  }
  t.same(stray, [], 'no require the table does not allow')
})

t.test('no circle of files: requires point one way', async (t) => {
  const graph = new Map(files.map((f) => [f, requiresOf(f).filter(Boolean)]))
  const state = new Map() // 1 visiting, 2 done
  const circles = []
  const visit = (f, trail) => {
    if (state.get(f) === 2) return
    if (state.get(f) === 1) return circles.push([...trail.slice(trail.indexOf(f)), f].join(' -> '))
    state.set(f, 1)
    for (const next of graph.get(f) ?? []) visit(next, [...trail, f])
    state.set(f, 2)
  }
  for (const f of files) visit(f, [])
  t.same(circles, [])
})

t.test('no room of lib/, report/ or sweep/ holds more than 15 files at its top level', async (t) => {
  for (const top of ROOMED) {
    for (const dir of [top, ...fs.readdirSync(path.join(ROOT, top), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `${top}/${e.name}`)]) {
      const count = fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isFile()).length
      t.ok(count <= 15, `${dir}: ${count} files`)
    }
  }
})

t.test('test/ mirrors the source rooms: every test folder is a source folder, docs or bench', async (t) => {
  // fixtures/ (helpers) and tools/ (the groups, their runner, the flake finder) hold no tests.
  const folders = (dir) => fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !['fixtures', 'tools'].includes(e.name))
    .flatMap((e) => [`${dir}/${e.name}`, ...folders(`${dir}/${e.name}`)])
  const unmatched = folders('test').map((f) => f.slice('test/'.length))
    .filter((f) => !fs.existsSync(path.join(ROOT, f)) || !fs.statSync(path.join(ROOT, f)).isDirectory())
  t.same(unmatched, [], 'each test folder names a folder of the project')
  t.same(fs.readdirSync(path.join(ROOT, 'test')).filter((f) => f.endsWith('.js')), [], 'no test file at the top of test/')
})

t.test('the page\'s greps print nothing', async (t) => {
  const block = /```sh\n([^]*?)```/.exec(page.slice(page.indexOf('plain grep')))[1]
  const greps = block.split('\n').filter((line) => line.startsWith('grep ')).map((line) => line.replace(/\s+#.*$/, ''))
  t.ok(greps.length >= 5, `${greps.length} greps`)
  for (const command of greps) {
    let out = ''
    try {
      out = execSync(command, { cwd: ROOT, encoding: 'utf8' })
    } catch (err) {
      out = err.status === 1 ? '' : `${err.message}` // grep exits 1 when it finds nothing
    }
    t.equal(out, '', command)
  }
})
