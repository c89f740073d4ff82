'use strict'
// The report's verdict sections, from the folder's verdicts (report/stats/comparisons.js): the first
// screen (the forest chart and the throughput verdicts with their CPU verdicts in one table), and
// the sync/async and process-model matrices by nClients and process count. Used by report/page/page.js.

const { html, raw } = require('../../lib/html-template')
const { formatRatio, verdictOf, roundsNote, pct, sides, needsText } = require('../stats/verdicts')
const { KINDS, modelLabel } = require('../../lib/kinds')

const CLIENT_BOUND = html` <span class="bound" title="client-bound: the load generator, not the server, was the limit">⚠</span>`

function ratioCell (e, faster, slower) {
  if (!e?.ratio) return html`<td class="none">no valid round</td>`
  const [text, tone] = verdictOf(e.ratio, faster, slower, { margin: e.margin, better: e.better })
  return html`<td class="${tone}"><span class="ratio">${formatRatio(e.ratio)}</span>${(e.cells[0].clientBound ||
    e.cells[1].clientBound) && CLIENT_BOUND}<br><span class="verdict">${text}</span></td>`
}

/**
 * The first screen: the throughput verdicts as a chart and, in one table, each with its interval,
 * its server and client CPU-per-request verdicts and its rounds.
 * @param {{ verdicts: object[], margin: number, calibration: object|null, run: object|null }} analysis
 * @param {{ svg: string }|undefined} chart the forest chart (report/charts/verdicts.js)
 * @returns {object|string} markup
 */
function firstScreen ({ verdicts, margin, calibration, run, answer }, chart) {
  const ops = verdicts.filter((e) => e.metric === 'opsPerSec')
  if (ops.length === 0) return ''
  const cost = (e, metric) => verdicts.find((x) => x.metric === metric && x.a === e.a && x.b === e.b)
  const row = (e) => {
    const [a, b] = sides(e)
    return html`<tr><th>${e.label}</th>${ratioCell(e, a, b)}${ratioCell(cost(e, 'serverCpuPerReqUs'), a, b)}
      ${ratioCell(cost(e, 'clientCpuPerReqUs'), a, b)}<td class="num">${e.n ?? '–'}</td></tr>`
  }
  return html`<section id="verdicts"><h2>The answer</h2>
    ${calibration?.failed && html`<p class="alarm"><strong>The A/A pair came out different: this run cannot be trusted as it is.</strong>
      ${calibration.text}</p>`}
    ${calibration?.needs && html`<p class="note" id="aa-needs"><strong>The A/A pair came out undecided at this machine's noise:</strong>
      ${needsText(calibration.needs)}.</p>`}
    ${chart && html`<figure id="verdicts-chart" aria-label="verdicts">${raw(chart.svg)}</figure>`}
    <div class="scroll"><table class="verdicts"><thead><tr><th>comparison (a vs b: a / b)</th><th>throughput</th>
    <th>server CPU per request</th><th>client CPU per request</th><th>rounds</th></tr></thead>
    <tbody>${ops.map(row)}</tbody></table></div>
    <p class="note">A verdict is <em>faster</em> or <em>slower</em> (for CPU: <em>cheaper</em>) when the 95% interval of the
    ratio leaves out 1, <em>the same</em> when it lies within ±${pct(margin)} ([${(1 / (1 + margin)).toFixed(3)}, ${(1 + margin).toFixed(2)}]),
    and <em>undecided</em> otherwise. ${roundsNote(ops.map((e) => e.ratio))}.${run && ` ${run}`}</p>
    ${answer?.length > 0 && html`<details id="answer-lines"><summary>On the terminal (answer.txt)</summary>
    <pre>${answer.map((l) => `${l.text}\n`).join('')}</pre></details>`}</section>`
}

// A matrix of verdict entries: a row per key, a column per process model and count.
function matrix (entries, rowKey, rowHead, cores) {
  const columns = [...new Map(entries.map((e) => [`${e.cells[0].kind}|${e.cells[0].nServers}`, e.cells[0]])).values()]
    .sort((x, y) => x.nServers - y.nServers || x.kind.localeCompare(y.kind))
  const keys = [...new Set(entries.map(rowKey))]
  const head = (c) => `${modelLabel(c.kind, c.nServers)}${c.nServers > cores ? ' †' : ''}`
  return html`<table class="matrix"><thead><tr><th>${rowHead}</th>${columns.map((c) => html`<th>${head(c)}</th>`)}</tr></thead><tbody>
    ${keys.map((key) => html`<tr><th>${key}</th>${columns.map((c) => {
      const e = entries.find((x) => rowKey(x) === key && x.cells[0].kind === c.kind && x.cells[0].nServers === c.nServers)
      if (!e) return html`<td class="empty">–</td>`
      const [a, b] = sides(e)
      return ratioCell(e, a, b)
    })}</tr>`)}</tbody></table>`
}

/**
 * The sync/async and process-model verdicts in matrices by nClients and process count, per setting.
 * @param {object} results from readResults
 * @param {{ verdicts: object[] }} analysis
 * @returns {object|string} markup
 */
function matricesSection (results, { verdicts }) {
  const ops = verdicts.filter((e) => e.metric === 'opsPerSec' && !e.aa)
  if (ops.length === 0) return ''
  const cores = results.env.cpus
  const settings = [...new Set(ops.map((e) => e.cells[0].variant))]
  const api = (e) => (e.cells[1].api && e.cells[1].api !== e.cells[0].api ? `, async ${e.cells[1].api}` : '')
  const modelKey = (e) => `${KINDS[e.cells[0].kind].store} over ${modelLabel(e.cells[1].kind, e.cells[1].nServers)}, nClients ${e.cells[0].load}`
  const group = (g) => {
    const store = ops.filter((e) => e.kind === 'store' && e.cells[0].variant === g)
    const model = ops.filter((e) => e.kind === 'model' && e.cells[0].variant === g)
    return html`${g && html`<h3>${g}</h3>`}
      ${store.length > 0 && html`<p class="caption">Sync over async (above 1: sync is faster), by nClients and process model</p>
      <div class="scroll">${matrix(store, (e) => `${e.cells[0].load}${api(e)}`, 'nClients', cores)}</div>`}
      ${model.length > 0 && html`<p class="caption">A process model over another of the same store (the column's over the one named in each entry)</p>
      <div class="scroll">${matrix(model, modelKey, 'comparison', cores)}</div>`}`
  }
  return html`<section id="matrices"><h2>Every verdict by process count</h2>
    <p>Each entry is a throughput ratio taken within each round. ⚠ marks a comparison with a
    client-bound cell: it measures the load generator. † marks nServers above the ${cores} cores.</p>
    ${settings.map(group)}</section>`
}

module.exports = { firstScreen, matricesSection, CLIENT_BOUND }
