'use strict'
// Reading a results folder's profile/ (report/data/profile.js): none, a profile with its folded stacks, a missing
// folded file, and the layouts it refuses.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { readProfile } = require('../../../report/data/profile')
const { writeProfile, FOLDED } = require('../../fixtures/profile-folder')

const CELLS = { a: 'sync-s1-c2', b: 'async-s1-c2' }
const profileJson = (dir) => path.join(dir, 'profile', 'profile.json')
const rewrite = (dir, change) => {
  const doc = JSON.parse(fs.readFileSync(profileJson(dir), 'utf8'))
  change(doc)
  fs.writeFileSync(profileJson(dir), JSON.stringify(doc))
}

t.test('a folder without profile/profile.json has no profile', async (t) => {
  t.equal(readProfile(t.testdir({ 'env.json': '{}' })), null)
  t.equal(readProfile(t.testdir({ profile: { 'sync-s1-c2.folded': 'a;b 1\n' } })), null, 'folded stacks alone are not a profile')
})

t.test('a profile is the parsed document with a reader of each cell\'s folded stacks', async (t) => {
  const dir = t.testdir()
  const written = writeProfile(dir, CELLS)
  const profile = readProfile(dir)
  t.equal(profile.mode, 'perf')
  t.same(profile.categories, written.categories)
  t.same(Object.keys(profile.cells), ['sync-s1-c2', 'async-s1-c2'])
  t.equal(profile.cells['sync-s1-c2'].rounds[1].requests, 1000)
  t.equal(profile.readFolded('sync-s1-c2'), FOLDED.a)
  t.equal(profile.readFolded('async-s1-c2'), FOLDED.b)
  t.equal(profile.readFolded('sync-s1-c4'), null, 'a cell without a profile')
  t.equal(profile.readFolded('toString'), null, 'an inherited property is no cell')
})

t.test('a cell whose folded file is missing, or named outside the folder, reads as null', async (t) => {
  const top = t.testdir({ run: { 'other.folded': 'x 1\n' }, 'outside.folded': 'y 1\n' })
  const dir = path.join(top, 'run')
  writeProfile(dir, { ...CELLS, folded: false })
  t.equal(readProfile(dir).readFolded('sync-s1-c2'), null)
  rewrite(dir, (doc) => { doc.cells['sync-s1-c2'].folded = 'other.folded' })
  t.equal(readProfile(dir).readFolded('sync-s1-c2'), 'x 1\n', 'a file the document names inside the folder is read')
  rewrite(dir, (doc) => { doc.cells['sync-s1-c2'].folded = '../outside.folded' })
  t.equal(readProfile(dir).readFolded('sync-s1-c2'), null, 'one outside it is not')
})

t.test('a format newer than this checkout is refused with one line naming the file', async (t) => {
  const dir = t.testdir()
  writeProfile(dir, { ...CELLS, format: 2 })
  t.throws(() => readProfile(dir), { message: `${profileJson(dir)}: profile format 2 is newer than this checkout reads (1-1): update the checkout` })
})

t.test('a malformed profile.json is refused with the field it got wrong', async (t) => {
  const dir = t.testdir()
  writeProfile(dir, CELLS)
  const cases = [
    [(doc) => { delete doc.format }, /profile format undefined is not one this checkout reads/],
    [(doc) => { doc.mode = 'dtrace' }, /mode must be one of perf, v8, got "dtrace"/],
    [(doc) => { doc.categories = 'app' }, /categories must be a list/],
    [(doc) => { doc.cells = [] }, /cells must be an object of cell ids/],
    [(doc) => { doc.cells['../x'] = doc.cells['sync-s1-c2'] }, /a cell id must be letters.*got "\.\.\/x"/],
    [(doc) => { doc.cells['sync-s1-c2'].rounds[0].requests = -1 }, /cells\.sync-s1-c2\.rounds: requests must be a number >= 0, got -1/]
  ]
  const good = fs.readFileSync(profileJson(dir), 'utf8')
  for (const [change, message] of cases) {
    fs.writeFileSync(profileJson(dir), good)
    rewrite(dir, change)
    t.throws(() => readProfile(dir), { message }, String(message))
  }
  fs.writeFileSync(profileJson(dir), '{ "format": 1,')
  t.throws(() => readProfile(dir), { message: new RegExp(`^${profileJson(dir).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `) })
})
