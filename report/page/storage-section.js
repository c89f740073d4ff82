'use strict'
// The report's real-storage section (report/stats/real-storage.js), and storage.md beside the report: the device
// fio measured, the delay layer checked against it, the verdict at each cache share, and each cell's cache state.

const { html } = require('../../lib/html-template')
const { fixed } = require('../stats/verdicts')
const { runtimeLabel } = require('../../lib/runtimes')

const ratio = (v) => (v.estimate ? `${fixed(v.estimate, 2)}× [${fixed(v.low, 2)}–${fixed(v.high, 2)}] ${v.verdict}` : `– ${v.verdict}`)
const num = (x, digits = 0) => (x === null || x === undefined ? '–' : fixed(x, digits))
const kib = (bytes) => (bytes === null ? '–' : `${fixed(bytes / 1024, 1)} KiB`)
const AGREEMENT = {
  agree: 'agree: the same verdict, intervals overlap',
  'same direction': 'the same verdict, but the intervals do not overlap: the size differs',
  disagree: 'disagree: the verdicts differ',
  undecided: 'undecided: one interval is too wide to say'
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
      cache and on the FUSE delay layer at the device's measured latency, interleaved in one run. ${env.cpus} cores.</p>
      <table class="storage"><thead><tr><th>comparison</th><th>real disk, cold</th><th>delay layer</th><th>delay layer / real</th>
      <th>verdicts</th></tr></thead><tbody>${found.check.map((r) => html`<tr><th>${r.label}</th><td>${ratio(r.real)}</td>
      <td>${ratio(r.stand)} at ${r.delayUs} µs</td><td class="num">${r.gap === null ? '–' : `${fixed(r.gap, 2)}×`}</td>
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
      cell's files are read into the cache before each round (a machine may page out what stays idle). A cold
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
    lines.push('| comparison (sync/async ops/s) | real disk, cold | delay layer | delay / real | verdicts |', '|---|---|---|---|---|')
    for (const r of found.check) {
      const gap = r.gap === null ? '–' : `${fixed(r.gap, 2)}×`
      lines.push(`| ${r.label} | ${ratio(r.real)} | ${ratio(r.stand)} at ${r.delayUs} µs | ${gap} | ${AGREEMENT[r.agreement]} |`)
    }
    lines.push('')
  }
  for (const g of found.regime) lines.push(`- ${regimeSentence(g)}`)
  return lines.join('\n') + '\n'
}

module.exports = { storageSection, storageMarkdown, regimeSentence }
