'use strict'
// The report's analysis sections: sync vs async and cluster speed-up verdicts with intervals,
// the A/A noise floor, and the USL fits. Used by sweep/report-html.js.

const { html } = require('./html-template')
const { KINDS } = require('../lib/kinds')

const MODEL_ORDER = ['cluster', 'reuseport']

const CLIENT_BOUND = html` <span class="bound" title="client-bound: the load generator, not the server, was the limit">⚠</span>`
/** x with exactly `digits` decimals and thousands separators, e.g. fixed(1234.5, 1) is "1,234.5". */
const fixed = (x, digits) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

// "1.23× [1.10–1.37]"
function formatRatio (r) {
  return `${fixed(r.estimate, 2)}× [${fixed(r.low, 2)}–${fixed(r.high, 2)}]`
}

// A ratio's verdict and its CSS class: faster, slower, no clear difference, or one repeat.
function verdict (r, faster, slower) {
  if (r.few) return ['one repeat: no interval', 'none']
  if (!r.clear) return ['no clear difference', 'none']
  return r.low > 1 ? [`${faster} faster`, 'up'] : [`${slower} faster`, 'down']
}

function ratioCell (r, faster, slower) {
  if (!r) return html`<td class="none">no valid repeat</td>`
  const [text, tone] = verdict(r, faster, slower)
  return html`<td class="${tone}"><span class="ratio">${formatRatio(r)}</span>${(r.a.clientBound ||
    r.b.clientBound) && CLIENT_BOUND}<br><span class="verdict">${text}</span></td>`
}

