'use strict'
// The report's real-storage section (report/stats/real-storage.js), and storage.md beside the report: the device
// fio measured, the delay layer checked against it, the verdict at each cache share, and each cell's cache state.

const { html } = require('../../lib/html-template')
const { fixed } = require('../stats/verdicts')
const { MARGIN } = require('../stats/intervals')
const { runtimeLabel } = require('../../lib/install/runtime-specs')

const ratio = (v) => (v.estimate ? `${fixed(v.estimate, 2)}× [${fixed(v.low, 2)}–${fixed(v.high, 2)}] ${v.verdict}` : `– ${v.verdict}`)
// delay/real's verdict in the check's words: faster is the layer's sync/async above the disk's.
const GAP = { faster: 'higher', slower: 'lower', same: 'the same', undecided: 'undecided' }
const gapText = (g) => (g.estimate ? `${fixed(g.estimate, 2)}× [${fixed(g.low, 2)}–${fixed(g.high, 2)}] ${GAP[g.verdict]}` : `– ${GAP[g.verdict]}`)
const delayText = (r) => `${r.delayUs} µs${r.qd4Us === null ? '' : ` (${r.qd4Us} µs at queue depth 4)`}`
const num = (x, digits = 0) => (x === null || x === undefined ? '–' : fixed(x, digits))
const kib = (bytes) => (bytes === null ? '–' : `${fixed(bytes / 1024, 1)} KiB`)
const AGREEMENT = {
  agree: 'agree: delay/real is the same',
  'same direction': 'the same verdict, but delay/real is not the same: the size differs',
  disagree: 'disagree: delay/real is not the same, and the verdicts differ',
  undecided: 'undecided: delay/real\'s interval is too wide to say'
}

const deviceLine = (d) => `${d.source} (${d.fs}) under ${d.dir}: random ${d.blockBytes / 1024} KiB reads with O_DIRECT, ` +
  `queue depth 1: ${num(d.qd1.meanUs, 1)} µs mean, p50 ${num(d.qd1.p50Us, 1)}, p99 ${num(d.qd1.p99Us, 1)} (${num(d.qd1.iops)} reads/s); ` +
  `queue depth 4: ${num(d.qd4.meanUs, 1)} µs mean, p99 ${num(d.qd4.p99Us, 1)} (${num(d.qd4.iops)} reads/s)`

/** One sentence on the regime axis of a pair, then sync/async and what async read from the device per GET at each share. */
function regimeSentence (g) {
  const last = g.points[g.points.length - 1]
  const first = g.points[0]
  const said = g.upTo === null ? `async is not clearly faster at any share measured, down to ${first.share}% cached`
    : g.upTo === last.share ? `async is clearly faster at every share measured, up to ${last.share}% cached`
      : `async wins once at most ${g.upTo}% of the data set is cached`
  const each = g.points.map((p) => `${p.share}%: ${ratio(p.verdict)}${p.deviceBytesPerGet === null ? '' : `, ${kib(p.deviceBytesPerGet)} read`}`)
  return `${g.label}: ${said} (sync/async ${each.join('; ')}).`
}

/**
 * The section; '' when the folder has no real-storage findings.
 * @param {object|null} found report/stats/real-storage.js realStorage
 * @param {object} env
 * @returns {object|string}
 */
