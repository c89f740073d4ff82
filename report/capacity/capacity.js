'use strict'
// The report of a capacity folder (sweep/capacity/): capacity.json, the latency–load chart of each
// regime, the regime map, and report.html with the answer first: each kind's capacity under the
// SLO with its interval and what it covers, the ratios paired by round with their verdicts, and beside each the
// closed-loop verdict of the same pair; where the two disagree, that comes first.

const fs = require('node:fs')
const path = require('node:path')
const { groupCells } = require('../data/cells')
const { comparisons, settingsLabel } = require('../stats/comparisons')
const { intervalOfMedian, MARGIN } = require('../stats/intervals')
const { median, coverage } = require('../../lib/median')
const { formatRatio, fixed } = require('../stats/verdicts')
const { latencyLoadChart, regimeMapChart } = require('./charts')
const { html, raw } = require('../../lib/html-template')
const { CSS, environment, hostsLead } = require('../page/page')
const { summaryTable } = require('../page/tables')
const { DIMENSION_COLUMNS, delayOrder } = require('../../lib/results/dimensions')
const { modelLabel } = require('../../lib/kinds')
const { formatSlo, minRequests } = require('../../lib/slo')
const { runtimeLabel } = require('../../lib/install/runtime-specs')
const { answerLines: verdictLines } = require('../page/answer-lines')

const PERCENTILES = ['p50', 'p99', 'p999']
const regimeLabel = (ioDelay) => settingsLabel(`ioDelay=${ioDelay || 'off'}`)
const interval = (values) => (values.length > 0 ? intervalOfMedian(values) : null)
const fmt = (v) => Math.round(v).toLocaleString('en-US')
// A cell's capacity in words; where the generator or --endRate ended some searches, a lower bound.
function capacityText (cell) {
  const c = cell.capacity
  const bounds = [cell.limits.generator && `the generator was the limit in ${cell.limits.generator} of ${cell.valid.length} rounds`,
    cell.limits.endRate && `it held at --endRate in ${cell.limits.endRate} of ${cell.valid.length} rounds`].filter(Boolean)
  const text = c ? `${fmt(c.estimate)} req/s${c.n > 1 ? ` [${fmt(c.low)}–${fmt(c.high)}]` : ''} (${coverage(c)})` : 'no capacity found'
  return bounds.length > 0 ? `${c ? 'at least ' : ''}${text} (${bounds.join('; ')})` : text
}

/**
 * Reads a capacity folder and writes its charts, capacity.json and report.html.
 * @param {object} results from report/data/read.js readResults (format 'capacity')
 * @returns {string[]} the files written
 */
