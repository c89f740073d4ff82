'use strict'
// The forest plot of verdicts (report/charts/verdicts.js): rows in input order, a log ratio axis,
// the band of "same", one interval per entry that has one, and the empty case.

const t = require('tap')
const { verdictsChart, VERDICT_COLORS } = require('../../../report/charts/verdicts')

const ENV = { cpus: 2, node: 'v20.20.2' }
const ENTRIES = [
  { label: 'async vs sync, 1 server', estimate: 1.35, low: 1.22, high: 1.49, verdict: 'faster' },
  { label: 'pool <4> & cluster', estimate: 0.7, low: 0.6, high: 0.8, verdict: 'slower' },
  { label: 'sync vs sync', estimate: 1.01, low: 0.98, high: 1.03, verdict: 'same', aa: true },
  { label: 'io_uring vs libuv', verdict: 'undecided' },
  { label: 'cluster vs reuseport', estimate: 1.04, low: 0.9, high: 1.2, verdict: 'undecided' }
]

const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&')
// Every <text>: its content, its position and its attributes.
function texts (svg) {
  return [...svg.matchAll(/<text ([^>]*)>([^<]*)<\/text>/g)].map(([, attrs, text]) => {
    const [, x, y] = /translate\(([-\d.]+) ([-\d.]+)\)/.exec(attrs).map(Number)
    return { text: unescape(text), x, y, attrs }
  })
}
const textOf = (svg, text) => texts(svg).filter((e) => e.text === text)
const circles = (svg) => [...svg.matchAll(/<circle cx="([\d.]+)" cy="([\d.]+)"[^>]*fill="([^"]+)"/g)]
  .map(([, cx, cy, fill]) => ({ cx: Number(cx), cy: Number(cy), fill }))
const draw = (entries, margin = 0.05) => verdictsChart({ title: 'Which is faster', env: ENV, margin, entries })

t.test('each label is drawn once, exactly as given, top to bottom in input order', async (t) => {
  const svg = draw(ENTRIES)
  const rows = ENTRIES.map((e) => textOf(svg, e.aa ? `${e.label} (A/A)` : e.label))
  rows.forEach((found, i) => t.equal(found.length, 1, `"${ENTRIES[i].label}" is drawn once`))
  const ys = rows.map(([row]) => row.y)
  t.same(ys, [...ys].sort((a, b) => a - b), 'rows go down in input order')
  t.ok(ys[1] - ys[0] > 20, 'rows are apart')
})

t.test('each row states the ratio, its interval and the verdict, in the verdict colour', async (t) => {
  const svg = draw(ENTRIES)
  const expected = ['1.35× [1.22–1.49] faster', '0.70× [0.60–0.80] slower', '1.01× [0.98–1.03] same',
    'no interval · undecided', '1.04× [0.90–1.20] undecided']
  expected.forEach((text, i) => {
    const [found] = textOf(svg, text)
    t.ok(found, `"${text}" is drawn`)
    t.match(found.attrs, `fill="${VERDICT_COLORS[ENTRIES[i].verdict]}"`, `in the colour of ${ENTRIES[i].verdict}`)
  })
})

t.test('one interval per entry with one, its estimate placed in order on a log axis', async (t) => {
  const svg = draw(ENTRIES)
  const points = circles(svg)
  t.equal(points.length, 4, 'four estimates: the entry without an interval has no bar')
  const drawn = new Set([...svg.matchAll(/ecmeta_series_index="0" ecmeta_data_index="(\d+)" ecmeta_ssr_type="chart" class/g)].map((m) => m[1]))
  t.equal(drawn.size, 4, 'four interval shapes')
  const withInterval = ENTRIES.filter((e) => e.low !== undefined)
  t.same(points.map((p) => p.fill), withInterval.map((e) => VERDICT_COLORS[e.verdict]), 'each coloured by its verdict')
  const byX = [...points].sort((a, b) => a.cx - b.cx).map((p) => points.indexOf(p))
  t.same(byX.map((i) => withInterval[i].estimate), withInterval.map((e) => e.estimate).sort((a, b) => a - b),
    'left to right by estimate')
  const rowOf = (label) => textOf(svg, label)[0].y
  t.ok(points.every((p, i) => Math.abs(p.cy - rowOf(withInterval[i].aa ? `${withInterval[i].label} (A/A)` : withInterval[i].label)) < 1),
    'each estimate on its own row')
})

t.test('ticks are round ratios, halving and doubling the same distance from 1', async (t) => {
  const svg = draw([{ label: 'wide', estimate: 1, low: 0.45, high: 2.2, verdict: 'undecided' }])
  const ticks = texts(svg).filter((e) => /^[\d.]+$/.test(e.text)).sort((a, b) => a.x - b.x)
  t.same(ticks.map((e) => e.text), ['0.5', '0.8', '1', '1.25', '2'])
  const x = Object.fromEntries(ticks.map((e) => [e.text, e.x]))
  t.ok(Math.abs((x['1'] - x['0.5']) - (x['2'] - x['1'])) < 1, 'a log scale')
  t.ok(Math.abs((x['1'] - x['0.8']) - (x['1.25'] - x['1'])) < 1, 'reciprocals mirror each other')
})

t.test('the band of "same" follows the margin and the axis always holds it', async (t) => {
  const svg = draw([{ label: 'x', estimate: 1, low: 0.99, high: 1.01, verdict: 'same' }], 0.25)
  t.equal(textOf(svg, 'same (±25%)').length, 1, 'the band is labelled with the margin')
  t.equal(textOf(svg, '0.8').length, 1, '1/(1+margin) is on the axis')
  t.equal(textOf(svg, '1.25').length, 1, '1+margin is on the axis')
  t.equal(textOf(draw(ENTRIES), 'same (±5%)').length, 1, '0.05 reads ±5%')
})

t.test('the A/A entry is in italics and marked', async (t) => {
  const [aa] = textOf(draw(ENTRIES), 'sync vs sync (A/A)')
  t.match(aa.attrs, 'font-style:italic')
  const [other] = textOf(draw(ENTRIES), 'async vs sync, 1 server')
  t.notMatch(other.attrs, 'italic')
})

t.test('the chart grows by a row per entry', async (t) => {
  const height = (svg) => Number(/<svg width="(\d+)" height="(\d+)"/.exec(svg)[2])
  const two = draw(ENTRIES.slice(0, 2))
  t.equal(height(draw(ENTRIES)) - height(two), 3 * 34)
  t.equal(Number(/<svg width="(\d+)"/.exec(two)[1]), 900)
})

t.test('a long label widens the chart rather than running off its left edge', async (t) => {
  const label = 'async-cluster-s2-c4-doff-api-callback vs sync-cluster-s2-c4-doff-api-callback'
  const svg = draw([{ label, estimate: 1.2, low: 1.1, high: 1.3, verdict: 'faster' }])
  const [row] = textOf(svg, label)
  t.ok(row.x >= 6 * label.length, 'its right-aligned text has room for its characters')
  t.ok(Number(/<svg width="([\d.]+)"/.exec(svg)[1]) > 900)
})

t.test('no entries give a chart that says there is nothing to draw', async (t) => {
  const svg = draw([])
  t.equal(textOf(svg, 'no comparisons to draw').length, 1)
  t.equal(circles(svg).length, 0)
})
