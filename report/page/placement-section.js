'use strict'
// Where the processes ran, as answers and a section: HAProxy against node:cluster, split cores against
// shared ones, and sync/async by round trip (report/stats/placement.js compares them). Used by report/page/page.js.

const { html } = require('../../lib/html-template')
const { formatRatio, verdictOf, fixed } = require('../stats/verdicts')

const n0 = (x) => (x == null ? '–' : Math.round(x).toLocaleString('en-US'))

const where = (e) => `×${e.nServers ?? e.lb.nServers}, nClients ${e.load ?? e.lb.load}${(e.settings ?? e.lb.variant) ? `, ${e.settings ?? e.lb.variant}` : ''}`

/**
 * The answers, one sentence per comparison that has a ratio.
 * @param {{ balancers, cores, rtts }} placement from comparePlacement
 * @returns {string[]}
 */
function placementAnswers ({ balancers, cores, rtts }) {
  const lines = []
  for (const b of balancers.filter((e) => e.ratio)) {
    const [verdict] = verdictOf(b.ratio, 'HAProxy', 'cluster')
    lines.push(`${b.lb.kind} over ${b.cluster.kind} (${where(b)}): ${formatRatio(b.ratio)}, ${verdict}; ` +
      `HAProxy spent ${b.balancerUs == null ? '?' : fixed(b.balancerUs, 0)} µs of CPU per request` +
      `, fairness ${fixed(b.lb.telemetry.fairness ?? NaN, 2)} against ${fixed(b.cluster.telemetry.fairness ?? NaN, 2)}.`)
  }
  for (const c of cores.filter((e) => e.ratio)) {
    lines.push(`${c.kind} on split cores over shared (${where(c)}): ${formatRatio(c.ratio)}, ${verdictOf(c.ratio, 'split', 'shared')[0]}.`)
  }
  const groups = new Map()
  for (const r of rtts.filter((e) => e.ratio)) {
    const key = [r.settings, r.model, r.nServers, r.load, r.api].join('|')
    groups.set(key, [...(groups.get(key) ?? []), r])
  }
  for (const some of groups.values()) {
    const r = some[0]
    lines.push(`sync/async (${r.model}${r.api ? `, async ${r.api}` : ''}, ${where(r)}) by round trip: ` +
      `${some.map((e) => `${e.rtt} ms ${formatRatio(e.ratio)}`).join('; ')}.`)
  }
  return lines
}

/**
 * The section; '' when the folder has none of these comparisons.
 * @param {{ balancers, cores, rtts }} placement from comparePlacement
 * @returns {object|string} markup
 */
function placementSection (placement) {
  const { balancers, cores, rtts } = placement
  if (balancers.length + cores.length + rtts.length === 0) return ''
  const answers = placementAnswers(placement)
  const ratioCell = (r, up, down) => (r
    ? html`<td>${formatRatio(r)}<br><span class="verdict">${verdictOf(r, up, down)[0]}</span></td>`
    : html`<td class="empty">–</td>`)
  const rttHeads = ['model', 'nServers', 'nClients', 'settings', 'rtt ms', 'sync / async']
  return html`<section id="placement"><h2>Balancer, cores and round trips</h2>
    ${answers.length > 0 ? html`<ul class="answers">${answers.map((a) => html`<li>${a}</li>`)}</ul>` : html`<p>No comparison has a valid pair yet.</p>`}
    ${balancers.length > 0 && html`<h3>HAProxy in front of single-process servers, against node:cluster</h3>
    <p>Throughput is the median of the valid repeats; the ratio is taken within each round. HAProxy
    spreads requests, node:cluster spreads connections; its CPU per request is what the balancer costs
    (it is also in the server's CPU per request).</p>
    <div class="scroll"><table><thead><tr><th>kind</th><th>balance</th><th>nServers</th><th>nClients</th><th>settings</th>
    <th>ops/s</th><th>cluster ops/s</th><th>GET p99 µs</th><th>cluster GET p99 µs</th><th>fairness</th><th>cluster fairness</th>
    <th>HAProxy µs/req</th><th>server µs/req</th><th>balancer / cluster</th></tr></thead><tbody>
    ${balancers.map((b) => html`<tr><td>${b.lb.kind}</td><td>${b.balance}</td><td class="num">${b.lb.nServers}</td><td class="num">${b.lb.load}</td>
      <td>${b.lb.variant}</td><td class="num">${n0(b.lb.ci.opsPerSec?.median)}</td><td class="num">${n0(b.cluster?.ci.opsPerSec?.median)}</td>
      <td class="num">${n0(b.lb.ci.getP99?.median)}</td><td class="num">${n0(b.cluster?.ci.getP99?.median)}</td>
      <td class="num">${b.lb.telemetry.fairness?.toFixed(3) ?? '–'}</td><td class="num">${b.cluster?.telemetry.fairness?.toFixed(3) ?? '–'}</td>
      <td class="num">${n0(b.balancerUs)}</td><td class="num">${n0(b.lb.telemetry.serverCpuPerReqUs)}</td>
      ${ratioCell(b.ratio, 'HAProxy', 'cluster')}</tr>`)}</tbody></table></div>`}
    ${cores.length > 0 && html`<h3>Split cores against shared ones</h3>
    <p>split pins the server side (with HAProxy) and the client to disjoint cores; shared leaves both to the scheduler.</p>
    <div class="scroll"><table><thead><tr><th>kind</th><th>nServers</th><th>nClients</th><th>settings</th><th>split ops/s</th>
    <th>shared ops/s</th><th>split / shared</th></tr></thead><tbody>
    ${cores.map((c) => html`<tr><td>${c.kind}</td><td class="num">${c.nServers}</td><td class="num">${c.load}</td><td>${c.settings}</td>
      <td class="num">${n0(c.split.ci.opsPerSec?.median)}</td><td class="num">${n0(c.shared.ci.opsPerSec?.median)}</td>
      ${ratioCell(c.ratio, 'split', 'shared')}</tr>`)}</tbody></table></div>`}
    ${rtts.length > 0 && html`<h3>The sync/async ratio by round trip</h3>
    <p>Above 1 sync is faster. A round trip adds the same wait to every request of both kinds, so
    it pulls the ratio towards 1 unless the server, not the network, sets the pace.</p>
    <div class="scroll"><table><thead><tr>${rttHeads.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>
    ${rtts.map((r) => html`<tr><td>${r.model}</td><td class="num">${r.nServers}</td><td class="num">${r.load}</td><td>${r.settings}</td>
      <td class="num">${r.rtt}</td>${ratioCell(r.ratio, 'sync', 'async')}</tr>`)}</tbody></table></div>`}
    </section>`
}

module.exports = { placementAnswers, placementSection }