function renderCapacityReport (results) {
  const { dir, env } = results
  const probes = results.probes.map(percentilesOf)
  const slo = env.options.slo
  const margin = env.options.margin ?? MARGIN
  const cells = groupCells(results).map((cell) => ({
    ...cell,
    regime: regimeLabel(cell.valid[0]?.ioDelay ?? cell.rows[0].ioDelay),
    ioDelay: cell.rows[0].ioDelay,
    capacity: interval(cell.valid.map((r) => r.capacity).filter(Number.isFinite)),
    highestPass: interval(cell.valid.map((r) => r.highestPass).filter(Number.isFinite)),
    closedLoop: interval(cell.valid.map((r) => r.closedOpsPerSec).filter(Number.isFinite)),
    limits: countBy(cell.valid.map((r) => r.limit)),
    points: curve(probes.filter((p) => p.cell === cell.id && cell.valid.some((r) => r.repeat === p.round)))
  }))
  // A ratio pairs rounds whose searches both ended on the SLO: a capacity the generator or --endRate
  // capped is a lower bound, not an estimate.
  const exact = cells.map((c) => ({ ...c, valid: c.valid.map((r) => (r.limit === 'slo' ? r : { ...r, capacity: null })) }))
  const verdicts = comparisons(exact, { margin, metrics: ['capacity', 'closedOpsPerSec'] })
  const answers = answerLines(cells, verdicts, slo, env)
  fs.mkdirSync(path.join(dir, 'charts'), { recursive: true })
  const charts = []
  const regimes = [...new Set(cells.map((c) => c.regime))]
  for (const regime of regimes) {
    const some = cells.filter((c) => c.regime === regime)
    charts.push({ file: `latency-load-${regime.replace(/[^\w]+/g, '-')}.svg`, title: `Latency against load, ${regime}`,
      svg: latencyLoadChart({ title: `Latency against offered load, ${regime}`, env, slo,
        cells: some.map((c) => ({ id: c.id, name: `${c.kind}${c.nServers > 1 ? ` ×${c.nServers}` : ''}`, kind: c.kind,
          capacity: c.capacity?.estimate ?? null, points: c.points })) }) })
  }
  if (regimes.length > 1) {
    const sorted = [...new Set(cells.map((c) => c.ioDelay))].sort(delayOrder)
    const kinds = [...new Map(cells.map((c) => [`${c.kind} ${c.nServers}`, c])).values()]
    charts.push({ file: 'regime-map.svg', title: 'Capacity against storage latency',
      svg: regimeMapChart({ title: `Capacity under ${formatSlo(slo)} against storage latency`, env, regimes: sorted.map(regimeLabel),
        kinds: kinds.map((k) => ({ kind: k.kind, name: `${k.kind} ×${k.nServers}`,
          values: sorted.map((d) => cells.find((c) => c.kind === k.kind && c.nServers === k.nServers && c.ioDelay === d)?.capacity ?? null) })) }) })
  }
  const files = charts.map((c) => {
    const file = path.join(dir, 'charts', c.file)
    fs.writeFileSync(file, c.svg)
    return file
  })
  const json = path.join(dir, 'capacity.json')
  fs.writeFileSync(json, JSON.stringify(capacityJson({ env, slo, margin, cells, verdicts, probes: probes.length }), null, 2) + '\n')
  const page = path.join(dir, 'report.html')
  const lines = verdictLines({ verdicts, metric: 'capacity' })
  fs.writeFileSync(page, pageHtml({ results, cells, verdicts, answers, lines, charts, slo, probes }))
  const answer = path.join(dir, 'answer.txt')
  fs.writeFileSync(answer, lines.map((l) => `${l.text}\n`).join(''))
  return [...files, json, answer, page]
}

// A probe with each percentile it was judged on: of all its requests pooled; a folder written before
// probes were pooled has only each op's worst window, and gets the higher of GET and PUT.
function percentilesOf (probe) {
  const out = { ...probe }
  for (const name of PERCENTILES) {
    if (probe[name] !== undefined) continue
    const values = [probe[`${name}_GET`], probe[`${name}_PUT`]].filter((v) => v !== null)
    out[name] = values.length > 0 ? Math.max(...values) : null
  }
  return out
}

// The points of the curve: the valid probes in bins of rates 15% wide (each round's bisection probes
// its own rates), per bin the median rate and the median of each percentile.
const BIN = Math.log(1.15)
function curve (probes) {
  const byBin = new Map()
  for (const p of probes.filter((x) => !x.invalid)) {
    const bin = Math.round(Math.log(p.rate) / BIN)
    byBin.set(bin, [...(byBin.get(bin) ?? []), p])
  }
  return [...byBin].sort((a, b) => a[0] - b[0]).map(([, some]) => ({ rate: median(some.map((p) => p.rate)),
    ...Object.fromEntries(PERCENTILES.map((name) => [name, median(some.map((p) => p[name]).filter((v) => v !== null))])) }))
}

// A comparison's ratio with its interval and what that covers; one round's alone.
const ratioText = (x) => (x.n > 1 ? `${formatRatio(x)} (${coverage(x)})` : `${fixed(x.estimate, 2)}× (${coverage(x)})`)

function countBy (values) {
  const out = {}
  for (const v of values) out[v] = (out[v] ?? 0) + 1
  return out
}

