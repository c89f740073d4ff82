'use strict'
// The report page: one self-contained HTML file (inline CSS and SVG, no script, nothing fetched).
// Used by report/index.js; every string from the results folder goes through html``.

const path = require('node:path')
const { html, raw } = require('../../lib/html-template')
const { tableOfMedians, summaryTable } = require('./tables')
const { firstScreen, matricesSection } = require('./sections')
const { runSection } = require('./run-section')
const { MAX_INTERFERENCE } = require('../../lib/machine/cpu-share')
const { fingerprintLine } = require('../../lib/machine/fingerprint')
const { ENV } = require('../../lib/results/dimensions')
const { uslSection } = require('./usl-section')
const { storageAnswerSection } = require('./answer-storage')
const { storageSection } = require('./storage-section')
const { threadpoolSection } = require('./threadpool-section')
const { fsApiSection } = require('../fsapi/section')
const { answersSection } = require('./answers')
const { versionsSection } = require('./versions-section')
const { modelsSection } = require('./models-section')
const { placementSection } = require('./placement-section')
const { whySection } = require('./why-section')
const { runtimeLabel } = require('../../lib/install/runtime-specs')

const CSS = `
body { margin: 0; background: #f6f7f9; color: #222; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 1060px; margin: 0 auto; padding: 24px 20px 60px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 36px 0 12px; padding-bottom: 4px; border-bottom: 2px solid #dde1e6; }
.lead { color: #555; margin: 0; }
.env { display: grid; grid-template-columns: max-content 1fr max-content 1fr; gap: 4px 16px; margin: 0; }
.env dt { color: #555; } .env dd { margin: 0; overflow-wrap: anywhere; }
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: #fff; border: 1px solid #dde1e6; padding: 10px; overflow-x: auto; }
details { margin-top: 12px; } summary { cursor: pointer; color: #2471a3; }
figure { margin: 0 0 20px; background: #fff; border: 1px solid #dde1e6; border-radius: 6px; padding: 8px; }
figure svg { display: block; max-width: 100%; height: auto; margin: 0 auto; }
.excluded { background: #fdecea; border-left: 4px solid #c0392b; padding: 8px 14px; margin: 20px 0 0; }
.excluded ul { margin: 4px 0; padding-left: 20px; }
.scroll { overflow-x: auto; background: #fff; border: 1px solid #dde1e6; }
table { border-collapse: collapse; background: #fff; font-size: 13px; }
th, td { padding: 4px 8px; border-bottom: 1px solid #e6e9ed; text-align: left; white-space: nowrap; }
th { background: #eef1f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.summary { font-size: 12px; }
tr.invalid td { background: #fdecea; color: #7b241c; }
tr.partial td { background: #fef9e7; }
.over { color: #a93226; font-weight: bold; }
h3 { font-size: 16px; margin: 20px 0 6px; }
.caption { margin: 16px 0 6px; font-weight: 600; }
.note { color: #444; font-size: 14px; }
.bound { color: #9a6700; font-weight: bold; }
table.verdicts td, table.matrix td { white-space: nowrap; line-height: 1.35; }
table.verdicts th, table.matrix th { vertical-align: top; }
.ratio { font-variant-numeric: tabular-nums; }
.verdict { font-size: 12px; font-weight: 600; }
td.up { background: #fbeee6; } td.up .verdict { color: #a04000; }
td.down { background: #e8f1f8; } td.down .verdict { color: #1f618d; }
td.none .verdict { color: #666; } td.empty { color: #999; }
td.same { background: #eef6ee; } td.same .verdict { color: #3d7a3d; }
.alarm { background: #fdecea; border-left: 4px solid #c0392b; padding: 8px 14px; }
table.phases td:first-child { white-space: normal; }
ul.answers li { margin: 4px 0; }
ul.answers { padding-left: 20px; }
`

const section = (charts, name) => charts.filter((c) => c.section === name)

// Where the processes ran and on how many cores: this machine, or the hosts a run named (env.hosts).
function hostsLead (env) {
  const server = env.hosts?.find((h) => h.role === 'server')
  const clients = env.hosts?.filter((h) => h.role === 'client') ?? []
  if (!server && clients.length === 0) {
    return `${env.cpus} cores${env.cpus <= 2 ? ' (the load generator shares them with the servers; more than 2 server processes oversubscribe them)' : ''}`
  }
  const on = (h) => `${h.host} (${h.cores} cores)`
  return [server ? `servers on ${on(server)}` : `servers on this machine (${env.cpus} cores)`,
    clients.length > 0 ? `clients on ${clients.map(on).join(', ')}` : `clients on this machine (${env.cpus} cores)`].join(' · ')
}
const aaCount = (rows) => rows.filter((r) => r.variant).length

