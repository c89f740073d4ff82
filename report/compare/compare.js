'use strict'
// Compares two results folders (before/after a change, two machines, two Node versions): their
// environment differences, and per shared cell the ratio B/A of ops/s and of GET and PUT p99.
// Run: ./run_benchmark.sh compare A B [--html=FILE] [--fail-on=slower [--watch=CELL|COMPARISON ...]]
// (or node report/compare/compare.js A B ...): with --fail-on, a gate for CI.

const fs = require('node:fs')
const path = require('node:path')
const { readResults } = require('../data/read')
const { groupCells } = require('../data/cells')
const { MARGIN, judge } = require('../stats/intervals')
const { formatRatio } = require('../stats/verdicts')
const { unpairedRatio } = require('../stats/unpaired')
const { comparisons, METRICS } = require('../stats/comparisons')
const { compareMarkdown, compareHtml } = require('./format')
const { profiledCells, whyCompare } = require('./why')
const { machineDifference } = require('./machine')
const { readModelFolder, modelInputs, measuredPairs, predict } = require('./model')
const { readProfile } = require('../data/profile')
const { ENV } = require('../../lib/results/dimensions')

// What a figure is called, and which way is better; and the metric of the headline verdicts.
const FIGURES = [{ column: 'opsPerSec', name: 'ops/s', better: 'higher' },
  { column: 'getP99', name: 'GET p99', better: 'lower' },
  { column: 'putP99', name: 'PUT p99', better: 'lower' }]
const FORMATS = {
  sweep: { figures: FIGURES, metric: 'opsPerSec', verdictsFile: 'verdicts.json' },
  capacity: {
    figures: [{ column: 'capacity', name: 'capacity req/s', better: 'higher' },
      { column: 'closedOpsPerSec', name: 'closed-loop ops/s', better: 'higher' }],
    metric: 'capacity', verdictsFile: 'capacity.json'
  }
}
const NODE_SUFFIX = /-(node|bun|deno)-[^-]+(?=-[AB]$|$)/ // sweep/plan/grid.js cellId: the runtime comes last, before an A/A label
// The shell's values of the dimensions that reach a server in its environment are in env.json too.
const ENV_FIELDS = ['node', 'serverRuntimes', 'cpus', 'cpuModel', 'totalMemBytes', 'platform', 'release', ...Object.keys(ENV),
  'command', 'argv', 'gitCommit', 'gitDirty']
const FAMILY_CONFIDENCE = 0.95

class CompareError extends Error {}

function readFolder (dir) {
  let results, profile
  try {
    results = readResults(dir)
    profile = readProfile(dir)
  } catch (err) {
    throw new CompareError(`${dir} is not a results folder: ${err.message}`)
  }
  if (!FORMATS[results.format]) throw new CompareError(`${dir} is a ${results.format} folder: compare reads sweep, quick, run and capacity folders`)
  // A folder whose servers ran one Node is matched without the version in its cell ids, so that
  // two folders made on two versions compare cell by cell (the versions are an environment difference).
  const rename = (id) => (results.env.serverRuntimes.length === 1 ? id.replace(NODE_SUFFIX, '') : id)
  const cells = groupCells(results).map((c) => ({ ...c, id: rename(c.id) }))
  const format = FORMATS[results.format]
  return { dir, name: path.basename(path.resolve(dir)), env: results.env, format: results.format, cells: cells.filter((c) => !c.aa),
    verdicts: verdictsOf(dir, cells, format), profiled: profiledCells(profile, rename) }
}

// The folder's verdicts: verdicts.json (capacity.json) where the report wrote one, else made the same way.
function verdictsOf (dir, cells, format) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, format.verdictsFile), 'utf8')).comparisons
  } catch {
    return comparisons(cells, { metrics: [format.metric] }).map(({ ratio, cells, ...entry }) => entry)
  }
}

// The fields of env.json that differ, config and package versions key by key.
function envDifferences (a, b) {
  const text = (v) => (v === undefined || v === null ? '–' : typeof v === 'object' ? JSON.stringify(v) : String(v))
  const fields = [...ENV_FIELDS.map((f) => [f, a[f], b[f]]),
    ...[...new Set([...Object.keys(a.config ?? {}), ...Object.keys(b.config ?? {})])].filter((k) => k !== 'dataPath')
      .map((k) => [`config.${k}`, a.config?.[k], b.config?.[k]]),
    ...[...new Set([...Object.keys(a.packages ?? {}), ...Object.keys(b.packages ?? {})])]
      .map((k) => [`packages.${k}`, a.packages?.[k], b.packages?.[k]])]
  return fields.map(([field, x, y]) => ({ field, a: text(x), b: text(y) })).filter((d) => d.a !== d.b)
}

