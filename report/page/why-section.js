'use strict'
// The "Why" section: where each profiled server's time goes per request, what each headline comparison's
// difference is made of, where the servers wait, and what profiling cost. Used by report/page/page.js.

const { html, raw } = require('../../lib/html-template')
const { differenceText, formatUs, ADDS_WITHIN } = require('../stats/why')

const WAITS = [['syncUs', 'event loop blocked in sync fs calls'], ['poolBusyUs', 'async fs calls outstanding (busy)'],
  ['poolQueuedUs', 'async fs calls outstanding beyond the pool\'s size']]
const SLEEPS = 'times a thread of the server went to sleep per request (voluntary context switches): each switch to sleep runs with ' +
  'interrupts off, where no sampler lands, so a cell that sleeps often samples under what it measures'
const pct = (x) => `${Number((Math.abs(x) * 100).toFixed(1))}%`
const span = (i) => (i ? `[${formatUs(i.low)}–${formatUs(i.high)}], ${i.n} round${i.n === 1 ? '' : 's'}, ${pct(i.confidence)}` : '')
const figure = (c) => c && html`<figure id="${c.file}" aria-label="${c.title}">${raw(c.svg)}</figure>`
const td = (i) => (i ? html`<td class="num" title="${span(i)}">${formatUs(i.estimate)}</td>` : html`<td class="empty">–</td>`)
const flameLink = (flames, file, text) => (flames.has(file) ? html`<a href="${file}">${text}</a>` : '')

function modeSentence ({ mode, scope, note, perfHz, v8IntervalUs }) {
  const perf = `Sampled with Linux perf${perfHz ? ` at ${perfHz} Hz` : ''}`
  if (mode === 'perf' && scope === 'processes') return `${perf} in this run's processes: every thread and the kernel, with JS names; not the context switches.`
  if (mode === 'perf' && scope === 'user') {
    return `${perf} in this run's processes, user space only (kernel.perf_event_paranoid = 2): every thread, with JS names; the kernel ` +
      'categories are not sampled, and measured is the servers\' user CPU time.'
  }
  if (mode === 'perf') return `${perf}: every thread and the kernel, with JS names.`
  return `Sampled with V8's profiler${v8IntervalUs ? ` every ${v8IntervalUs} µs` : ''}: V8 stacks only: main threads; ` +
    `the thread pool and the kernel are not seen${note ? ` — ${note}` : ''}.`
}

// A comparison in one sentence, told from the side that needs more, its figures turned the same way.
function comparisonSentence ({ names, total, categories }) {
  const flip = total.estimate < 0
  const [more, less] = flip ? [names[1], names[0]] : names
  const turn = (d) => (flip ? { ...d, estimate: -d.estimate, low: -d.high, high: -d.low } : d)
  const sum = turn(total)
  const head = sum.estimate === 0
    ? `${names[0]} and ${names[1]} need the same time per request ${differenceText(sum)}`
    : `${more} needs ${formatUs(sum.estimate)} µs more per request than ${less} ${differenceText(sum).replace(/^\S+ /, '')}` +
      `${total.beyond ? '' : ', within noise'}`
  const beyond = categories.filter((d) => d.beyond).map(turn).sort((x, y) => Math.abs(y.estimate) - Math.abs(x.estimate))
  return `${head}; ${beyond.length === 0 ? 'no category differs beyond noise'
    : `the categories beyond noise (${more} − ${less}): ${beyond.map((d) => `${d.id} ${differenceText(d)}`).join(', ')}`}.`
}

// Where perf sampled user space only, the kernel's categories say so rather than 0.
const notSampled = (why, id) => why.scope === 'user' && id.startsWith('kernel-')

function costsTable (why, flames) {
  const shown = why.categories.filter((c) => notSampled(why, c.id) || why.cells.some((cell) => cell.categories[c.id]?.estimate > 0))
  const cellOf = (cell, c) => notSampled(why, c.id) ? html`<td class="empty">not sampled</td>` : td(cell.categories[c.id])
  const mark = (cell) => cell.adds === false && html` <span class="over" title="more than ${pct(ADDS_WITHIN)} apart">⚠</span>`
  const noise = (cell) => Number.isFinite(cell.samplingError) &&
    html` <span class="note" title="sampling alone moves the sampled total this much">±${pct(cell.samplingError)}</span>`
  return html`<div class="scroll"><table class="why-costs"><thead><tr><th>cell</th>
    ${shown.map((c) => html`<th title="${c.label}: ${c.what}">${c.id}</th>`)}<th>sampled</th><th>measured server CPU</th>
    <th>sampled / measured</th><th title="${SLEEPS}">sleeps</th><th>flame graph</th></tr></thead><tbody>
    ${why.cells.map((cell) => html`<tr><td>${cell.id}</td>${shown.map((c) => cellOf(cell, c))}${td(cell.sampled)}${td(cell.serverCpu)}
      <td class="num">${cell.ratio === null ? '–' : cell.ratio.toFixed(2)}${noise(cell)}${mark(cell)}</td>
      ${td(cell.sleeps)}
      <td>${flameLink(flames, `profile/${cell.id}.html`, 'flame graph')}</td></tr>`)}</tbody></table></div>`
}

function waitsTable (cells) {
  return html`<div class="scroll"><table class="why-waits"><thead><tr><th>cell</th>
    ${WAITS.map(([, what]) => html`<th>${what}</th>`)}</tr></thead><tbody>
    ${cells.map((cell) => html`<tr><td>${cell.id}</td>${WAITS.map(([w]) => td(cell.waits[w]))}</tr>`)}</tbody></table></div>`
}

