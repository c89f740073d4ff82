'use strict'
// The interference chart (report/charts/interference.js): per pass the stacked CPU share of others
// and steal against --maxInterference, dropped passes marked, each cell's throughput below.

const t = require('tap')
const { interferenceChart } = require('../../../report/charts/interference')

const ENV = { cpus: 2, node: 'v20.20.2' }
const pass = (round, n, second, kept, other, steal) => ({ round, pass: n, startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
  kept, seconds: 2, own: 0.5, other, steal, iowait: 0, interference: other + steal, runnable: 1, load1: 1 })
// Round 2 starts 6 s after round 1's last pass ended: the axis is time, not pass number.
const PASSES = [pass(1, 1, 0, true, 0.02, 0.01), pass(1, 2, 2, false, 0.2, 0.05), pass(2, 1, 10, true, 0.04, 0)]
const window = (round, n, kept, cell, opsPerSec) => ({ round, pass: n, kept, cell, ops: 200, wallUs: 1000, opsPerSec })
const WINDOWS = [window(1, 1, true, 'sync-s1-c4', 100), window(1, 1, true, 'async-s1-c4', 200),
  window(1, 2, false, 'sync-s1-c4', 50), window(1, 2, false, 'async-s1-c4', 150),
  window(2, 1, true, 'sync-s1-c4', 110), window(2, 1, true, 'async-s1-c4', 210)]

const draw = (spec = {}) => interferenceChart({ title: 'Interference', env: ENV, maxInterference: 0.1, passes: PASSES, windows: WINDOWS, ...spec })
// The drawn (not silent) elements of a series.
const elements = (svg, series) => {
  const pattern = `<(?:path|polygon) [^>]*ecmeta_series_index="${series}" ecmeta_data_index="\\d+" ecmeta_ssr_type="chart" class[^>]*>`
  return [...svg.matchAll(new RegExp(pattern, 'g'))].map((m) => m[0])
}
// A custom-series rectangle: "M x y l w 0 l 0 h ...".
const rects = (svg, series) => elements(svg, series).map((e) => {
  const [, x, y, w, h] = /d="M([\d.]+) ([\d.]+)l([\d.]+) 0l0 ([\d.]+)/.exec(e).map(Number)
  return { x, y, w, h }
})
// A symbol: its centre and fill.
const points = (svg, series) => elements(svg, series).map((e) => {
  const [, x, y] = /matrix\([^,]+,0,0,[^,]+,([\d.]+),([\d.]+)\)/.exec(e).map(Number)
  return { x, y, fill: /fill="([^"]+)"/.exec(e)[1] }
})
const near = (a, b) => Math.abs(a - b) < 1

t.test('each pass is a bar over its own time span, other and steal stacked', async (t) => {
  const svg = draw()
  const other = rects(svg, 0)
  const steal = rects(svg, 1)
  t.equal(other.length, 3, 'a bar of others per pass')
  t.equal(steal.length, 3, 'a bar of steal per pass')
  t.ok(near(other[1].x, other[0].x + other[0].w), 'pass 2 starts where pass 1 ends')
  t.ok(near((other[2].x - other[0].x) / other[0].w, 5), 'round 2 starts 10 s after the first pass, not next to it')
  t.ok(near(other[1].h / other[0].h, 10), 'heights follow the share (20% against 2%)')
  steal.forEach((s, i) => t.ok(near(s.y + s.h, other[i].y), `steal sits on others in pass ${i + 1}`))
  t.ok(near(steal[1].h / other[1].h, 0.25), 'steal 5% on others 20%')
})

t.test('a dashed line marks --maxInterference at its height', async (t) => {
  const svg = draw()
  t.ok(svg.includes('>--maxInterference 10%<'), 'labelled with the limit')
  const [, y] = /<path d="M[\d.]+ ([\d.]+)L[\d.]+ [\d.]+"[^>]*stroke-dasharray/.exec(svg).map(Number)
  const [, dropped] = rects(svg, 0)
  t.ok(near(dropped.y + dropped.h - y, dropped.h / 2), '10% is half of the 20% bar')
  t.ok(draw({ maxInterference: 0.25 }).includes('>--maxInterference 25%<'))
})

t.test('a dropped pass is marked in both panels and its points are hollow', async (t) => {
  const svg = draw()
  const [, dropped] = rects(svg, 0)
  const marks = points(svg, 2)
  t.equal(marks.length, 1, 'one marker: one pass dropped')
  t.ok(near(marks[0].x, dropped.x + dropped.w / 2), 'above the dropped pass')
  const bands = [...svg.matchAll(/<polygon points="([\d. ]+)" fill="rgb\(192,57,43\)"/g)].map((m) => m[1].split(' ').map(Number))
  t.equal(bands.length, 2, 'a band in each panel')
  bands.forEach((b) => t.ok(near(b[0], dropped.x) && near(b[2], dropped.x + dropped.w), 'over the dropped pass'))
  t.ok(svg.includes('1 of 3 passes dropped'), 'the subtitle counts them')
  t.equal(points(draw({ passes: PASSES.map((p) => ({ ...p, kept: true })) }), 2).length, 0, 'no marker when none was dropped')
})

// A cell's throughput line (stroke-width 2, in its colour): its vertices.
const line = (svg, color) => [...svg.matchAll(/<path d="(M[^"]+)" fill="none" pointer-events="visible" stroke="([^"]+)" stroke-width="2"/g)]
  .find((m) => m[2] === color)[1].split(/[ML]/).filter(Boolean).map((xy) => xy.split(' ').map(Number)).map(([x, y]) => ({ x, y }))

t.test('one throughput line per cell through its passes in the order of time; a dropped pass a hollow point', async (t) => {
  const svg = draw()
  t.ok(svg.includes('>sync-s1-c4<') && svg.includes('>async-s1-c4<'), 'the legend names the cells')
  const other = rects(svg, 0)
  const lines = {}
  for (const [cell, color, hollow] of [['sync-s1-c4', '#2471a3', 4], ['async-s1-c4', '#17a589', 6]]) {
    lines[cell] = line(svg, color)
    t.equal(lines[cell].length, 3, `${cell}: a vertex per pass`)
    lines[cell].forEach((p, i) => t.ok(near(p.x, other[i].x + other[i].w / 2), `${cell}: pass ${i + 1} at the middle of its span`))
    const marks = points(svg, hollow)
    t.equal(marks.length, 1, `${cell}: one hollow point`)
    t.ok(marks[0].fill === '#ffffff' && near(marks[0].x, lines[cell][1].x) && near(marks[0].y, lines[cell][1].y), `${cell}: on the dropped pass`)
  }
  t.ok(lines['sync-s1-c4'].every((p, i) => p.y > lines['async-s1-c4'][i].y), 'higher ops/s is drawn higher')
  t.notOk(/ecmeta_series_index="[3-6]" ecmeta_data_index="\d+" ecmeta_ssr_type="chart"/.test(draw({ passes: PASSES.map((p) => ({ ...p, kept: true })) })),
    'no points at all when no pass was dropped')
})

t.test('no passes give a chart that says so', async (t) => {
  const svg = draw({ passes: [], windows: [] })
  t.ok(svg.includes('>no passes recorded<'))
  t.equal(rects(svg, 0).length, 0)
})