/**
 * Compares two sweep folders cell by cell, and their verdicts side by side. Each ratio B/A is
 * unpaired (the folders' rounds do not match): Hodges–Lehmann over the valid rounds, with an
 * interval at a Bonferroni-corrected confidence, so that all of them hold together with 95%, and
 * the verdict rule of the report (faster, slower, same within ±margin, undecided).
 * @param {string} dirA
 * @param {string} dirB
 * @returns {object} a, b, what (the headline verdicts' metric in words), figures (the columns compared), envDiffs,
 *   machine (report/compare/machine.js machineDifference),
 *   cells (id, kind, nServers, load, variant, figures with verdict),
 *   verdicts (label: B's, else A's; labels: both; a, b: each folder's verdict entry or null, paired by their cells), onlyA, onlyB,
 *   margin, comparisons, confidence,
 *   why (report/compare/why.js whyCompare: null unless both folders have a profile)
 * @throws {CompareError} when a folder is not a sweep or capacity results folder, the two differ in that, or they share no cell
 */
function compareFolders (dirA, dirB) {
  const [a, b] = [readFolder(dirA), readFolder(dirB)]
  if (a.format !== b.format) throw new CompareError(`${dirA} is a ${a.format} folder and ${dirB} a ${b.format} one: compare two of a kind`)
  const { figures: FIGS, metric } = FORMATS[a.format]
  const { what } = METRICS.find((m) => m.metric === metric)
  const ids = (f) => new Set(f.cells.map((c) => c.id))
  const shared = a.cells.filter((c) => ids(b).has(c.id))
  if (shared.length === 0) throw new CompareError(`${dirA} and ${dirB} share no cell (cell ids such as ${a.cells[0]?.id ?? '–'} and ${b.cells[0]?.id ?? '–'})`)
  const values = (cell, column) => cell.valid.map((r) => r[column]).filter((v) => Number.isFinite(v) && v > 0)
  const comparisons = shared.length * FIGS.length
  const confidence = 1 - (1 - FAMILY_CONFIDENCE) / comparisons
  const margin = b.env.options?.margin ?? a.env.options?.margin ?? MARGIN
  const cells = shared.map((cellA) => {
    const cellB = b.cells.find((c) => c.id === cellA.id)
    const figures = FIGS.map((f) => {
      const [x, y] = [values(cellA, f.column), values(cellB, f.column)]
      const ratio = unpairedRatio(x, y, confidence)
      return { ...f, a: x, b: y, ratio, verdict: judge(ratio, { margin, better: f.better }) }
    })
    return { id: cellA.id, kind: cellA.kind, nServers: cellA.nServers, load: cellA.load, variant: cellA.variant, figures }
  })
  // A comparison is the same in both folders when it pairs the same two cells, whatever its label (a label leaves out what
  // does not vary in its folder: a folder of one storage names none); an entry without cell ids by its label.
  const keyOf = (v) => (v.a && v.b ? `${v.a} ${v.b}` : v.label)
  const ofMetric = (folder) => folder.verdicts.filter((v) => v.metric === metric)
  const keys = [...new Set([...ofMetric(a), ...ofMetric(b)].map(keyOf))]
  const verdicts = keys.map((key) => {
    const [x, y] = [ofMetric(a).find((v) => keyOf(v) === key) ?? null, ofMetric(b).find((v) => keyOf(v) === key) ?? null]
    return { label: (y ?? x).label, labels: [...new Set([x?.label, y?.label].filter(Boolean))], a: x, b: y }
  })
  return { a, b, what, figures: FIGS, envDiffs: [...envDifferences(a.env, b.env), ...filesDifference(a, b)],
    machine: { ...machineDifference(a.env, b.env), expected: expectedOn(a.dir, b.dir) },
    cells, verdicts, margin, comparisons, confidence,
    why: whyCompare(a.profiled, b.profiled), onlyA: [...ids(a)].filter((id) => !ids(b).has(id)), onlyB: [...ids(b)].filter((id) => !ids(a).has(id)) }
}

// How far each folder's files grew (summary.csv's fileRecords, the most of any cell by its last round) where it differs by a
// quarter or more: a GET sorts the whole file, so a run that did more operations (a longer budget, a faster machine) answers
// for larger files (docs/RESULTS.md). [] where either folder lacks the column.
function filesDifference (a, b) {
  const most = (folder) => Math.max(-1, ...folder.cells.flatMap((c) => c.valid.map((r) => r.fileRecords)).filter(Number.isFinite))
  const [x, y] = [most(a), most(b)]
  if (x < 0 || y < 0 || Math.max(x, y) < 1.25 * Math.min(x, y)) return []
  const text = (n, folder) => `${n.toLocaleString('en-US', { maximumFractionDigits: 1 })}${folder.env.options?.freshFiles ? ' (--freshFiles)' : ''}`
  return [{ field: 'records a file by the end (a GET sorts the whole file)', a: text(x, a), b: text(y, b) }]
}

