'use strict'
// The report's answers in sentences, built from the folder's verdicts (report/stats/comparisons.js, as
// in verdicts.json): which kind is faster at each process model and count, what a second process
// model buys, what each costs in CPU, what the framework changes, how the A/A calibration came out
// and what stayed undecided. Used by report/page/page.js, after the storage answer.

const { html } = require('../../lib/html-template')
const { roundsNote, verdictParts, groupBy, processes, calibration } = require('../stats/verdicts')
const { settingsLabel } = require('../stats/comparisons')
const { frameworkAnswers } = require('./answers-framework')
const { KINDS, modelLabel } = require('../../lib/kinds')
const { judge } = require('../stats/intervals')
const { runtimeLabel } = require('../../lib/install/runtime-specs')

const link = (href, text = 'chart') => (href ? html` <a href="#${href}">(${text})</a>` : '')
const at = (e) => ({ ...e, load: e.cells[0].load })
const where = (e) => (e.cells[0].variant ? ` (${settingsLabel(e.cells[0].variant)})` : '')

function storeSentences (entries, cores, margin) {
  return groupBy(entries, (e) => `${e.metric}|${e.cells[0].kind}|${e.cells[0].nServers}|${e.cells[1].api}|${e.cells[0].variant}`).map((some) => {
    const [a, b] = some[0].cells
    const against = b.api && b.api !== a.api ? `async (${b.api})` : 'async'
    const cost = some[0].better === 'lower'
    const words = cost ? { up: 'sync needs less', down: `${against} needs less` } : { up: 'sync faster', down: `${against} faster` }
    const what = cost ? `server CPU per request, sync over ${against}` : `sync over ${against}`
    return `${processes(a, cores)}${where(some[0])}, ${what}: ${verdictParts(some.map(at), words, margin, some[0].better).join('; ')}.`
  })
}

function modelSentences (entries, cores, margin) {
  return groupBy(entries, (e) => `${e.cells[0].kind}|${e.cells[0].nServers}|${e.cells[1].kind}|${e.cells[0].variant}`).map((some) => {
    const [a, b] = some[0].cells
    const over = a.nServers > cores ? ` (oversubscribed: more than the ${cores} cores)` : ''
    const [ma, mb] = [modelLabel(a.kind, a.nServers), modelLabel(b.kind, b.nServers)]
    const words = { up: `the ${ma} faster`, down: `the ${mb} faster` }
    return `${KINDS[a.kind].store}${where(some[0])}, ${ma}${over} over ${mb}: ${verdictParts(some.map(at), words, margin).join('; ')}.`
  })
}

function undecidedSentence (entries, margin) {
  const open = entries.filter((e) => judge(e.ratio, { margin, better: e.better }) === 'undecided')
  if (open.length === 0) return `None of the ${entries.length} throughput comparisons is undecided.`
  return `${open.length} of ${entries.length} throughput comparisons ${open.length === 1 ? 'is' : 'are'} undecided (an interval that ` +
    `neither leaves out 1 nor lies within ±${Math.round(margin * 100)}%: more rounds or a longer --budget narrow it): ${open.map((e) => e.label).join('; ')}.`
}

/**
 * The answers section; '' when there is nothing to compare.
 * @param {object} results from readResults
 * @param {object[]} cells main cells
 * @param {{ verdicts: object[], margin: number }} analysis verdicts from report/stats/comparisons.js
 * @returns {object|string} markup (html``)
 */
function answersSection (results, cells, { verdicts, margin }) {
  const cores = results.env.cpus
  const ops = verdicts.filter((e) => e.metric === 'opsPerSec' && !e.aa && e.ratio)
  if (ops.length === 0) return ''
  const cpu = verdicts.filter((e) => e.metric === 'serverCpuPerReqUs' && e.kind === 'store' && e.ratio)
  const aa = calibration(verdicts, results.env)
  return html`<section id="answers"><h2>Answers</h2>
    <p class="note">Each figure is a ratio taken within each round: ${roundsNote(ops.map((e) => e.ratio))}. ${cores} cores,
    ${results.env.serverRuntimes.map(runtimeLabel).join(', ')}.</p>
    <ul class="answers">
    ${storeSentences(ops.filter((e) => e.kind === 'store'), cores, margin).map((s) => html`<li>${s}${link('verdicts', 'table')}</li>`)}
    ${modelSentences(ops.filter((e) => e.kind === 'model'), cores, margin).map((s) => html`<li>${s}</li>`)}
    ${storeSentences(cpu, cores, margin).map((s) => html`<li>${s}</li>`)}
    ${frameworkAnswers(cells, cores).map((s) => html`<li>${s}</li>`)}
    ${aa && html`<li>${aa.text}</li>`}
    <li>${undecidedSentence(ops, margin)}</li></ul></section>`
}

module.exports = { answersSection }
