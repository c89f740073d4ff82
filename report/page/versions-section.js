'use strict'
// The runtimes comparison (report/stats/versions.js) as a report section and as a Markdown file to quote in
// docs: versions.md for Node versions, runtimes.md when Bun or Deno ran. Both come from one list of tables, so
// they always agree.

const { html } = require('../../lib/html-template')
const { KINDS, modelLabel, isMultiProcess } = require('../../lib/kinds')
const { overBase, versionVerdict, pairsOf } = require('../stats/versions')
const { settingsLabel } = require('../stats/comparisons')

const n0 = (x) => Math.round(x).toLocaleString('en-US')
const n2 = (x) => x.toFixed(2)
const interval = (ci) => (ci ? `${n0(ci.median)} [${n0(ci.low)}–${n0(ci.high)}]` : '–')
const ratioText = (r) => (r ? `${n2(r.estimate)}× [${n2(r.low)}–${n2(r.high)}]` : '–')

// A group's process counts: the one-process kinds sit beside the multi-process ones of a setting.
function serversOf (g) {
  const counts = [...new Set(g.kinds.map((k) => (isMultiProcess(k) ? g.nServers : 1)))].sort((a, b) => a - b)
  return `nServers ${counts.join(' and ')}`
}

/** Whether only Node ran: the tables then name versions (v26.10.0) and V8 alone, as before Bun and Deno. */
const nodeOnly = ({ versions }) => versions.every((v) => v.name === 'node')

/**
 * The comparison as tables and findings (plain text cells).
 * @param {{ versions: object[], base: string, groups: object[], findings: object[] }} analysis from compareVersions
 * @returns {{ tables: { title: string, head: string[], rows: string[][] }[], findings: string[] }}
 */
function versionTables (analysis) {
  const { versions, base, groups, findings } = analysis
  const only = nodeOnly(analysis)
  const name = (v) => (only ? v.version : v.label)
  const baseName = name(versions.find((v) => v.id === base))
  const tables = groups.map((g) => {
    const pairs = pairsOf(g)
    const head = [...(only ? ['Node', 'V8', 'libuv', 'line'] : ['runtime', 'engine', 'libuv', 'Node line']),
      ...g.kinds.map((k) => `${k} ops/s [95% CI]`),
      ...pairs.map(([a, b]) => `${a}/${b}`), ...g.kinds.map((k) => `${k} server CPU µs/req`),
      ...pairs.map(([a, b]) => `${b}/${a} CPU per request`),
      ...g.kinds.map((k) => `${k} over ${baseName}`), ...g.kinds.map((k) => `${k} CPU per request over ${baseName}`)]
    const rows = versions.map((v) => {
      const cells = g.byVersion[v.id] || {}
      const isBase = v.id === base
      return [name(v), only ? v.v8 : v.engine, v.uv, v.status || '–', ...g.kinds.map((k) => interval(cells[k]?.ci.opsPerSec)),
        ...pairs.map(([a, b]) => finding(g, a, b, 'opsPerSec', v.id)),
        ...g.kinds.map((k) => { const c = cells[k]?.telemetry.serverCpuPerReqUs; return c == null ? '–' : n0(c) }),
        ...pairs.map(([a, b]) => finding(g, a, b, 'serverCpuPerReqUs', v.id)),
        ...g.kinds.map((k) => (isBase ? '1' : speedup(overBase(g, base, v.id, k), `${name(v)} faster`, `${baseName} faster`))),
        ...g.kinds.map((k) => (isBase ? '1' : speedup(overBase(g, base, v.id, k, 'serverCpuPerReqUs'), `${baseName} cheaper`, `${name(v)} cheaper`)))]
    })
    const title = `${serversOf(g)}, nClients ${g.load}${g.rest ? `, ${words(g.rest)}` : ''}`
    return { title, head, rows }
  })
  function finding (g, a, b, column, id) {
    const f = findings.find((x) => x.group === g && x.a === a && x.b === b && x.measure.column === column)
    const p = f.per.find((x) => x.id === id)
    return p.ratio ? `${ratioText(p.ratio)} ${p.verdict.text}` : '–'
  }
  const every = (f) => (f.over.length === versions.length ? (only ? 'version' : 'runtime') : 'supported line')
  const lines = findings.map((f) => {
    const [x, y] = f.names
    const models = KINDS[f.a].model === KINDS[f.b].model
      ? modelLabel(f.a, f.group.nServers).replace(/^1 process$/, 'one process').replace(/^cluster of .*/, 'cluster').replace(/.*reusePort.*/, 'reusePort')
      : `${modelLabel(f.a, f.group.nServers)} vs ${modelLabel(f.b, KINDS[f.b].model === 'single' ? 1 : f.group.nServers)}`
    const n = [f.a, f.b].some(isMultiProcess) ? f.group.nServers : 1
    const what = `${f.measure.swap ? `${y} over ${x}` : `${x} over ${y}`} in ${f.measure.name} ` +
      `(${models}, nServers ${n}, nClients ${f.group.load}${f.group.rest ? `, ${words(f.group.rest)}` : ''})`
    const short = (label) => (only ? label.replace(/^Node /, '') : label)
    if (f.holds) return `${what}: ${f.verdict} on every ${every(f)} (${f.over.map(short).join(', ')})`
    const per = f.per.map((p) => `${short(p.label)} ${p.ratio ? ratioText(p.ratio) : ''} ${p.verdict.text}`.replace(/\s+/g, ' '))
    return `${what}: not the same clear verdict on every ${every(f)}: ${per.join('; ')}`
  })
  return { tables: only ? tables : [...runtimeSummary(analysis), ...tables], findings: lines }
}

