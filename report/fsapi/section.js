'use strict'
// Which fs API a file server should use (report/fsapi/analysis.js): fsapi.md beside the report and the report's section, one
// table of idiom × file size × storage with each idiom against callback readFile and readFileSync, and the model's fit.

const { html, raw } = require('../../lib/html-template')
const { runtimeLabel } = require('../../lib/install/runtime-specs')

const HEAD = ['idiom', 'file', 'storage', 'in flight', 'runtime', 'ops/s', 'ops/s vs callback', 'ops/s vs readFileSync', 'CPU µs/req',
  'model µs/req', 'CPU vs callback', 'GET p99 ms', 'RSS MiB', 'pool trips/req', 'malloc / GC / promises % CPU', 'verdict']

const size = (b) => (b >= 1048576 ? `${b / 1048576} MiB` : b >= 1024 ? `${b / 1024} KiB` : `${b} B`)
const fixed = (v, digits) => (Number.isFinite(v) ? v.toFixed(digits) : '–')
const ratio = (v) => (v && Number.isFinite(v.estimate) ? `${v.estimate.toFixed(2)}x [${v.low.toFixed(2)}-${v.high.toFixed(2)}] ${v.verdict}` : '–')

// What a row says in words: against callback readFile where it has that verdict, else against readFileSync.
function verdictOf (r) {
  if (r.idiom === 'readFileSync') return 'the reference'
  const [v, than] = r.idiom === 'callback' ? [r.vsSync?.ops, 'readFileSync'] : [r.vsCallback?.ops, 'callback']
  if (!v) return '–'
  return { same: `same as ${than}`, undecided: `undecided against ${than}` }[v.verdict] ?? `${v.verdict} than ${than}`
}

const percent = (v) => (v === null ? '–' : (100 * v).toFixed(0))
const shares = (s) => (Object.values(s).every((v) => v === null) ? '–' : `${percent(s.malloc)} / ${percent(s.gc)} / ${percent(s.callbacks)}`)
const modelled = (m) => (m ? `${fixed(m.cpuUs, 1)} ${m.fitted ? '(fitted)' : `(${Math.round(100 * m.miss) || 0}%)`}` : '–')

function cellsOf (r) {
  return [r.idiom, size(r.bytes), r.storage, String(r.inFlight), runtimeLabel(r.runtime), fixed(r.opsPerSec, 0), ratio(r.vsCallback?.ops),
    ratio(r.vsSync?.ops), fixed(r.cpuUs, 1), modelled(r.model),
    ratio(r.vsCallback?.cpu), fixed(r.p99Us / 1000, 2), fixed(r.peakRssKiB === null ? null : r.peakRssKiB / 1024, 0), fixed(r.trips, 1),
    shares(r.shares), verdictOf(r)]
}

/** The findings: the model per Node and storage, and where it misses. */
function fsApiFindings (fsapi) {
  const lines = fsapi.models.map((m) => `${runtimeLabel(m.runtime)}, ${m.storage}: CPU per request ≈ ${m.fixedUs.toFixed(1)} µs + ` +
    `${m.perTripUs.toFixed(2)} µs per pool trip + ${m.perMiBUs.toFixed(0)} µs per MiB read (fitted on the ${m.fittedOn.map(size).join(' and ')} ` +
    `files, ${m.cells.length} cells)`)
  if (fsapi.predicted > 0) {
    lines.push(fsapi.missed.length === 0
      ? `The model predicts all ${fsapi.predicted} other cells' CPU per request within 20%.`
      : `The model misses ${fsapi.missed.length} of ${fsapi.predicted} predicted cells by more than 20% (what pool trips and bytes do not ` +
        `count: promises, streams, buffers): ${fsapi.missed.join(', ')}.`)
  }
  if (fsapi.rows.some((r) => r.trips === null)) lines.push('Pool trips were not counted for every cell: the profiled round is missing or left cells out.')
  return lines
}

const MODEL_TEXT = 'ops/s and GET p99: medians of the valid rounds; against callback and readFileSync: the ratio paired by round with its 95% ' +
  'interval and verdict; CPU µs/req: the server\'s CPU (every thread) per request; pool trips: the libuv requests each GET made in the ' +
  'profiled round (counted by async_hooks: FSREQCALLBACK, FSREQPROMISE, FILEHANDLECLOSEREQ); the model: CPU per request from pool trips and ' +
  'MiB read, fitted per Node and storage on the smallest and largest files (fitted) and predicting the rest (its miss in %); malloc / GC / ' +
  'promises: the profiled round\'s shares of the sampled CPU in the C allocator, garbage collection and the promise and callback machinery ' +
  '(the Why section\'s categories; with perf, every thread).'

/**
 * fsapi.md.
 * @param {object} fsapi fsApiAnalysis's
 * @param {object} env env.json's
 * @returns {string}
 */
function fsApiMarkdown (fsapi, env) {
  const lines = ['# Which fs API should a file server use?', '', `\`./run_benchmark.sh ${env.argv.join(' ')}\``, '',
    `${env.cpus} cores (${env.cpuModel ?? 'CPU model not recorded'}), ${env.serverRuntimes.map(runtimeLabel).join(', ')}, ` +
    `load average ${env.loadAverage?.[0] ?? '?'} at the start (${env.startedAt}).`, '', ...fsApiFindings(fsapi).map((l) => `- ${l}`), '',
    ...(fsapi.rows.some((r) => r.model) ? ['![CPU per request measured against the model](charts/fsapi-model.svg)', ''] : []),
    `| ${HEAD.join(' | ')} |`, `|${HEAD.map(() => '---').join('|')}|`, ...fsapi.rows.map((r) => `| ${cellsOf(r).join(' | ')} |`), '', MODEL_TEXT]
  return lines.join('\n') + '\n'
}

/**
 * The report's section.
 * @param {object|null} fsapi
 * @param {{ file: string, title: string, svg: string }} [chart] the model's (report/fsapi/chart.js)
 * @returns {object|string}
 */
function fsApiSection (fsapi, chart) {
  if (!fsapi) return ''
  return html`<section id="fsapi"><h2>Which fs API for a file server</h2>
    <ul>${fsApiFindings(fsapi).map((l) => html`<li>${l}</li>`)}</ul>
    ${chart && html`<figure id="${chart.file}" aria-label="${chart.title}">${raw(chart.svg)}</figure>`}
    <div class="scroll"><table class="fsapi"><thead><tr>${HEAD.map((h) => html`<th>${h}</th>`)}</tr></thead>
    <tbody>${fsapi.rows.map((r) => html`<tr>${cellsOf(r).map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table></div>
    <p class="note">${MODEL_TEXT}</p></section>`
}

module.exports = { fsApiMarkdown, fsApiSection, fsApiFindings }
