'use strict'
// The report's first section when a sweep varied storage latency: where async overtakes sync, in
// sentences with their intervals and links to the charts, what io_uring and the pool size changed,
// and what the storage layer cost. Used by report/page/page.js.

const { html } = require('../../lib/html-template')
const { fixed, roundsNote } = require('../stats/verdicts')
const { judge } = require('../stats/intervals')
const { interpolateCrossing, settingEffects, delayLabel, groupName } = require('../stats/crossover')
const { spread } = require('../data/cells')
const { runtimeLabel } = require('../../lib/install/runtime-specs')

const at = (delay) => (delay === 'off' ? 'at the plain folder' : `at ${delay} µs`)
const ratioText = (r) => `${fixed(r.estimate, 2)}× [${fixed(r.low, 2)}–${fixed(r.high, 2)}]`

// One sentence on one async line against sync.
function crossingSentence ({ line, against, ratios, from }) {
  if (ratios.length === 0) return `${line}: no delay with valid repeats of both it and ${against}.`
  const first = ratios[0]
  const last = ratios[ratios.length - 1]
  const rel = (r) => `${line} / ${against} ${ratioText(r.ratio)} ${at(r.delay)}`
  if (from === null && last.ratio.estimate > 1) {
    return `${line} is ahead of ${against} at ${delayLabel(last.delay)} but not clearly (its interval does not leave out 1): ${rel(last)}.`
  }
  if (from === null) return `${line} does not overtake ${against} up to ${delayLabel(last.delay)}: ${rel(last)}.`
  if (from === first.delay) return `${line} is clearly faster than ${against} at every storage latency measured: ${rel(first)}, ${rel(last)}.`
  const i = ratios.findIndex((r) => r.delay === from)
  const near = interpolateCrossing({ ratios, from })
  const shown = [...new Set([ratios[i], ratios[i - 1], first])]
  return `${line} overtakes ${against} ${near === null ? '' : `from ~${near} µs (interpolated), `}clearly from ` +
    `${from} µs on: ${shown.map(rel).join('; ')}.`
}

function effectSentence ({ line, base, ratios }) {
  const word = (r) => ({ faster: '', slower: '', same: ' (the same)', undecided: ' (undecided)', few: ' (one round)' })[judge(r)]
  return `${line} over ${base}: ${ratios.map((r) => `${ratioText(r.ratio)} ${at(r.delay)}${word(r.ratio)}`).join(', ')}.`
}

// Measured storage latency and the daemon's CPU per request, per line and delay.
function costTable (group) {
  const delays = group.delays.filter((d) => d !== 'off')
  const value = (line, delay, column) => {
    const s = spread(line.points.find((p) => p.delay === delay)?.cell ?? { valid: [] }, column)
    return s ? fixed(s.median, 0) : '–'
  }
  return html`<table class="storage"><thead><tr><th>line</th>${delays.map((d) => html`<th>${d} µs:
    measured µs/op · daemon CPU µs/req</th>`)}</tr></thead><tbody>${group.lines.map((line) => html`<tr>
    <th>${line.name}</th>${delays.map((d) => html`<td class="num">${value(line, d, 'storageLatencyUs')} ·
    ${value(line, d, 'storageCpuPerReqUs')}</td>`)}</tr>`)}</tbody></table>`
}

/**
 * The answer section; '' when the folder did not vary ioDelay.
 * @param {object[]} groups from crossoverGroups
 * @param {{ file: string }[]} charts the crossover charts, one per group, in the same order
 * @param {object} env env.json
 * @returns {object|string} markup (html``)
 */
function storageAnswerSection (groups, charts, env) {
  if (groups.length === 0) return ''
  const over = groups.some((g) => g.processes > env.cpus)
  return html`<section id="answer"><h2>Where async wins: storage latency</h2>
    <p class="note">Each sentence is a throughput ratio (ops/s) taken within each round, its median
    over the rounds and an interval (${roundsNote(groups.flatMap((g) => g.crossings.flatMap((c) => c.ratios.map((r) => r.ratio))))});
    <em>clearly</em> means the interval leaves out 1. Storage
    latency is the FUSE layer's delay before every read and durable write (fsync, O_DSYNC; in folders
    from before 2026-11-28, every write) (<em>plain folder</em>: no FUSE at all).
    ${env.cpus} cores, ${env.serverRuntimes.map(runtimeLabel).join(', ')}${over ? '; process counts above the cores measure ' +
      'oversubscription' : ''}.</p>
    ${groups.map((g, i) => html`<h3>${groupName(g)} <a href="#${charts[i].file}">(chart)</a></h3>
      <ul class="answers">${g.crossings.map((c) => html`<li>${crossingSentence(c)}</li>`)}
      ${settingEffects(g).map((e) => html`<li>${effectSentence(e)}</li>`)}</ul>
      <details><summary>What the storage layer measured and cost</summary>${costTable(g)}
      <p class="note">measured µs/op: the daemon's time per call that took the device, from arrival to answer
      (queueing at ioDepth, the delay, the real syscall), so the latency the server really saw;
      daemon CPU µs/req: the FUSE daemon's CPU per HTTP request, the price of the layer.</p></details>`)}
    </section>`
}

module.exports = { storageAnswerSection }