function storageSection (found, env) {
  if (!found) return ''
  return html`<section id="real-storage"><h2>Real storage: the disk, the cache, the delay layer</h2>
    ${found.device && html`<p>The device, measured with fio before the run: ${deviceLine(found.device)}.</p>`}
    ${found.check.length > 0 && html`<h3>The delay layer against the real disk</h3>
      <p class="note">sync/async throughput, each a ratio within each round with its interval, on the real disk with a cold
      cache and on the FUSE delay layer at the device's measured latencies, interleaved in one run; delay/real is the layer's
      sync/async over the disk's within each round, with its interval over the rounds, judged as the comparisons are (the same:
      within ±${fixed(100 * (found.check[0].real.margin ?? MARGIN), 0)}%). The layer agrees with the disk when delay/real is the same. ${env.cpus} cores.</p>
      <table class="storage"><thead><tr><th>comparison</th><th>real disk, cold</th><th>delay layer</th><th>delay / real</th>
      <th>verdicts</th></tr></thead><tbody>${found.check.map((r) => html`<tr><th>${r.label}</th><td>${ratio(r.real)}</td>
      <td>${ratio(r.stand)} at ${delayText(r)}</td><td>${gapText(r.gap)}</td>
      <td>${AGREEMENT[r.agreement]}</td></tr>`)}</tbody></table>`}
    ${found.regime.length > 0 && html`<h3>Where async wins on the real disk: the share of the data set cached</h3>
      <ul class="answers">${found.regime.map((g) => html`<li>${regimeSentence(g)}</li>`)}</ul>`}
    ${found.cache.length > 0 && html`<details${found.check.length + found.regime.length === 0 ? ' open' : ''}><summary>Each cell's page cache</summary>
      <table class="storage"><thead><tr><th>cell</th><th>storage</th><th>cgroup room</th><th>cached at start</th><th>cached at end</th>
      <th>read from the device per GET</th></tr></thead><tbody>${found.cache.map((c) => html`<tr><th>${c.id}</th><td>${c.storage}</td>
      <td class="num">${c.limitBytes === null ? '–' : `${num(c.limitBytes / 1048576)} MiB`}</td><td class="num">${num(c.before, 1)}%</td>
      <td class="num">${num(c.after, 1)}%</td><td class="num">${kib(c.deviceBytesPerGet)}</td></tr>`)}</tbody></table>
      <p class="note">Medians over the valid rounds. Cached: the data set's pages in the page cache (vmtouch, mincore) before and
      after each round; read from the device: the server's processes' read_bytes (/proc/PID/io) over the round's GETs. A cache
      cell's files are read into the cache before each round (a machine may page out what stays idle), and so are a delay
      cell's backing files (the layer's sleep stands in for the device; its daemon's read_bytes are the cell's). A cold
      cell's files are written back and dropped before each round, its --cacheShare of them read back, and its server runs in a
      memory cgroup whose room is its own memory plus 32 MiB and that share of the data set; a round that starts more than 2 points
      off that share (a cache cell's: off 100%) or ends cold with more than the share plus 10 points cached drifted, and is
      measured again.</p></details>`}
    </section>`
}

/** storage.md: the check and the regime in Markdown, headed by how they were made. */
function storageMarkdown (found, env) {
  const lines = [`# Real storage: ${env.command}`, '', `\`./run_benchmark.sh ${env.argv.join(' ')}\``, '',
    `${env.cpus} cores, ${env.serverRuntimes.map(runtimeLabel).join(', ')}, started ${env.startedAt}.`, '']
  if (found.device) lines.push(`Device: ${deviceLine(found.device)}.`, '')
  if (found.check.length > 0) {
    lines.push('| comparison (sync/async ops/s) | real disk, cold | delay layer | delay / real (within each round) | verdicts |', '|---|---|---|---|---|')
    for (const r of found.check) {
      lines.push(`| ${r.label} | ${ratio(r.real)} | ${ratio(r.stand)} at ${delayText(r)} | ${gapText(r.gap)} | ${AGREEMENT[r.agreement]} |`)
    }
    lines.push('')
  }
  const cached = found.cache.filter((c) => c.storage !== 'cache')
  if (cached.length > 0) {
    lines.push('| cell | storage | cached at start | cached at end | read from the device per GET |', '|---|---|---|---|---|')
    for (const c of cached) lines.push(`| ${c.id} | ${c.storage} | ${num(c.before, 1)}% | ${num(c.after, 1)}% | ${kib(c.deviceBytesPerGet)} |`)
    lines.push('', 'Medians over the valid rounds; a delay cell\'s figures are its backing folder\'s, read into the cache before each round.', '')
  }
  for (const g of found.regime) lines.push(`- ${regimeSentence(g)}`)
  return lines.join('\n') + '\n'
}

module.exports = { storageSection, storageMarkdown, regimeSentence }
