'use strict'
// The report's answers in sentences, each with its ratio, interval and a link to what shows it:
// which kind is fastest at each process count, what clustering buys, what the framework changes,
// where the noise floor lies and what is within it. Used by report/page.js, after the storage answer.

const { html } = require('./html-template')
const { formatRatio, fixed, noisePercent, roundsNote, verdictParts, groupBy, processes, plural } = require('./verdicts')
const { judge } = require('./intervals')
const { frameworkAnswers } = require('./answers-framework')
const { KINDS, isMultiProcess } = require('../lib/kinds')

// "×2", or "reusePort ×2" for the model that is not node:cluster.
const times = ({ model, nServers }) => `${model === 'reuseport' ? ' reusePort' : ''} ×${nServers}`

const link = (href, text = 'chart') => (href ? html` <a href="#${href}">(${text})</a>` : '')

function fastestSentences (kinds, band, cores, apis) {
  return groupBy(kinds.filter((e) => e.ratio), (e) => `${e.model}|${e.nServers}|${e.api}`).map((some) => {
    const against = apis > 1 && some[0].api ? `async (${some[0].api})` : 'async'
    const label = `sync/${against}${some[0].cluster ? times(some[0]) : ', 1 process'}`
    return { label, some, text: `${processes(some[0], cores)}, sync over ${against}: ${verdictParts(some, band, { up: 'sync faster', down: `${against} faster` }).join('; ')}.` }
  })
}

function clusteringSentences (speedups, band, cores, apis) {
  return groupBy(speedups.filter((e) => e.ratio), (e) => `${e.kind}|${e.nServers}|${e.api}`).map((some) => {
    const kind = KINDS[some[0].kind].store + (apis > 1 && some[0].api ? ` (${some[0].api})` : '')
    const over = some[0].nServers > cores ? ` (oversubscribed: more than the ${cores} cores)` : ''
    const best = [...some].sort((x, y) => y.ratio.estimate - x.ratio.estimate)[0]
    const reuse = some[0].model === 'reuseport'
    const text = reuse ? `reusePort ${kind}, ${plural(some[0].nServers, 'process', 'processes')}${over} over 1 process: `
      : `Clustering ${kind}, ${plural(some[0].nServers, 'worker')}${over} over 1 process: `
    return { label: `${reuse ? 'reusePort' : 'clustering'} ${kind} ×${some[0].nServers}`, some, load: best.load, text: text +
      `${verdictParts(some, band, { up: reuse ? 'reusePort faster' : 'the cluster faster', down: 'one process faster' }).join('; ')}.` }
  })
}

// "4 of 20 comparisons are within noise: clustering sync ×1 at nClients 2, 4; ..."
function withinSentence (sentences, band) {
  const all = sentences.flatMap((s) => s.some)
  const noisy = sentences.map((s) => ({ label: s.label, loads: s.some.filter((e) => judge(e.ratio, band) === 'noise').map((e) => e.load) }))
    .filter((s) => s.loads.length > 0)
  const count = noisy.reduce((n, s) => n + s.loads.length, 0)
  const what = band ? 'within noise' : 'without a clear difference'
  if (count === 0) return `None of the ${all.length} comparisons is ${what}.`
  return `${count} of ${all.length} comparisons ${count === 1 ? 'is' : 'are'} ${what}: ${noisy.map((s) => `${s.label} at nClients ${[...new Set(s.loads)].sort((x, y) => x - y).join(', ')}`).join('; ')}.`
}

function noiseSentence (noise, band) {
  const pair = noise.find((p) => p.ratio && !p.ratio.few)
  if (!pair) {
    return noise.length > 0 ? 'The A/A cells have too few valid rounds for an interval: the verdicts only say whether an interval leaves out 1.'
      : 'This folder has no A/A cell (sweep runs one unless --aa=off): the verdicts only say whether an interval leaves out 1.'
  }
  const { a } = pair
  return `Noise floor: the A/A cell (${a.kind}${isMultiProcess(a.kind) ? ` ×${a.nServers}` : ''}, ${a.load} client processes, run twice per round) ` +
    `differed from itself by up to ${noisePercent(band)}%: A/B ${formatRatio(pair.ratio)}. A ratio that overlaps ` +
    `${fixed(band.low, 2)}–${fixed(band.high, 2)} is within noise.`
}

/**
 * The answers section; '' when there is nothing to compare.
 * @param {object} results from readResults
 * @param {object[]} cells main cells
 * @param {{ kinds: object[], speedups: object[], noise: object[], band: object|null }} analysis
 * @param {{ file: string, settings?: string }[]} charts
 * @returns {object|string} markup (html``)
 */
function answersSection (results, cells, analysis, charts) {
  const { kinds, speedups, noise, band } = analysis
  const cores = results.env.cpus
  const apis = new Set(kinds.map((e) => e.api)).size
  const all = [...kinds, ...speedups].filter((e) => e.ratio)
  if (all.length === 0) return ''
  const chartOf = (settings, name) => charts.find((c) => c.settings === settings && c.file.endsWith(name))?.file
  const settings = [...new Set(cells.map((c) => c.variant))]
  const sentences = []
  const group = (g) => {
    const fastest = fastestSentences(kinds.filter((e) => e.settings === g), band, cores, apis)
    const clustering = clusteringSentences(speedups.filter((e) => e.settings === g), band, cores, apis)
    const where = settings.length > 1 && g ? ` (${g})` : ''
    sentences.push(...[...fastest, ...clustering].map((s) => ({ ...s, label: s.label + where })))
    if (fastest.length + clustering.length === 0) return ''
    return html`${settings.length > 1 && html`<h3>${g || 'other settings'}</h3>`}<ul class="answers">
      ${fastest.map((s) => html`<li>${s.text}${link(chartOf(g, 'throughput-heatmap.svg'))}</li>`)}
      ${clustering.map((s) => html`<li>${s.text}${link(chartOf(g, `runtime-nClients-${s.load}.svg`))}</li>`)}</ul>`
  }
  const groups = settings.map(group)
  return html`<section id="answers"><h2>Answers</h2>
    <p class="note">Each figure is a throughput ratio (ops/s) taken within each round, then its median
    over the rounds [interval]; ${roundsNote(all.map((e) => e.ratio))}. ${cores} cores, Node ${results.env.serverNodes.join(', ')}.</p>
    ${groups}<ul class="answers">
    ${frameworkAnswers(cells, band, cores).map((s) => html`<li>${s}</li>`)}
    <li>${noiseSentence(noise, band)}${link(noise.length > 0 && 'noise', 'A/A table')}</li>
    <li>${withinSentence(sentences, band)}${link('verdicts', 'all verdicts')}</li></ul></section>`
}

module.exports = { answersSection }