/**
 * Builds report.html.
 * @param {{ results: object, cells: object[], charts: { title: string, svg: string,
 *   section?: string }[], analysis?: object, flames?: string[] }} report cells without the A/A ones; analysis from
 *   report/index.js, for a sweep; flames: the flame graphs written, relative to the folder
 * @returns {string} the page
 */
function reportHtml ({ results, cells, charts, analysis, flames = [] }) {
  const { env, rows } = results
  const name = path.basename(path.resolve(results.dir))
  return `<!doctype html>\n${html`<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Benchmark report ${name}</title><style>${raw(CSS)}</style></head><body><main>
<header><h1>Sync vs async fs servers: ${env.command} results</h1>
<p class="lead">${name} · ${rows.length} rows in ${cells.length} cells${aaCount(rows) > 0 && ' and an A/A pair'} ·
${hostsLead(env)} · ${env.serverRuntimes.map(runtimeLabel).join(', ')}</p></header>
${analysis && firstScreen({ ...analysis, run: analysis.runNote }, section(charts, 'verdicts')[0])}
${analysis && storageAnswerSection(analysis.crossover, section(charts, 'crossover'), env)}
${analysis && storageSection(analysis.storage, env)}
${analysis?.pool && threadpoolSection(analysis.pool, section(charts, 'threadpool')[0])}
${analysis?.fsapi && fsApiSection(analysis.fsapi, section(charts, 'fsapi')[0])}
${analysis && answersSection(results, cells, analysis)}${analysis?.why && whySection(analysis.why, section(charts, 'why'), flames)}
${excludedRuns(results)}
${analysis && runSection(analysis.run, section(charts, 'run')[0], env.options?.maxInterference ?? MAX_INTERFERENCE)}
<section><h2>How to read this</h2>${howToRead(results)}</section>
${analysis && matricesSection(results, analysis)}
${analysis?.models && modelsSection(analysis.models)}
${analysis?.placement && placementSection(analysis.placement)}
${analysis?.versions && versionsSection(analysis.versions)}
<section><h2>Environment</h2>${environment(env)}</section>
<section><h2>Charts</h2>
${charts.filter((c) => !c.section || c.section === 'crossover')
  .map((c) => html`<figure id="${c.file}" aria-label="${c.title}">${raw(c.svg)}</figure>`)}</section>
${analysis && uslSection(results, analysis.fits, section(charts, 'usl'))}
${section(charts, 'candles').length > 0 && html`<section id="candles"><h2>Per client process: the historic candlesticks</h2>
<p>What the historic benchmark charted from its CSV: for each client process and operation, a candle
from the mean to 101% of the mean, with wicks to the minimum and maximum (µs, log scale), every valid round merged.</p>
${section(charts, 'candles').map((c) => html`<figure id="${c.file}" aria-label="${c.title}">${raw(c.svg)}</figure>`)}</section>`}
<section><h2>Medians per cell</h2>
<p>Medians of the valid repeats; throughput with the order-statistic interval of its median. A yellow
row lost some repeats.${cells.some((c) => c.clientBound) && html` ${CLIENT_BOUND_LEGEND}`}</p>
<div class="scroll">${tableOfMedians(results, cells)}</div></section>
<section><h2>All runs (summary.csv)</h2><div class="scroll">${summaryTable(results)}</div></section>
</main></body></html>`}\n`
}

const CLIENT_BOUND_LEGEND = html`<span class="bound">⚠</span> client-bound: in most valid
  repeats the load generator spent more CPU per request than the server while the server's
  event loops were under 0.8 utilization, so the cell measures the client more than the server.`

function excludedRuns ({ rows, load }) {
  const invalid = rows.filter((r) => !r.valid)
  if (invalid.length === 0) return ''
  return html`<aside class="excluded">
    <strong>${invalid.length} run(s) excluded from every median and chart</strong><ul>
    ${invalid.map((r) => html`<li>cell ${r.cell} (${r.kind}, nServers ${r.nServers},
      ${load} ${r[load]}${r.op && `, ${r.op}`}), repeat ${r.repeat}:
      ${r.reason || 'no reason given'}</li>`)}</ul></aside>`
}

