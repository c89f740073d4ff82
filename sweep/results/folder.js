'use strict'
// The results folder: its name, env.json, summary.csv appended one row at a time (so it is always
// a valid CSV), and the per-cell logs. A failed write throws one clear line (e.g. a full disk).

const fs = require('node:fs')
const path = require('node:path')
const { stringify } = require('csv-stringify/sync')

// csv-stringify writes booleans as 1 and '' by default.
const CSV_OPTIONS = { cast: { boolean: (b) => String(b) } }

function writing (file, write) {
  try {
    return write()
  } catch (err) {
    const why = err.code === 'ENOSPC' ? 'the disk is full (ENOSPC)' : err.message
    throw Object.assign(new Error(`cannot write ${file}: ${why}`), { code: err.code })
  }
}

/**
 * Creates a fresh results folder with its cells/ subfolder.
 * @param {string} parent folder that holds results folders
 * @param {string} command sweep, quick, run, peak
 * @param {Date} [now]
 * @returns {string} the folder, e.g. results/2026-11-22T12-30-05Z-quick
 */
function createResultsDir (parent, command, now = new Date()) {
  const stamp = now.toISOString().replace(/\.\d+Z$/, 'Z').replaceAll(':', '-')
  const dir = path.resolve(parent, `${stamp}-${command}`)
  writing(dir, () => {
    fs.mkdirSync(parent, { recursive: true })
    fs.mkdirSync(dir) // fails if it exists: a results folder is never reused
    fs.mkdirSync(path.join(dir, 'cells'))
  })
  return dir
}

/**
 * @param {string} file
 * @param {object} value
 */
function writeJson (file, value) {
  writing(file, () => fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n'))
}

/**
 * @param {string} file
 * @param {string} text
 */
function writeText (file, text) {
  writing(file, () => fs.writeFileSync(file, text))
}

/**
 * Writes summary.csv's header now and returns a function that appends one row.
 * @param {string} file
 * @param {string[]} columns
 * @returns {(row: object) => void}
 */
function createSummary (file, columns) {
  writing(file, () => fs.writeFileSync(file, stringify([columns], CSV_OPTIONS)))
  return (row) => writing(file, () => fs.appendFileSync(file, stringify([columns.map((c) => row[c] ?? '')], CSV_OPTIONS)))
}

/**
 * Opens a cell's log, shared by the sweep's notes and the children's stderr.
 * @param {string} file
 * @returns {{ path: string, fd: number, write(text: string): void, lastLine(): string, close(): void }}
 */
function openLog (file) {
  const fd = writing(file, () => fs.openSync(file, 'a'))
  return {
    path: file,
    fd,
    write: (text) => writing(file, () => fs.writeSync(fd, text)),
    lastLine: () => fs.readFileSync(file, 'utf8').trim().split('\n').filter((l) => !l.startsWith('# ')).pop() || 'no message',
    close: () => fs.closeSync(fd)
  }
}

module.exports = { createResultsDir, writeJson, writeText, createSummary, openLog }
