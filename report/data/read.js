'use strict'
// Reads a results folder (env.json, summary.csv, cells/*.json) into typed rows.
// Used by report/index.js; the folder layout is the contract with the sweep.

const fs = require('node:fs')
const path = require('node:path')
const { parse } = require('csv-parse/sync')
const { KIND_NAMES: KINDS, KINDS: KIND_MODELS } = require('../../lib/kinds')
const { runtimeLabel } = require('../../lib/install/runtime-specs')
const { SUMMARY, TEXT_COLUMNS: DIMENSION_TEXT, RESULTS_FORMAT, OLDEST_FORMAT } = require('../../lib/results/dimensions')

// Columns each summary.csv format must have (sweep and capacity: lib/results/dimensions.js SUMMARY); later
// columns may be appended and are kept as text.
const fromSummary = ({ columns, required, variants, load }) => ({ columns: required, optional: columns.filter((c) => !required.includes(c)), variants, load })
const FORMATS = {
  sweep: fromSummary(SUMMARY.sweep),
  capacity: fromSummary(SUMMARY.capacity),
  peak: {
    columns: ['cell', 'repeat', 'order', 'kind', 'nServers', 'op', 'connections', 'duration',
      'pipelining', 'valid', 'reason', 'reqPerSec', 'latencyMeanMs', 'latencyP99Ms', 'errors',
      'non2xx'],
    optional: ['node', 'v8', 'uv'],
    load: 'connections',
    variants: ['duration', 'pipelining', 'node']
  }
}
// readsPerWrite may be inf; op is GET and PUT (or POST, the method of /put)
const TEXT_COLUMNS = new Set([...DIMENSION_TEXT, 'cell', 'reason', 'json', 'op', 'variant', 'workerShares', 'v8', 'uv',
  'serverCpus', 'clientCpus', 'hosts', 'rttMethod', 'limit', 'serverHost', 'clientHosts', 'listenMechanism', 'node'])
const FLAG_COLUMNS = new Set(['oversubscribed', 'valid', 'clientBound'])
const MAYBE_FLAG_COLUMNS = new Set(['clientBound']) // empty when the sweep could not tell

/**
 * Reads a results folder.
 * @param {string} dir the results folder
 * @returns {{ dir: string, env: object, format: 'sweep'|'peak'|'capacity', load: string, variants: string[],
 *   columns: string[], rows: object[], passes: object[], windows: object[], roundLog: object[], probes: object[],
 *   readCellJson: (row: object) => object|null }} readCellJson: null when the folder has no cells/
 */
function readResults (dir) {
  const env = readJson(path.join(dir, 'env.json'))
  checkFormat(env, path.join(dir, 'env.json'))
  const file = path.join(dir, 'summary.csv')
  const { columns, records } = readCsv(file)
  const missing = (name) => FORMATS[name].columns.filter((c) => !columns.includes(c))
  const [format] = Object.keys(FORMATS).sort((a, b) => missing(a).length - missing(b).length)
  if (missing(format).length > 0) {
    throw new Error(`${file}: the header is neither a sweep, a peak nor a capacity summary ` +
      `(as a ${format} summary it lacks ${missing(format).join(', ')})`)
  }
  const rows = typeRows(format, columns, records, (i) => `${file} line ${i + 2}`, env.cpus)
  const { load, variants } = FORMATS[format]
  // The runtimes the servers ran (the runtime column; older folders: the node column, else the sweep's own Node).
  for (const row of rows) if (row.runtime == null && format !== 'peak') row.runtime = row.node ? `node-${row.node}` : null
  const served = [...new Set(rows.map((r) => r.runtime ?? (r.node && `node-${r.node}`)).filter(Boolean))]
  env.serverRuntimes = served.length > 0 ? served : [`node-${env.node}`]
  // How each multi-process kind's processes shared the port on each runtime, as the sweep saw it in /proc (lib/machine/listeners.js).
  const multi = rows.filter((r) => r.listenMechanism && KINDS.includes(r.kind) && !['single', 'pool'].includes(KIND_MODELS[r.kind].model))
  env.portSharing = [...new Set(multi.map((r) => `${r.kind} on ${runtimeLabel(r.runtime)}: ${r.listenMechanism}`))]
  // A folder kept without its cells/ (docs/ keeps only what the report quotes) has no cell JSON.
  const cellsKept = fs.existsSync(path.join(dir, 'cells'))
  return { dir, env, format, load, variants, columns, rows, ...readRecords(dir),
    readCellJson: (row) => (cellsKept ? readJson(path.join(dir, row.json)) : null) }
}

