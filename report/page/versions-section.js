'use strict'
// The Node-versions comparison (report/stats/versions.js) as a report section and as versions.md,
// a Markdown file to quote in docs. Both come from one list of tables, so they always agree.

const { html } = require('../../lib/html-template')
const { KINDS } = require('../../lib/kinds')
const { overOldest, versionVerdict, pairsOf } = require('../stats/versions')

const n0 = (x) => Math.round(x).toLocaleString('en-US')
const n2 = (x) => x.toFixed(2)
const interval = (ci) => (ci ? `${n0(ci.median)} [${n0(ci.low)}–${n0(ci.high)}]` : '–')
const ratioText = (r) => (r ? `${n2(r.estimate)}× [${n2(r.low)}–${n2(r.high)}]` : '–')
const MODEL = { single: 'one process', cluster: 'cluster', reuseport: 'reusePort' }

/**
 * The comparison as tables and findings (plain text cells).
 * @param {{ versions: object[], groups: object[], findings: object[] }} analysis from compareVersions
 * @returns {{ tables: { title: string, head: string[], rows: string[][] }[], findings: string[] }}
 */
function versionTables ({ versions, groups, findings }) {
  const oldest = versions[0].node
  const tables = groups.map((g) => {
    const pairs = pairsOf(g)
    const head = ['Node', 'V8', 'libuv', 'line', ...g.kinds.map((k) => `${k} ops/s [95% CI]`),
      ...pairs.map(([a, b]) => `${a}/${b}`), ...g.kinds.map((k) => `${k} server CPU µs/req`),
      ...pairs.map(([a, b]) => `${b}/${a} CPU per request`),
      ...g.kinds.map((k) => `${k} over ${oldest}`), ...g.kinds.map((k) => `${k} CPU per request over ${oldest}`)]
    const rows = versions.map((v) => {
      const cells = g.byVersion[v.node] || {}
      return [v.node, v.v8, v.uv, v.status, ...g.kinds.map((k) => interval(cells[k]?.ci.opsPerSec)),
        ...pairs.map(([a]) => finding(g, a, 'opsPerSec', v.node)),
        ...g.kinds.map((k) => { const c = cells[k]?.telemetry.serverCpuPerReqUs; return c == null ? '–' : n0(c) }),
        ...pairs.map(([a]) => finding(g, a, 'serverCpuPerReqUs', v.node)),
        ...g.kinds.map((k) => (v.node === oldest ? '1' : speedup(overOldest(g, versions, v.node, k), `${v.node} faster`, `${oldest} faster`))),
        ...g.kinds.map((k) => (v.node === oldest
          ? '1'
          : speedup(overOldest(g, versions, v.node, k, 'serverCpuPerReqUs'), `${oldest} cheaper`, `${v.node} cheaper`)))]
    })
    const title = `nServers ${g.nServers}, nClients ${g.load}${g.rest ? `, ${g.rest}` : ''}`
    return { title, head, rows }
  })
  function finding (g, a, column, node) {
    const f = findings.find((x) => x.group === g && x.a === a && x.measure.column === column)
    const p = f.per.find((x) => x.node === node)
    return p.ratio ? `${ratioText(p.ratio)} ${p.verdict.text}` : '–'
  }
  const lines = findings.map((f) => {
    const what = `${f.measure.swap ? `${f.b} over ${f.a}` : `${f.a} over ${f.b}`} in ${f.measure.name} ` +
      `(${MODEL[KINDS[f.a].model]}, nServers ${f.group.nServers}, nClients ${f.group.load}${f.group.rest ? `, ${f.group.rest}` : ''})`
    if (f.holds) return `${what}: ${f.verdict} on every ${f.over.length === versions.length ? 'version' : 'supported line'} (${f.over.join(', ')})`
    const per = f.per.map((p) => `${p.node} ${p.ratio ? ratioText(p.ratio) : ''} ${p.verdict.text}`.replace(/\s+/g, ' '))
    return `${what}: not the same clear verdict on every ${f.over.length === versions.length ? 'version' : 'supported line'}: ${per.join('; ')}`
  })
  return { tables, findings: lines }
}

function speedup (r, above, below) {
  if (!r) return '–'
  return `${ratioText(r)} ${versionVerdict(r, above, below).text}`
}

/**
 * The report section.
 * @param {object} analysis from compareVersions
 * @returns {object} markup (html``)
 */
function versionsSection (analysis) {
  const { tables, findings } = versionTables(analysis)
  return html`<section><h2>Node versions</h2>
    <p>The same cells on each Node version (the server and its workers ran on it; every client
    ran on one Node, so the load generator's cost does not change with the version). Throughput
    is the median of the valid rounds with its order-statistic interval (95% or more from 6 rounds
    on; with fewer, the lowest to the highest round). Each ratio (sync over async, a version over
    the oldest) is taken within each round and summarised over the rounds by its Hodges–Lehmann
    estimate with Wilcoxon's signed-rank interval at 95%: faster or slower when that interval
    leaves out 1, the same when it lies within ±5%, else undecided. The line status is the Node
    release line's on the day of the run; findings are judged on the supported LTS lines when the
    folder has any.</p>
    <ul class="findings">${findings.map((f) => html`<li>${f}</li>`)}</ul>
    ${tables.map((t) => html`<p class="caption">${t.title}</p><div class="scroll"><table class="versions">
      <thead><tr>${t.head.map((h) => html`<th>${h}</th>`)}</tr></thead>
      <tbody>${t.rows.map((r) => html`<tr>${r.map((c, i) => (i < 4 ? html`<td>${c}</td>` : html`<td class="num">${c}</td>`))}</tr>`)}</tbody>
      </table></div>`)}</section>`
}

/**
 * versions.md: the tables and findings in Markdown, headed by how they were made.
 * @param {object} results from readResults
 * @param {object} analysis from compareVersions
 * @returns {string}
 */
function versionsMarkdown (results, analysis) {
  const { env } = results
  const { tables, findings } = versionTables(analysis)
  const row = (cells) => `| ${cells.join(' | ')} |`
  return [`# Node versions compared: ${env.startedAt?.slice(0, 10) ?? ''}`, '',
    `Command: \`./run_benchmark.sh ${(env.argv || []).join(' ')}\` · ${env.cpus} cores (${env.cpuModel}) · ` +
    `client on Node ${env.options?.clientNode?.node ?? env.node} · seed ${env.seed}` +
    (env.loadAverage ? ` · load average ${env.loadAverage.join(', ')} at the start` : ''), '',
    ...findings.map((f) => `- ${f}`), '',
    ...tables.flatMap((t) => [`## ${t.title}`, '', row(t.head), row(t.head.map(() => '---')), ...t.rows.map(row), ''])].join('\n')
}

module.exports = { versionsSection, versionsMarkdown }