// The answer: per store pair, its capacities, the ratio and verdict, and the closed-loop verdict of the same pair.
function answerLines (cells, verdicts, slo, env) {
  const byId = new Map(cells.map((c) => [c.id, c]))
  const where = `${formatSlo(slo)} on ${env.cpus} cores`
  return verdicts.filter((v) => v.metric === 'capacity').map((v) => {
    const closed = verdicts.find((w) => w.metric === 'closedOpsPerSec' && w.a === v.a && w.b === v.b)
    const [a, b] = [byId.get(v.a), byId.get(v.b)]
    const decided = (x) => ['faster', 'slower', 'same'].includes(x?.verdict)
    const disagree = decided(v) && decided(closed) && v.verdict !== closed.verdict
    const ratio = (x) => (Number.isFinite(x?.estimate) ? `${ratioText(x)}, ${x.verdict}` : 'undecided (no round in which both searches crossed the SLO)')
    const name = (c) => `${c.kind} (${modelLabel(c.kind, c.nServers)})`
    return { disagree, kind: v.kind, regime: a.regime, verdict: v.verdict,
      text: `At ${where}, ${a.regime}: ${name(a)} sustains ${capacityText(a)}, ${name(b)} ${capacityText(b)}: ` +
        `${v.label}: ${ratio(v)}. Closed loop: ${ratio(closed)}.` +
        (disagree ? ` The two disagree: under the SLO it is ${v.verdict}, closed-loop ${closed.verdict}.` : '') }
  })
}

function capacityJson ({ env, slo, margin, cells, verdicts, probes }) {
  return {
    slo: { text: formatSlo(slo), targets: slo },
    precision: env.options.precision,
    minRequests: minRequests(slo),
    cores: env.cpus,
    runtimes: env.serverRuntimes,
    rounds: env.rounds?.rounds ?? null,
    probes,
    cells: cells.map((c) => ({ cell: c.id, ...Object.fromEntries(DIMENSION_COLUMNS.map((d) => [d, c.valid[0]?.[d] ?? c.rows[0][d] ?? null])),
      capacity: c.capacity && { estimate: c.capacity.estimate, low: c.capacity.low, high: c.capacity.high, n: c.capacity.n, confidence: c.capacity.confidence },
      highestPass: c.highestPass?.estimate ?? null,
      closedLoop: c.closedLoop && { estimate: c.closedLoop.estimate, low: c.closedLoop.low, high: c.closedLoop.high, n: c.closedLoop.n },
      limits: c.limits })),
    margin,
    comparisons: verdicts.map(({ ratio, cells: pair, ...entry }) => entry)
  }
}