// A group's other settings in the report's words: "ioDelay=1000, storage=delay" is "1 ms storage".
const words = (rest) => settingsLabel(rest) || rest

/**
 * The runtime table's two short tables, before the long ones: each comparison's throughput ratio on each runtime, and each
 * kind's ops/s, server CPU per request and throughput over Node's on each runtime.
 * @returns {{ title: string, head: string[], rows: string[][] }[]}
 */
function runtimeSummary ({ versions, base, groups, findings }) {
  const baseLabel = versions.find((v) => v.id === base).label
  const where = (g) => (g.rest ? `, ${words(g.rest)}` : '')
  const verdicts = {
    title: 'Throughput ratios within each runtime (95% interval, verdict)',
    head: ['comparison', ...versions.map((v) => v.label)],
    rows: findings.filter((f) => f.measure.column === 'opsPerSec').map((f) => [`${f.a}/${f.b}${where(f.group)}`,
      ...f.per.map((p) => (p.ratio ? `${ratioText(p.ratio)} ${p.verdict.text}` : '–'))])
  }
  const seen = new Set()
  const kinds = groups.flatMap((g) => g.kinds.map((k) => [g, k])).filter(([g, k]) => !seen.has(`${k}|${g.rest}`) && seen.add(`${k}|${g.rest}`))
  const perKind = {
    title: `Each kind on each runtime: ops/s (median), server CPU µs per request, throughput over ${baseLabel}`,
    head: ['kind', ...versions.map((v) => v.label)],
    rows: kinds.map(([g, k]) => [`${k}${where(g)}`, ...versions.map((v) => {
      const cell = g.byVersion[v.id]?.[k]
      if (!cell?.ci.opsPerSec) return '–'
      const cpu = cell.telemetry.serverCpuPerReqUs
      const over = v.id === base ? '' : ` · ${speedup(overBase(g, base, v.id, k), `${v.label} faster`, `${baseLabel} faster`)}`
      return `${n0(cell.ci.opsPerSec.median)} · ${cpu == null ? '–' : n0(cpu)} µs${over}`
    })])
  }
  return [verdicts, perKind]
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
  const only = nodeOnly(analysis)
  return html`<section><h2>${only ? 'Node versions' : 'Runtimes'}</h2>
    <p>The same cells on each ${only ? 'Node version' : 'runtime'} (the server and its workers ran on it; every client
    ran on one Node, so the load generator's cost does not change with it). Throughput
    is the median of the valid rounds with its order-statistic interval (95% or more from 6 rounds
    on; with fewer, the lowest to the highest round). Each ratio (sync over async, a ${only ? 'version over the oldest' : 'runtime over Node'})
    is taken within each round and summarised over the rounds by its Hodges–Lehmann
    estimate with Wilcoxon's signed-rank interval at 95%: faster or slower when that interval
    leaves out 1, the same when it lies within ±5%, else undecided. The line status is the Node
    release line's on the day of the run; findings are judged on the supported LTS lines${only ? '' : ' and the other runtimes'} when the
    folder has any.${only ? '' : ' A runtime\'s cluster need not be Node\'s: the environment says how each one\'s processes shared the port.'}</p>
    <ul class="findings">${findings.map((f) => html`<li>${f}</li>`)}</ul>
    ${tables.map((t) => html`<p class="caption">${t.title}</p><div class="scroll"><table class="versions">
      <thead><tr>${t.head.map((h) => html`<th>${h}</th>`)}</tr></thead>
      <tbody>${t.rows.map((r) => html`<tr>${r.map((c, i) => (i < 4 ? html`<td>${c}</td>` : html`<td class="num">${c}</td>`))}</tr>`)}</tbody>
      </table></div>`)}</section>`
}

/**
 * The Markdown file's name: versions.md for Node versions, runtimes.md when another runtime ran.
 * @param {object} analysis from compareVersions
 * @returns {string}
 */
const versionsFile = (analysis) => (nodeOnly(analysis) ? 'versions.md' : 'runtimes.md')

/**
 * versions.md or runtimes.md: the tables and findings in Markdown, headed by how they were made.
 * @param {object} results from readResults
 * @param {object} analysis from compareVersions
 * @returns {string}
 */
function versionsMarkdown (results, analysis) {
  const { env } = results
  const { tables, findings } = versionTables(analysis)
  const row = (cells) => `| ${cells.join(' | ')} |`
  const sharing = nodeOnly(analysis) || !env.portSharing?.length ? [] : [`Port sharing, as seen in /proc: ${env.portSharing.join('; ')}.`, '']
  return [`# ${nodeOnly(analysis) ? 'Node versions' : 'Runtimes'} compared: ${env.startedAt?.slice(0, 10) ?? ''}`, '',
    `Command: \`./run_benchmark.sh ${(env.argv || []).join(' ')}\` · ${env.cpus} cores (${env.cpuModel}) · ` +
    `client on Node ${env.options?.clientNode?.node ?? env.node} · seed ${env.seed}` +
    (env.loadAverage ? ` · load average ${env.loadAverage.join(', ')} at the start` : '') +
    (analysis.groups.some((g) => g.nServers > env.cpus) ? ` · more than ${env.cpus} serving processes or threads measure oversubscription` : ''), '',
    ...sharing, ...findings.map((f) => `- ${f}`), '',
    ...tables.flatMap((t) => [`## ${t.title}`, '', row(t.head), row(t.head.map(() => '---')), ...t.rows.map(row), ''])].join('\n')
}

module.exports = { versionsSection, versionsMarkdown, versionsFile }