function howToRead ({ format, env, columns }) {
  const shared = html`Figures are medians of the valid repeats; error bars span the slowest and
    fastest repeat, and invalid runs are left out (listed at the top if there are any, and
    highlighted in the last table). Dashed lines are the single-process servers, so a cluster
    line above them in throughput is a gain. The shaded band marks nServers above the
    ${env.cpus} cores: those cells are oversubscribed (marked † in the
    ${format === 'peak' ? '' : 'heat map and '}tables) and their server processes compete with
    each other and with the load generator for the CPU. On a machine this small the load
    generator always shares the cores with the server: compare kinds within this report, as
    ratios, not across machines.`
  if (format === 'peak') {
    return html`<p>Each cell is one server kind (sync or async fs; one process, node:cluster with
      nServers workers, or nServers processes sharing the port with reusePort) loaded with a fixed number of connections of GET /get or of
      POST /put requests, and repeated; higher req/s is better. ${shared}</p>`
  }
  return html`<p>Each cell is one server kind (sync or async fs; one process, node:cluster with
    nServers workers, or nServers processes sharing the port with reusePort) driven by nClients
    client processes, and repeated. In the runtime charts lower total time (s) and higher
    throughput (ops/s) are better. The latency spectra show, per nClients, the latency (µs) at
    every percentile of each kind's requests (all client processes and valid repeats merged) on a
    log axis of 1/(1−p), so 90%, 99%, 99.9% and 99.99% are evenly spaced; the same merged
    histograms are in <code>hgrm/</code> as HdrHistogram percentile-distribution files (values in
    ms). ${columns.includes('meanUtilization') && html`The
    event-loop chart shows how busy the servers' event loops were (utilization, 0–1: near 1 the
    server is the limit) and how late their timers fired (delay p99, µs). `}${shared}</p>
    <p>The verdicts state each sync vs async comparison, and what each process model buys, as a
    ratio taken within each round and summarised over the rounds (the Hodges–Lehmann estimate with
    its Wilcoxon signed-rank 95% interval): <em>faster</em> or <em>slower</em> when the interval
    leaves out 1, <em>the same</em> when it lies within the margin, <em>undecided</em> otherwise. The
    A/A pair (one configuration run as two cells) must come out the same; it calibrates the method.
    A scaling model (USL) is fitted to the cluster kinds. ⚠ marks a client-bound cell.</p>`
}

function environment (env) {
  // env.runtimes since the runtime dimension; env.nodes before it.
  const ran = env.runtimes ?? env.nodes?.map((n) => ({ ...n, id: `node-${n.node}` }))
  const engine = (r) => (r.id.startsWith('bun-') ? 'JavaScriptCore' : `V8 ${r.v8}${r.uv ? `, libuv ${r.uv}` : ''}`)
  const servers = ran?.map((r) => `${runtimeLabel(r.id)} (${engine(r)}; ${r.path})`).join('; ')
  const items = [['Node', env.node], ...(servers ? [['Server runtime', servers], ['Client Node', env.options?.clientNode?.node]] : []),
    ...(env.portSharing?.length ? [['Port sharing (seen in /proc)', env.portSharing.join('; ')]] : []),
    ['Cores', env.cpus], ['CPU model', env.cpuModel],
    ['Fingerprint (median µs [95% interval])', env.fingerprint && fingerprintLine(env.fingerprint)],
    ...(env.hosts ?? []).map((h) => [`${h.role === 'server' ? 'Server' : 'Client'} host`, `${h.host}: ${h.cores} cores, Node ${h.node}, ` +
      `${(h.freeMemBytes / 2 ** 30).toFixed(1)} GiB free, clock ${h.clockOffsetMs >= 0 ? '+' : ''}${h.clockOffsetMs} ms`]),
    ['Memory', `${(env.totalMemBytes / 2 ** 30).toFixed(1)} GiB`],
    ['OS', `${env.platform} ${env.release}`],
    ...(env.notes?.length ? [['Notes (what was left out or not measured here)', env.notes.join(' · ')]] : []),
    ...Object.entries(ENV).map(([name, variable]) => [variable, env[name]]), // the shell's, unless a cell sets them
    ['Git commit', env.gitCommit && `${env.gitCommit}${env.gitDirty ? ' (with uncommitted changes)' : ''}`],
    ...(env.revs ?? []).map((r) => ['Revision (--rev)', `${r.short}: ${r.subject} (--rev=${r.ref}, ${r.sha}; its servers from ${r.dir})`]),
    ['Command line', env.argv.join(' ')], ['Seed', env.seed],
    ['Started', env.startedAt], ['Finished', env.finishedAt]]
  return html`<dl class="env">${items.map(([k, v]) => html`<dt>${k}</dt><dd>${v ?? '–'}</dd>`)}</dl>
    <details><summary>env.json in full: configuration, packages</summary>
    <pre>${JSON.stringify(env, null, 2)}</pre></details>`
}

module.exports = { reportHtml, CSS, environment, hostsLead }