function pageHtml ({ results, cells, verdicts, answers, lines, charts, slo, probes }) {
  const { env, rows } = results
  const name = path.basename(path.resolve(results.dir))
  const invalidProbes = probes.filter((p) => p.invalid).length
  const flagged = probes.filter((p) => p.passed && p.windowsOver && !p.windowsOver.startsWith('0/')).length
  const flaggedNote = flagged > 0
    ? `${flagged} passing probe(s) had a 1 s window whose own percentile broke the SLO (capacity.csv windowsOver): a flag, not a verdict. `
    : ''
  const invalidNote = invalidProbes > 0 && `${invalidProbes} probe(s) were invalid: by its own figures (its send rate, CPU or event-loop ` +
    'delay), the generator, not the server, was the limit.'
  const order = [...answers.filter((a) => a.disagree), ...answers.filter((a) => !a.disagree && a.kind === 'store'),
    ...answers.filter((a) => !a.disagree && a.kind !== 'store')]
  const row = (c) => html`<tr><td>${c.id}</td><td>${c.regime}</td><td class="num">${c.capacity ? fmt(c.capacity.estimate) : '–'}</td>
    <td class="num">${c.capacity ? `${c.capacity.n > 1 ? `${fmt(c.capacity.low)}–${fmt(c.capacity.high)} ` : ''}(${coverage(c.capacity)})` : '–'}</td>
    <td class="num">${c.highestPass ? fmt(c.highestPass.estimate) : '–'}</td>
    <td class="num">${c.closedLoop ? fmt(c.closedLoop.estimate) : '–'}</td>
    <td>${Object.entries(c.limits).map(([k, n]) => `${k} ${n}`).join(', ')}</td></tr>`
  const verdictRow = (v) => html`<tr><td>${v.label}</td><td>${v.metric === 'capacity' ? 'capacity' : 'closed loop'}</td>
    <td class="ratio">${Number.isFinite(v.estimate) ? ratioText(v) : '–'}</td><td>${v.verdict}</td><td class="num">${v.n ?? 0}</td></tr>`
  return `<!doctype html>\n${html`<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Capacity report ${name}</title><style>${raw(CSS)}</style></head><body><main>
<header><h1>Capacity under ${formatSlo(slo)}</h1>
<p class="lead">${name} · ${cells.length} cells · ${env.rounds?.rounds ?? '?'} rounds · ${probes.length} probes ·
${hostsLead(env)} · ${env.serverRuntimes.map(runtimeLabel).join(', ')}</p></header>
<section id="answer"><h2>The answer</h2>
${answers.some((a) => a.disagree) && html`<p class="alarm">Under the SLO and in the closed loop the verdicts disagree for
${answers.filter((a) => a.disagree).length} pair(s): they come first below.</p>`}
<ul class="answers">${order.map((a) => html`<li${a.disagree && html` class="over"`}>${a.text}</li>`)}</ul>
<p class="note">Capacity: the offered rate (open loop, requests due on a fixed schedule, latency counted
from when each was due) at which the ${slo.map((t) => t.name).join(', ')} of a probe's requests, pooled (GET and PUT,
${fmt(minRequests(slo))} at least, 30 beyond the percentile: a probe at a low rate lasts longer), crosses the SLO: per round,
a monotone fit of log latency against the rate over that round's probes, read where it meets the target between the
probes under and over it. A probe passes when it is within the SLO, no request failed and the median latency did not
climb 1 s window after window. ${flaggedNote}The probes are placed by doubling, then bisection to within
${(env.options.precision * 100).toFixed(0)}%; one search per cell and round, each on a fresh server. A cell's figure is the
median of its rounds' crossings with its order-statistic interval, each interval saying what it covers (95% takes 6 rounds;
with fewer it is the lowest to the highest round, covering less); a ratio is taken within each round whose two searches both
crossed the SLO (Hodges–Lehmann estimate, Wilcoxon interval, 95%; fewer than 6 such rounds stay undecided). ${invalidNote}</p>
${lines.length > 0 && html`<details id="answer-lines"><summary>On the terminal (answer.txt)</summary>
<pre>${lines.map((l) => `${l.text}\n`).join('')}</pre></details>`}
</section>
<section><h2>Charts</h2>
${charts.map((c) => html`<figure id="${c.file}" aria-label="${c.title}">${raw(c.svg)}</figure>`)}</section>
<section><h2>Capacity per cell</h2><div class="scroll"><table><thead><tr><th>cell</th><th>regime</th><th>capacity req/s</th>
<th>interval (what it covers)</th><th>highest pass req/s</th><th>closed-loop ops/s</th><th>what ended the searches</th></tr></thead>
<tbody>${cells.map(row)}</tbody></table></div>
<p class="note">What ended a search: slo (the fit crossed the target), endRate (nothing failed up to --endRate),
startRate (even --startRate failed), generator (the load generator was the limit before any probe failed). Highest pass:
the median over the rounds of the highest rate a probe passed at, for comparison.</p></section>
<section><h2>Verdicts</h2><div class="scroll"><table class="verdicts"><thead><tr><th>comparison (a / b)</th><th>metric</th>
<th>ratio [interval] (what it covers)</th><th>verdict</th><th>rounds</th></tr></thead><tbody>${verdicts.map(verdictRow)}</tbody></table></div></section>
<section><h2>Environment</h2>${environment(env)}</section>
<section><h2>All rows (summary.csv)</h2><div class="scroll">${summaryTable(results)}</div>
<p class="note">Every probe: capacity.csv (${probes.length} rows) · ${rows.length} searches.</p></section>
</main></body></html>`}\n`
}

module.exports = { renderCapacityReport }