// Each record's text typed by its column; the optional columns a record lacks are null ('' for variant).
function typeRows (format, columns, records, where, cpus) {
  const { optional } = FORMATS[format]
  const known = new Set([...FORMATS[format].columns, ...optional])
  return records.map((record, i) => {
    const row = Object.fromEntries(optional.map((name) => [name, name === 'variant' ? '' : null]))
    columns.forEach((name, j) => {
      row[name] = known.has(name) ? typeValue(name, record[j], where(i)) : record[j]
    })
    if (row.oversubscribed === undefined) row.oversubscribed = row.nServers > cpus
    return row
  })
}

/**
 * The rows an interleaved run has written so far, as readResults gives them from summary.csv, without a
 * detour through text: the sweep asks after every round how precise its comparisons are (report/stats/precision.js).
 * Each value keeps its type; only the form differs where summary.csv's would: a text column's value is a string,
 * a missing value null ('' in a text column).
 * @param {object[]} rows summary rows as sweep/cell/cell.js rowOf makes them
 * @returns {{ format: 'sweep', load: string, variants: string[], columns: string[], rows: object[] }}
 */
function runRows (rows) {
  const { columns } = SUMMARY.sweep
  const { load, variants, optional } = FORMATS.sweep
  const missing = (name) => (TEXT_COLUMNS.has(name) ? '' : null)
  return {
    format: 'sweep',
    load,
    variants,
    columns,
    rows: rows.map((row) => Object.fromEntries([...new Set([...optional, ...columns])].map((name) => {
      const value = row[name]
      if (value === undefined || value === null || value === '') return [name, name === 'variant' ? '' : columns.includes(name) ? missing(name) : null]
      return [name, TEXT_COLUMNS.has(name) ? String(value) : value]
    })))
  }
}

// A folder of a layout this checkout does not know is refused before anything in it is read.
function checkFormat (env, file) {
  const format = env.format ?? OLDEST_FORMAT
  const known = `${OLDEST_FORMAT}-${RESULTS_FORMAT}`
  if (!Number.isInteger(format) || format < OLDEST_FORMAT) {
    throw new Error(`${file}: results format ${JSON.stringify(format)} is not one this checkout reads (${known})`)
  }
  if (format > RESULTS_FORMAT) throw new Error(`${file}: results format ${format} is newer than this checkout reads (${known}): update the checkout`)
}

// The interleaved run's records (sweep/interleaved/rounds.js) and a capacity run's probes (sweep/capacity/run.js),
// typed; empty lists in other folders.
const RECORDS = { passes: 'passes.csv', windows: 'windows.csv', roundLog: 'rounds.csv', probes: 'capacity.csv' }
const RECORD_TEXT = new Set(['startedAt', 'cell', 'precision', 'stage', 'cause', 'reason', 'windowP50s', 'windowsOver'])

function readRecords (dir) {
  const out = {}
  for (const [name, file] of Object.entries(RECORDS)) {
    const full = path.join(dir, file)
    if (!fs.existsSync(full)) {
      out[name] = []
      continue
    }
    const { columns, records } = readCsv(full)
    out[name] = records.map((record) => Object.fromEntries(columns.map((c, j) => {
      const text = record[j]
      if (RECORD_TEXT.has(c)) return [c, text]
      if (text === 'true' || text === 'false') return [c, text === 'true']
      return [c, text === '' ? null : Number(text)]
    })))
  }
  return out
}

function readJson (file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    throw new Error(`${file}: ${err.message}`, { cause: err })
  }
}

function readCsv (file) {
  let table
  try {
    table = parse(fs.readFileSync(file, 'utf8'), { skip_empty_lines: true })
  } catch (err) {
    throw new Error(`${file}: ${err.message}`, { cause: err })
  }
  if (table.length === 0) throw new Error(`${file}: the file is empty, expected a header row`)
  const [columns, ...records] = table
  return { columns, records }
}

function typeValue (name, text, where) {
  if (TEXT_COLUMNS.has(name)) return text
  if (name === 'kind') { // chart file names are built from kinds: only known ones pass
    if (!KINDS.includes(text)) throw new Error(`${where}: kind must be one of ${KINDS.join(', ')}, got "${text}"`)
    return text
  }
  if (FLAG_COLUMNS.has(name)) {
    if (text === '' && MAYBE_FLAG_COLUMNS.has(name)) return null
    if (text !== 'true' && text !== 'false') {
      throw new Error(`${where}: ${name} must be true or false, got "${text}"`)
    }
    return text === 'true'
  }
  if (text === '') return null
  const value = Number(text)
  if (Number.isNaN(value)) throw new Error(`${where}: ${name} must be a number, got "${text}"`)
  return value
}

module.exports = { readResults, runRows, KINDS }
