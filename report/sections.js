'use strict'
// The report's analysis sections: sync vs async and cluster speed-up verdicts with intervals
// paired by round, and the A/A noise floor. Used by report/page.js.

const { html } = require('./html-template')
const { fixed, formatRatio, verdictOf, noisePercent, roundsNote } = require('./verdicts')
const { KINDS } = require('../lib/kinds')

const MODEL_ORDER = ['cluster', 'reuseport']

const CLIENT_BOUND = html` <span class="bound" title="client-bound: the load generator, not the server, was the limit">⚠</span>`

function ratioCell (r, faster, slower, band) {
  if (!r) return html`<td class="none">no valid repeat</td>`
  const [text, tone] = verdictOf(r, band, faster, slower)
  return html`<td class="${tone}"><span class="ratio">${formatRatio(r)}</span>${(r.a.clientBound ||
    r.b.clientBound) && CLIENT_BOUND}<br><span class="verdict">${text}</span></td>`
}

// One matrix: a row per key, a column per nServers.
function matrix (name, entries, rowKey, rowHead, columns, faster, slower, band) {
  const keys = [...new Set(entries.map(rowKey))]
  const at = (key, col) => entries.find((e) => rowKey(e) === key && col.match(e))
  return html`<table class="${name}"><thead><tr><th>${rowHead}</th>
    ${columns.map((c) => html`<th>${c.head}</th>`)}</tr></thead><tbody>
    ${keys.map((key) => html`<tr><th>${key}</th>${columns.map((col) => {
      const e = at(key, col)
      return e ? ratioCell(e.ratio, faster, slower, band) : html`<td class="empty">–</td>`
    })}</tr>`)}</tbody></table>`
}

// A column per process model and count, the models side by side at each count.
function clusterColumns (entries, cores) {
  const multi = entries.filter((e) => e.cluster)
  const ns = [...new Set(multi.map((e) => e.nServers))].sort((a, b) => a - b)
  const models = MODEL_ORDER.filter((m) => multi.some((e) => e.model === m))
  const over = (n) => (n > cores ? ' †' : '')
  const s = (n) => (n === 1 ? '' : 'es')
  const head = { cluster: (n) => `cluster, ${n} worker${n === 1 ? '' : 's'}`, reuseport: (n) => `reusePort, ${n} process${s(n)}` }
  return [...(entries.some((e) => !e.cluster) ? [{ head: 'single process', match: (e) => !e.cluster }] : []),
    ...ns.flatMap((n) => models.filter((m) => multi.some((e) => e.model === m && e.nServers === n))
      .map((m) => ({ head: `${head[m](n)}${over(n)}`, match: (e) => e.cluster && e.model === m && e.nServers === n })))]
}

/**
 * The headline section: sync/async at each nServers × nClients and each cluster's speed-up.
 * @param {object} results from readResults
 * @param {object[]} cells the main cells (no A/A) from summariseCells
 * @param {{ kinds: object[], speedups: object[], band: object|null }} analysis from report/analysis.js
 * @returns {object} markup (html``)
 */
function headlineSection (results, cells, { kinds, speedups, band }) {
  const title = html`<h2 id="verdicts">Sync vs async: how sure we are</h2>`
  if (kinds.length + speedups.length === 0) {
    return html`<section>${title}<p class="note">Nothing to compare: this folder has no sync and
      async pair and no cluster with its single-process kind.</p></section>`
  }
  const cores = results.env.cpus
  const floor = noisePercent(band)
  // With two async APIs in the folder, rows say which one the sync side is set against.
  const apis = new Set(kinds.map((e) => e.api))
  const withApi = (e, text) => (apis.size > 1 && e.api ? `${text}, async ${e.api}` : text)
  const group = (g) => {
    const some = kinds.filter((e) => e.settings === g)
    const gains = speedups.filter((e) => e.settings === g)
    return html`${g && html`<h3>${g}</h3>`}
    ${some.length > 0 && html`<p class="caption">Sync over async (above 1: sync is faster), by
      nClients and process count</p>
      ${matrix('verdicts', some, (e) => withApi(e, String(e.load)), 'nClients', clusterColumns(kinds, cores), 'sync', 'async', band)}`}
    ${gains.length > 0 && html`<p class="caption">Cluster speed-up: a cluster over the same kind in
      one process, same nClients</p>
      ${matrix('speedups', gains, (e) => withApi(e, `${KINDS[e.kind].store}, nClients ${e.load}`),
        'kind', clusterColumns(speedups, cores), 'cluster', 'single process', band)}`}`
  }
  return html`<section>${title}
    <p>Each entry is a throughput ratio taken within each round (the two cells ran in the same
    shuffled round, so a slow moment of the machine that hit both cancels), summarised by the
    median over the rounds and an interval. ${band ? html`A verdict is given only when the
    interval clears the A/A noise band (${floor}%: ${fixed(band.low, 2)}–${fixed(band.high, 2)}),
    otherwise it says <em>within noise</em>.` : html`This folder has no A/A cell: a verdict is
    given when the interval leaves out 1, otherwise it says <em>no clear difference</em>.`}
    ⚠ marks a comparison with a client-bound cell: it measures the load generator. † marks
    nServers above the ${cores} cores.</p>
    ${[...new Set(cells.map((c) => c.variant))].map(group)}
    <p class="note">How wide these intervals are: ${roundsNote([...kinds, ...speedups].map((e) => e.ratio))}.
    More rounds (<code>--repeats=N</code>) narrow them.</p>
    </section>`
}

/**
 * The A/A section: one configuration run as two labelled cells; '' when the folder has none.
 * @returns {object|string} markup (html``)
 */
function noiseSection (pairs, band) {
  if (pairs.length === 0) return ''
  const floor = noisePercent(band)
  const median = (cell) => (cell?.ci.opsPerSec ? fixed(cell.ci.opsPerSec.median, 0) : '–')
  const row = ({ a, b, ratio: r }) => html`<tr><td>${a.id}</td><td>${b ? b.id : 'missing'}</td>
    <td>${a.kind}</td><td class="num">${a.nServers}</td><td class="num">${a.load}</td>
    ${a.variant && html`<td>${a.variant}</td>`}<td class="num">${median(a)}</td><td class="num">${median(b)}</td>
    ${b ? ratioCell(r, a.aa, b.aa, null) : html`<td class="none">no pair</td>`}</tr>`
  return html`<section><h2 id="noise">Noise floor (A/A)</h2>
    <p>${floor === null ? 'The A/A cells have too few valid repeats for an interval.'
      : html`<strong>The same configuration differed by up to ${floor}% between labelled
      variants</strong> (the far end of the interval of their per-round throughput ratio, either
      way round; ${roundsNote(pairs.map((p) => p.ratio))}).`}
    The A/A cells run one configuration twice under the labels A and B, interleaved with the
    other cells, so their ratio should be 1: whatever it spans is the noise floor of this machine
    and harness. A difference between kinds inside it is not evidence. A/A cells are left out of
    every other chart, median and comparison.</p>
    <div class="scroll"><table class="noise"><thead><tr><th>cell A</th><th>cell B</th><th>kind</th>
    <th>nServers</th><th>nClients</th>${pairs[0].a.variant && html`<th>settings</th>`}
    <th>A median ops/s</th><th>B median ops/s</th><th>A / B</th></tr></thead>
    <tbody>${pairs.map(row)}</tbody></table></div></section>`
}

module.exports = { headlineSection, noiseSection, CLIENT_BOUND }