// What the model (report/compare/model.js) expects of B's sync against async from A's profile and both fingerprints, beside
// what B measured; [] where A was not profiled or either has no fingerprint (the model throws).
function expectedOn (dirA, dirB) {
  try {
    const b = readModelFolder(dirB)
    const measured = measuredPairs(b)
    return predict(modelInputs(readModelFolder(dirA)), b.env.fingerprint)
      .map((p) => ({ label: p.label, ratio: p.ratio, measured: measured.get(p.id) ?? null }))
  } catch {
    return []
  }
}

/**
 * The gate (--fail-on=slower): what it watches, and what of that is slower beyond noise in B.
 * @param {object} result from compareFolders
 * @param {string[]} watch shared cell ids and comparison labels; none: every shared cell
 * @returns {{ cells: object[], verdicts: object[], slower: string[] }} slower: each finding in words
 * @throws {CompareError} for a watched name that is neither a shared cell nor a comparison of either folder
 */
function gate (result, watch) {
  const unknown = watch.filter((w) => !result.cells.some((c) => c.id === w) && !result.verdicts.some((v) => v.labels.includes(w)))
  if (unknown.length > 0) throw new CompareError(`--watch names no shared cell or comparison: ${unknown.map((w) => JSON.stringify(w)).join(', ')}`)
  const cells = watch.length === 0 ? result.cells : result.cells.filter((c) => watch.includes(c.id))
  const verdicts = result.verdicts.filter((v) => v.labels.some((l) => watch.includes(l)))
  // A figure's verdict is slower when B is worse: fewer ops/s, a higher p99 (report/stats/intervals.js judge).
  const worse = (c, f) => `${c.id} ${f.name} ${formatRatio(f.ratio)} ${f.better === 'lower' ? 'higher' : 'slower'}`
  const slower = [...cells.flatMap((c) => c.figures.filter((f) => f.verdict === 'slower').map((f) => worse(c, f))),
    ...verdicts.filter((v) => v.b?.verdict === 'slower').map((v) => `${v.label}: ${formatRatio(v.b)} slower in B`)]
  return { cells, verdicts, slower }
}

const FLAGS = /^--(html|fail-on|watch)=/

/**
 * The compare command: Markdown on stdout, the HTML page to --html=FILE (default B/compare-<A>.html). With
 * --fail-on=slower, a gate: exit 1 when a watched cell's figure (--watch=CELL, every shared cell by default) or a
 * watched comparison (--watch=LABEL, as the verdicts table names it) is slower in B beyond noise, the reason on stderr.
 * @param {string[]} argv A B [--html=FILE] [--fail-on=slower] [--watch=NAME ...]
 * @returns {number} exit status: 0; 1 the gate found something slower; 2 (one line on stderr) for bad arguments, a
 *   folder that is not a results folder, or two folders that share no cell; 3 the gate was asked across two machines
 */
function runCompare (argv) {
  const value = (flag) => argv.filter((a) => a.startsWith(`--${flag}=`)).map((a) => a.slice(flag.length + 3))
  const [html] = value('html')
  const [failOn] = value('fail-on')
  const watch = value('watch')
  const dirs = argv.filter((a) => !FLAGS.test(a))
  try {
    if (dirs.length !== 2 || dirs.some((a) => a.startsWith('--'))) {
      throw new CompareError('compare needs two results folders, A and B (and optionally --html=FILE, --fail-on=slower, --watch=NAME), ' +
        `got ${JSON.stringify(argv.join(' '))}`)
    }
    if (failOn !== undefined && failOn !== 'slower') throw new CompareError(`--fail-on must be slower, got ${JSON.stringify(failOn)}`)
    if (value('fail-on').length > 1 || value('html').length > 1) throw new CompareError('--fail-on and --html are given once each')
    if (watch.length > 0 && failOn === undefined) throw new CompareError('--watch says what --fail-on=slower watches: give --fail-on=slower too')
    const result = compareFolders(...dirs)
    if (failOn) result.gate = gate(result, watch)
    // Code is judged on one machine: across two, every figure moves with the machine (exit 3).
    const across = failOn && result.machine.differ
    if (across) result.gate = { ...result.gate, acrossMachines: result.machine.identity.map((d) => `${d.name}: ${d.a} → ${d.b}`).join('; ') }
    const page = html ?? path.join(dirs[1], `compare-${result.a.name}.html`)
    fs.writeFileSync(page, compareHtml(result))
    process.stdout.write(compareMarkdown(result))
    process.stderr.write(`compare: ${page}\n`)
    if (across) {
      process.stderr.write(`compare: --fail-on=slower does not judge code across machines (${result.gate.acrossMachines}): ` +
        'run A\'s code and B\'s on one machine and compare those two folders\n')
      return 3
    }
    if (result.gate?.slower.length > 0) {
      process.stderr.write(`compare: slower beyond noise: ${result.gate.slower.join('; ')}\n`)
      return 1
    }
    return 0
  } catch (err) {
    if (!(err instanceof CompareError)) throw err
    process.stderr.write(`compare: ${err.message}\n`)
    return 2
  }
}

if (require.main === module) process.exitCode = runCompare(process.argv.slice(2))

module.exports = { runCompare, compareFolders }