function functionsTable ({ names, functions }) {
  if (functions.length === 0) return ''
  const [a, b] = names
  return html`<div class="scroll"><table class="why-functions"><thead><tr><th>function</th><th>category</th>
    <th>${a}</th><th>${b}</th><th>${a} − ${b}</th></tr></thead><tbody>
    ${functions.map((f) => html`<tr><td>${f.name}</td><td>${f.category}</td><td class="num">${formatUs(f.a)}</td>
      <td class="num">${formatUs(f.b)}</td><td class="num">${f.change > 0 ? '+' : f.change < 0 ? '−' : ''}${formatUs(Math.abs(f.change))}</td></tr>`)}
    </tbody></table></div>`
}

function comparisonPart (c, charts, flames) {
  const diff = `profile/diff-${c.a}-vs-${c.b}.html`
  const [na, nb] = c.verdictRounds ?? [0, 0]
  const sizes = Math.min(na, nb) > 0 && Math.max(na, nb) > 1.2 * Math.min(na, nb) &&
    ` The two ran ${na} and ${nb} verdict rounds (a settled cell gets no more), so ${na > nb ? c.names[0] : c.names[1]}'s files had
    grown larger when they were profiled: what a request costs by its file's size differs for that reason too.`
  return html`<h3>${c.label}</h3><p>${comparisonSentence(c)}${sizes}</p>
    ${figure(charts.find((chart) => chart.pair === `${c.a}-vs-${c.b}`))}
    <p class="caption">The ${c.functions.length} functions whose own time per request changed most (µs per request)</p>
    ${functionsTable(c)}
    ${flames.has(diff) && html`<p>${flameLink(flames, diff, `Differential flame graph, ${c.names[0]} against ${c.names[1]}`)}
      (red: more time in ${c.names[0]}, blue: less).</p>`}`
}

function overheadSentence (why) {
  const each = why.cells.filter((c) => c.overhead !== null)
  if (why.overhead === null) return ''
  const word = (x) => `${pct(x)} ${x >= 0 ? 'less' : 'more'}`
  const { estimate, low, high, n, confidence } = why.overhead
  const by = why.mode === 'perf' ? 'perf\'s' : 'V8\'s'
  return html`<p class="note">The verdicts come from rounds on servers started without the profilers' flags. The profiler's overhead:
    the windows ${by} figures come from served ${word(estimate)} [${word(low)} to ${word(high)}, ${n} cell rounds, ${pct(confidence)}]
    than the passes left unprofiled at random in the same rounds (each cell's median: ${each.map((c) => `${c.id} ${word(c.overhead.estimate)}`).join(', ')}).
    ${Number.isFinite(why.v8Overhead) && `V8's profiler, which took a pass of its own for the .cpuprofile files, served
    ${word(why.v8Overhead)} (it slows every call from JS into node's C++ while it runs).`}</p>`
}

/**
 * The why section; '' when the folder has no profile.
 * @param {object|null} why from report/stats/why.js whyAnalysis
 * @param {{ file: string, title: string, svg: string, pair?: string }[]} charts the why section's, from report/charts/why.js
 * @param {Iterable<string>} [flames] the flame graphs written, relative to the folder (profile/<cell>.html,
 *   profile/diff-<a>-vs-<b>.html): only these are linked
 * @returns {object|string} markup (html``)
 */
function whySection (why, charts, flames = []) {
  if (!why || why.cells.length === 0) return ''
  const written = new Set(flames)
  const coverage = why.cells.find((c) => c.sampled)?.sampled
  return html`<section id="why"><h2>Why: where each server's time goes, per request</h2>
    <p>${modeSentence(why)} Each figure is µs of server time per request in the profiled windows: the median of the
    rounds${coverage && `, its interval on hover (with ${coverage.n} rounds it covers ${pct(coverage.confidence)})`}.
    <em>Sampled</em> sums the categories; <em>measured</em> is the server processes' CPU time over the same windows;
    <span class="over">⚠</span> marks a cell where the two differ by more than ${pct(ADDS_WITHIN)} (their ratio is pooled over the rounds).
    <em>Sleeps</em> counts the times per request a server thread went to sleep: each switch to sleep runs with interrupts
    off, where no sample lands, so a cell that sleeps often samples under what it measures.</p>
    ${figure(charts.find((c) => c.file === 'why-costs.svg'))}
    ${costsTable(why, written)}
    <details><summary>What each category holds</summary><dl>
    ${why.categories.map((c) => html`<dt>${c.id}: ${c.label}</dt><dd>${c.what}</dd>`)}</dl></details>
    <h3>Where each server waits</h3>
    <p>Wall time per request, not CPU: sync blocks its event loop in sync fs calls; async hands its fs calls to the thread
    pool, where each is outstanding from its submission until the event loop runs its callback (a busy loop adds its own wait):
    "busy" counts the calls while at most the pool's size were outstanding, "queued" the excess, which waited for a thread or
    for the event loop (between an fs.readFile's four trips, and before its callback).</p>
    ${waitsTable(why.cells)}
    ${why.comparisons.map((c) => comparisonPart(c, charts, written))}
    ${overheadSentence(why)}</section>`
}

module.exports = { whySection, comparisonSentence }
