'use strict'
// The "why" charts (report/charts/why.js) read back from their SVG: a stacked bar per cell in the categories'
// colours and order, and a comparison's diverging bars, coloured only beyond noise.

const t = require('tap')
const { whyCharts, differenceChart, CATEGORY_COLORS, DIFF_COLORS } = require('../../../report/charts/why')
const { whyAnalysis } = require('../../../report/stats/why')
const { readProfile } = require('../../../report/data/profile')
const { writeProfile } = require('../../fixtures/profile-folder')

const ENV = { cpus: 2, node: 'v20.20.2' }
const A = 'sync-s1-c2'
const B = 'async-s1-c2'
const HEADLINE = { a: A, b: B, label: 'sync vs async, 1 process', metric: 'opsPerSec', verdict: 'faster',
  cells: [{ kind: 'sync', nServers: 1 }, { kind: 'async', nServers: 1 }] }

const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&')
const texts = (svg) => [...svg.matchAll(/<text ([^>]*)>([^<]*)<\/text>/g)].map(([, attrs, text]) => {
  const [, x, y] = /translate\(([-\d.]+) ([-\d.]+)\)/.exec(attrs).map(Number)
  return { text: unescape(text), x, y, fill: /fill="([^"]+)"/.exec(attrs)?.[1] }
})
const textOf = (svg, text) => texts(svg).find((e) => e.text === text)
// The bars of series 0.. as drawn: left x, width (signed), top y and fill.
const BAR = /<path d="M([\d.]+) ([\d.]+)l([-\d.]+) 0l0 ([\d.]+)[^"]*" fill="([^"]+)" ecmeta_series_index="(\d+)" ecmeta_data_index="(\d+)"/g
const bars = (svg) => [...svg.matchAll(BAR)]
  .map(([, x, y, w, , fill, series, data]) => ({ x: Number(x), y: Number(y), w: Number(w), fill, series: Number(series), data: Number(data) }))

function charts (t, verdicts = [HEADLINE]) {
  const dir = t.testdir()
  writeProfile(dir, { a: A, b: B })
  const why = whyAnalysis(readProfile(dir), verdicts)
  return { why, charts: whyCharts(ENV, why) }
}

t.test('one chart of every cell, then one per profiled comparison, all in the why section', async (t) => {
  const { charts: list } = charts(t)
  t.same(list.map((c) => [c.file, c.section, c.pair]), [['why-costs.svg', 'why', undefined],
    [`why-${A}-vs-${B}.svg`, 'why', `${A}-vs-${B}`]])
  t.equal(charts(t, []).charts.length, 1, 'no comparison, no difference chart')
})

t.test('each cell is a stack of its categories in the profile\'s order and colours, as long as its total', async (t) => {
  const { charts: [costs] } = charts(t)
  const drawn = bars(costs.svg)
  const shown = ['app', 'http', 'fs', 'pool', 'gc', 'kernel-fs', 'kernel-wake'] // the categories above 0 somewhere
  t.same([...new Set(drawn.map((b) => b.fill))], shown.map((id) => CATEGORY_COLORS[id]), 'one colour per category, in order')
  for (const id of shown) t.ok(textOf(costs.svg, id), `${id} is in the legend`)
  t.notOk(textOf(costs.svg, 'express'), 'a category no cell shows is left out')
  const rowY = (cell) => textOf(costs.svg, cell).y
  const of = (data) => drawn.filter((b) => b.data === data && b.w > 0)
  t.ok(of(0).every((b) => Math.abs(b.y + 9 - rowY(A)) < 1), 'a\'s bars on a\'s row')
  t.ok(of(1).every((b) => Math.abs(b.y + 9 - rowY(B)) < 1), 'b\'s bars on b\'s row')
  const [x0, x30] = ['0', '30'].map((v) => textOf(costs.svg, v).x)
  const length = (data) => of(data).reduce((sum, b) => sum + b.w, 0) / (x30 - x0) * 30
  t.ok(Math.abs(length(0) - 108) < 1, `a's stack is 108 µs long: ${length(0)}`)
  t.ok(Math.abs(length(1) - 151) < 1, `b's stack is 151 µs long: ${length(1)}`)
})

t.test('a comparison\'s bars diverge from 0, coloured beyond noise and grey within it', async (t) => {
  const { charts: [, diff] } = charts(t)
  const drawn = bars(diff.svg)
  const rows = ['app', 'http', 'fs', 'pool', 'kernel-wake'] // the categories whose difference is not 0
  t.same(rows.map((id) => textOf(diff.svg, id)?.y), [...rows.map((id) => textOf(diff.svg, id).y)].sort((a, b) => a - b), 'in the profile\'s order')
  t.notOk(textOf(diff.svg, 'gc'), 'a category that did not differ at all is left out')
  t.same(drawn.map((b) => b.fill), [DIFF_COLORS.noise, DIFF_COLORS.noise, DIFF_COLORS.more, DIFF_COLORS.less, DIFF_COLORS.less])
  const zero = textOf(diff.svg, '0').x
  t.ok(drawn[2].x - zero < 1 && drawn[2].w > 0, 'fs (+12) grows right of 0')
  t.ok(drawn[4].w < 0 && Math.abs(drawn[4].w / drawn[3].w - 31 / 22) < 0.02, 'kernel-wake (−31) left, 31/22 as long as pool')
  t.same(['+12 [11–13]', '−31 [−31 to −29]', '−1.0 [−1.0 to +1.0]'].map((s) => textOf(diff.svg, s)?.fill),
    [DIFF_COLORS.more, DIFF_COLORS.less, DIFF_COLORS.noise], 'each interval at the right, in its bar\'s colour')
  t.ok(textOf(diff.svg, 'sync needs less ← µs per request → sync needs more'), 'the axis says which side is which')
  t.ok(textOf(diff.svg, '+50') && textOf(diff.svg, '−50'), 'a symmetric axis')
})

t.test('a comparison in which no category differs says so', async (t) => {
  const comparison = { names: ['A', 'B'], categories: [{ id: 'app', estimate: 0, low: 0, high: 0, beyond: false }] }
  const svg = differenceChart({ title: 'A/A', env: ENV, comparison })
  t.ok(textOf(svg, 'no category differs'))
  t.equal(bars(svg).length, 0)
})
