'use strict'
// The scaling model's section (report/stats/usl-fit.js): the USL chart(s) and a table of λ, σ, κ, R² and the
// predicted peak per cluster kind and nClients. Used by report/page/page.js.

const { html, raw } = require('../../lib/html-template')
const { fixed } = require('../stats/verdicts')

function formatPeak (fit, nMax, cores) {
  if (fit.peakN === Infinity) return 'no peak (κ = 0)'
  if (fit.peakN <= 1) return '1: every added process costs throughput'
  const where = fit.peakN > nMax ? ', beyond the measured range' : ''
  const over = fit.peakN > cores ? ', oversubscribed' : ''
  return `${fixed(fit.peakN, 1)}${where}${over}`
}

const precise = (x) => (x === 0 ? '0' : x.toPrecision(3))

/**
 * The USL section: charts, table and caveats; a one-line note when nothing could be fitted.
 * @param {object} results from readResults
 * @param {object[]} fits from fitScaling
 * @param {{ title: string, svg: string }[]} charts the charts of section 'usl'
 * @returns {object} markup (html``)
 */
function uslSection (results, fits, charts) {
  const cores = results.env.cpus
  const fitted = fits.filter((f) => f.fit)
  const skipped = fits.filter((f) => !f.fit)
  const settings = fitted.some((f) => f.settings)
  const row = ({ settings: s, kind, load, points, levels, fit }) => {
    const nMax = Math.max(...points.map((p) => p.n))
    return html`<tr>${settings && html`<td>${s}</td>`}<td>${kind}</td><td class="num">${load}</td>
      <td class="num">${levels} (${points.length} runs)</td><td class="num">${fixed(fit.lambda, 0)}</td>
      <td class="num">${fixed(fit.sigma, 3)}</td><td class="num">${precise(fit.kappa)}</td>
      <td class="num">${fixed(fit.r2, 3)}</td><td class="num">${formatPeak(fit, nMax, cores)}</td></tr>`
  }
  if (fitted.length === 0) {
    const levels = Math.max(0, ...fits.map((f) => f.levels))
    const why = fits.length === 0 ? 'no cluster kind was run'
      : `the cluster kinds ran at ${levels === 1 ? 'a single value' : `only ${levels} values`} of nServers`
    return html`<section><h2>Scaling model (USL)</h2><p class="note">No USL fit: ${why}; a fit
      needs valid repeats at 3 or more values of nServers.</p></section>`
  }
  const notFitted = skipped.length > 0 && html`<p class="note">Not fitted (fewer than 3 values of
    nServers): ${skipped.map((f) => `${f.kind} at nClients ${f.load}${f.settings && ` (${f.settings})`}`)
    .join(', ')}.</p>`
  return html`<section><h2>Scaling model (USL)</h2>
    <p>For each cluster kind and nClients the Universal Scalability Law,
    X(N) = λN / (1 + σ(N−1) + κN(N−1)), is fitted by least squares to the throughput of every
    valid repeat against N = nServers. λ is the throughput of one process (ops/s), σ the
    contention (the part of the work that serialises), κ the coherency cost (crosstalk between
    processes); the predicted peak is at N = √((1−σ)/κ), none when κ = 0.</p>
    <p class="note"><strong>Beyond the ${cores} cores the curve measures oversubscription</strong>
    (processes taking turns on the cores and with the load generator), not how the server
    scales. With only 3 values of nServers a fit of 3 parameters passes (nearly) through the
    mean at each one by construction, so R² says little and the parameters are indicative only.</p>
    ${charts.map((c) => html`<figure aria-label="${c.title}">${raw(c.svg)}</figure>`)}
    <div class="scroll"><table class="usl"><thead><tr>${settings && html`<th>settings</th>`}
    <th>kind</th><th>nClients</th><th>nServers values</th><th>λ (ops/s per process)</th>
    <th>σ</th><th>κ</th><th>R²</th><th>predicted peak N</th></tr></thead>
    <tbody>${fitted.map(row)}</tbody></table></div>${notFitted}</section>`
}

module.exports = { uslSection }
