'use strict'
// How an interleaved run measured (sweep/interleaved/rounds.js's records): where its time went, phase by
// phase, with the share that was measurement; its rounds and why they stopped; what else used the
// machine, pass by pass, and how many passes and rounds that disturbed. Used by report/page/page.js.

const { html, raw } = require('../../lib/html-template')
const { fixed } = require('../stats/verdicts')

const s1 = (ms) => fixed(ms / 1000, 1)
const pct = (x) => `${fixed(x * 100, 1)}%`

/**
 * The section; '' for a folder that was not an interleaved run.
 * @param {object|null} f from runFigures
 * @param {{ svg: string }|undefined} chart the interference chart (report/charts/interference.js)
 * @param {number} maxInterference
 * @returns {object|string} markup
 */
function runSection (f, chart, maxInterference) {
  if (!f) return ''
  return html`<section id="run"><h2>How this run measured</h2>
    <p>Every cell's server was started once and warmed up, then measured in rounds; a round is a
    number of passes, and a pass gives every cell one window of the same operations in a new
    shuffled order, so that a slow moment of the machine falls on all of them alike. Between passes
    the run reads how much of the machine's CPU other processes and the hypervisor (steal) took; a
    pass where that was above ${pct(maxInterference)} (<code>--maxInterference</code>) is dropped, judged by that figure
    alone, and run again once the machine is quiet. Rounds were added until every headline interval
    was narrow or the budget was spent: ${f.stop}.</p>
    <table class="phases"><thead><tr><th>phase</th><th>s</th><th>share</th></tr></thead><tbody>
    ${f.phases.map(([name, ms]) => html`<tr><td>${name}</td><td class="num">${s1(ms)}</td><td class="num">${pct(f.wallMs > 0 ? ms / f.wallMs : 0)}</td></tr>`)}
    <tr><th>the whole run</th><th class="num">${s1(f.wallMs)}</th><th></th></tr></tbody></table>
    <p class="note">Measuring took ${pct(f.share)} of the run; the windows themselves (the kept ones, the time the
    figures come from) ${s1(f.keptMs)} s. ${f.rounds} rounds, ${f.disturbedRounds} of them disturbed; ${f.dropped} of
    ${f.passes} passes dropped${f.waitedMs > 0 ? html`, ${s1(f.waitedMs)} s spent waiting for a quiet machine` : ''}. ${f.median === null && f.passes > 0
    ? 'What others took of the CPU was not measured here (the environment\'s notes say why), so no pass was dropped for it'
    : html`Others took a median ${f.median === null ? '–' : pct(f.median)} of the CPU per pass, at most
    ${f.worst === null ? '–' : pct(f.worst)}`}. A cell all of whose
    comparisons were narrow enough after <code>--rounds</code> got no more windows: ${f.settled} did.</p>
    ${chart && html`<figure id="interference-chart" aria-label="interference">${raw(chart.svg)}</figure>`}</section>`
}

module.exports = { runSection }