// One matrix: a row per key, a column per nServers.
function matrix (name, entries, rowKey, rowHead, columns, faster, slower) {
  const keys = [...new Set(entries.map(rowKey))]
  const at = (key, col) => entries.find((e) => rowKey(e) === key && col.match(e))
  return html`<table class="${name}"><thead><tr><th>${rowHead}</th>
    ${columns.map((c) => html`<th>${c.head}</th>`)}</tr></thead><tbody>
    ${keys.map((key) => html`<tr><th>${key}</th>${columns.map((col) => {
      const e = at(key, col)
      return e ? ratioCell(e.ratio, faster, slower) : html`<td class="empty">–</td>`
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

// How much faster one A/A label can be than the other, in %: the far end of the ratio intervals,
// read both ways (A/B at 0.8 is B 25% faster).
function noisePercent (pairs) {
  const spans = pairs.filter((p) => p.ratio && !p.ratio.few)
    .map(({ ratio: r }) => Math.max(r.high, 1 / r.low) - 1)
  return spans.length > 0 ? Math.round(Math.max(...spans) * 100) : null
}

/**
 * The headline section: sync/async at each nServers × nClients and each cluster's speed-up.
 * @param {object} results from readResults
 * @param {object[]} cells the main cells (no A/A) from summariseCells
 * @param {{ kinds: object[], speedups: object[], noise: object[] }} analysis from report-compare.js
 * @returns {object} markup (html``)
 */
function headlineSection (results, cells, { kinds, speedups, noise }) {
  const title = html`<h2>Sync vs async: how sure we are</h2>`
  if (kinds.length + speedups.length === 0) {
    return html`<section>${title}<p class="note">Nothing to compare: this folder has no sync and
      async pair and no cluster with its single-process kind.</p></section>`
  }
  const counts = cells.map((c) => c.valid.length)
  const [few, many] = [Math.min(...counts), Math.max(...counts)]
  const cores = results.env.cpus
  const floor = noisePercent(noise)
  // With two async APIs in the folder, rows say which one the sync side is set against.
  const apis = new Set(kinds.map((e) => e.api))
  const withApi = (e, text) => (apis.size > 1 && e.api ? `${text}, async ${e.api}` : text)
  const group = (g) => {
    const some = kinds.filter((e) => e.settings === g)
    const gains = speedups.filter((e) => e.settings === g)
    return html`${g && html`<h3>${g}</h3>`}
    ${some.length > 0 && html`<p class="caption">Sync over async (above 1: sync is faster), by
      nClients and process count</p>
      ${matrix('verdicts', some, (e) => withApi(e, String(e.load)), 'nClients', clusterColumns(kinds, cores), 'sync', 'async')}`}
    ${gains.length > 0 && html`<p class="caption">Cluster speed-up: a cluster over the same kind in
      one process, same nClients</p>
      ${matrix('speedups', gains, (e) => withApi(e, `${KINDS[e.kind].store}, nClients ${e.load}`),
        'kind', clusterColumns(speedups, cores), 'cluster', 'single process')}`}`
  }
  return html`<section>${title}
    <p>Each entry is a ratio of median throughput (ops/s over the valid repeats) with its 95%
    bootstrap interval; a verdict is given only when the interval leaves out 1, otherwise it
    says <em>no clear difference</em>. ⚠ marks a comparison with a client-bound cell: it
    measures the load generator. † marks nServers above the ${cores} cores.${floor !== null && html`
    The A/A cells put the noise floor at ${floor}%: a ratio between ${fixed(1 / (1 + floor / 100), 2)}
    and ${fixed(1 + floor / 100, 2)} is no more than one configuration differs from itself.`}</p>
    ${[...new Set(cells.map((c) => c.variant))].map(group)}
    <p class="note">How wide these intervals are: cells here have ${few === many ? few : `${few}–${many}`}
    valid repeat${many === 1 ? '' : 's'}, and the bootstrap can only recombine the repeats a cell
    has. Bootstrapping 2 values gives at most 4 distinct resamples (3 distinct medians), 3 values
    give 27; so with 1–3 repeats an interval is coarse, about as wide as the spread of the
    repeats, and with a single repeat it is one point and says nothing (<em>one repeat</em>).
    Read the verdicts as indicative; more repeats (<code>--repeats=10</code>) narrow them.</p>
    </section>`
}

/**
 * The A/A section: one configuration run as two labelled cells; '' when the folder has none.
 * @returns {object|string} markup (html``)
 */
function noiseSection (pairs) {
  if (pairs.length === 0) return ''
  const floor = noisePercent(pairs)
  const median = (cell) => (cell?.ci.opsPerSec ? fixed(cell.ci.opsPerSec.median, 0) : '–')
  const row = ({ a, b, ratio: r }) => html`<tr><td>${a.id}</td><td>${b ? b.id : 'missing'}</td>
    <td>${a.kind}</td><td class="num">${a.nServers}</td><td class="num">${a.load}</td>
    ${a.variant && html`<td>${a.variant}</td>`}<td class="num">${median(a)}</td><td class="num">${median(b)}</td>
    ${b ? ratioCell(r, a.aa, b.aa) : html`<td class="none">no pair</td>`}</tr>`
  return html`<section><h2>Noise floor (A/A)</h2>
    <p>${floor === null ? 'The A/A cells have too few valid repeats for an interval.'
      : html`<strong>The same configuration differed by up to ${floor}% between labelled
      variants</strong> (the far end of the 95% interval of their throughput ratio, either way
      round).`}
    The A/A cells run one configuration twice under the labels A and B, interleaved with the
    other cells, so their ratio should be 1: whatever it spans is the noise floor of this machine
    and harness. A difference between kinds inside it is not evidence. A/A cells are left out of
    every other chart, median and comparison.</p>
    <div class="scroll"><table class="noise"><thead><tr><th>cell A</th><th>cell B</th><th>kind</th>
    <th>nServers</th><th>nClients</th>${pairs[0].a.variant && html`<th>settings</th>`}
    <th>A median ops/s</th><th>B median ops/s</th><th>A / B</th></tr></thead>
    <tbody>${pairs.map(row)}</tbody></table></div></section>`
}

module.exports = { headlineSection, noiseSection, CLIENT_BOUND, fixed }
