'use strict'
// Reads what a run with --profile left in its results folder: profile/profile.json (categories of server
// time per cell and round) and each cell's folded stacks. Used by report/index.js and report/compare/.

const fs = require('node:fs')
const path = require('node:path')
const { PROFILE_FORMAT } = require('../../lib/results/dimensions') // the newest profile.json layout this checkout reads

const MODES = ['perf', 'v8']
// Cell ids name files (profile/<cellId>.html): nothing that could leave the folder.
const CELL_ID = /^[A-Za-z0-9][\w.-]*$/

/**
 * Reads a results folder's profile.
 * @param {string} dir the results folder
 * @returns {object|null} null when the folder has no profile/profile.json; else the document (format, mode,
 *   note, perfHz, v8IntervalUs, rounds, categories, cells) with `readFolded(cellId)`: the cell's folded stacks as
 *   text, or null when the cell or its file is missing
 * @throws {Error} naming the file when profile.json is malformed or of a format newer than this checkout reads
 */
function readProfile (dir) {
  const file = path.join(dir, 'profile', 'profile.json')
  if (!fs.existsSync(file)) return null
  let doc
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    throw new Error(`${file}: ${err.message}`, { cause: err })
  }
  checkProfile(doc, file)
  const root = path.resolve(dir)
  return {
    ...doc,
    readFolded (cellId) {
      const cell = Object.hasOwn(doc.cells, cellId) ? doc.cells[cellId] : null
      if (!cell) return null
      const folded = path.resolve(root, cell.folded ?? path.join('profile', `${cellId}.folded`))
      if (!folded.startsWith(root + path.sep) || !fs.existsSync(folded)) return null
      return fs.readFileSync(folded, 'utf8')
    }
  }
}

// The fields the report reads, checked once: a layout it would misread is refused with the field named.
function checkProfile (doc, file) {
  const format = doc?.format
  if (!Number.isInteger(format) || format < 1) {
    throw new Error(`${file}: profile format ${JSON.stringify(format)} is not one this checkout reads (1-${PROFILE_FORMAT})`)
  }
  if (format > PROFILE_FORMAT) {
    throw new Error(`${file}: profile format ${format} is newer than this checkout reads (1-${PROFILE_FORMAT}): update the checkout`)
  }
  const fail = (what, got) => { throw new Error(`${file}: ${what}, got ${JSON.stringify(got)}`) }
  if (!MODES.includes(doc.mode)) fail(`mode must be one of ${MODES.join(', ')}`, doc.mode)
  if (!Array.isArray(doc.categories) || !doc.categories.every((c) => typeof c?.id === 'string')) {
    fail('categories must be a list of { id, label, what }', doc.categories)
  }
  if (!doc.cells || typeof doc.cells !== 'object' || Array.isArray(doc.cells)) fail('cells must be an object of cell ids', doc.cells)
  for (const [id, cell] of Object.entries(doc.cells)) {
    if (!CELL_ID.test(id)) fail('a cell id must be letters, digits, ".", "_" and "-"', id)
    if (!Array.isArray(cell?.rounds)) fail(`cells.${id}.rounds must be a list`, cell?.rounds)
    for (const r of cell.rounds) {
      if (!Number.isFinite(r?.requests) || r.requests < 0) fail(`cells.${id}.rounds: requests must be a number >= 0`, r?.requests)
    }
  }
}

module.exports = { readProfile }
