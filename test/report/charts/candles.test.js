'use strict'
// The historic per-process candles of a cell (report/charts/candles.js): merging the client
// documents of its rounds, one candle per process and operation on a log axis, and the empty case.

const t = require('tap')
const { candlesChart, mergeProcessLatency } = require('../../../report/charts/candles')

const ENV = { cpus: 2, node: 'v20.20.2' }
const none = { count: 0, min: null, mean: null, max: null }
const doc = (...processes) => ({ processes: processes.map(([index, GET, PUT]) => ({ index, latency: { GET, PUT } })) })

const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
function texts (svg) {
  return [...svg.matchAll(/<text ([^>]*)>([^<]*)<\/text>/g)].map(([, attrs, text]) => {
    const [, x, y] = /translate\(([-\d.]+) ([-\d.]+)\)/.exec(attrs).map(Number)
    return { text: unescape(text), x, y }
  })
}
// Each candle's path: its x (the wick) and its top and bottom y (the ends of the wicks).
function candles (svg) {
  return [...svg.matchAll(/<path d="([^"]+)"[^>]*ecmeta_series_index="0" ecmeta_data_index="\d+"/g)].map(([, d]) => {
    const points = [...d.matchAll(/[ML]([\d.]+) ([\d.]+)/g)].map(([, x, y]) => [Number(x), Number(y)])
    const wick = points.slice(4)
    return { x: wick[0][0], top: Math.min(...wick.map((p) => p[1])), bottom: Math.max(...wick.map((p) => p[1])) }
  })
}
const draw = (processes) => candlesChart({ title: 'Latency per client process', env: ENV, cell: 'sync-s1-c4-doff', processes })

t.test('mergeProcessLatency: per process and operation the least min, weighted mean, greatest max, summed count', async (t) => {
  const merged = mergeProcessLatency([
    doc([2, { count: 2, min: 50, mean: 100, max: 900 }, none], [1, { count: 1, min: 10, mean: 20, max: 30 }, { count: 4, min: 5, mean: 8, max: 11 }]),
    doc([1, { count: 3, min: 12, mean: 40, max: 70 }, none], [2, { count: 6, min: 40, mean: 200, max: 300 }, none])
  ])
  t.same(merged, [
    { process: 1, op: 'GET', min: 10, mean: 35, max: 70, count: 4 },
    { process: 2, op: 'GET', min: 40, mean: 175, max: 900, count: 8 },
    { process: 1, op: 'PUT', min: 5, mean: 8, max: 11, count: 4 },
    { process: 2, op: 'PUT', min: null, mean: null, max: null, count: 0 }
  ], 'GETs first, then PUTs, each by process; an operation never done stays empty')
})

t.test('mergeProcessLatency: no documents or no processes merge to nothing', async (t) => {
  t.same(mergeProcessLatency([]), [])
  t.same(mergeProcessLatency([{ processes: [] }]), [])
})

t.test('one candle per process and operation with operations, GETs first, each by process', async (t) => {
  const processes = [
    { process: 2, op: 'PUT', min: 300, mean: 1200, max: 40000, count: 5 },
    { process: 2, op: 'GET', min: 200, mean: 900, max: 9000, count: 50 },
    { process: 1, op: 'PUT', min: 250, mean: 1000, max: 5000, count: 4 },
    { process: 3, op: 'PUT', min: null, mean: null, max: null, count: 0 },
    { process: 1, op: 'GET', min: 150, mean: 800, max: 60000, count: 40 }
  ]
  const svg = draw(processes)
  const labels = texts(svg).filter((e) => /^(GET|PUT) \d+$/.test(e.text)).sort((a, b) => a.x - b.x)
  t.same(labels.map((e) => e.text), ['GET 1', 'GET 2', 'PUT 1', 'PUT 2'], 'a count of 0 is skipped')
  const drawn = candles(svg)
  t.equal(drawn.length, 4, 'four candles')
  t.ok(drawn.every((c, i) => Math.abs(c.x - labels[i].x) < 1), 'each above its label')
  // On a log axis 100, 1,000 and 10,000 are evenly spaced, and a value sits where its logarithm says.
  const ticks = Object.fromEntries(texts(svg).filter((e) => /^[\d,]+$/.test(e.text)).map((e) => [e.text.replace(/,/g, ''), e.y]))
  t.ok(Math.abs((ticks[100] - ticks[1000]) - (ticks[1000] - ticks[10000])) < 1, 'a log axis')
  const y = (v) => ticks[1000] + (ticks[1000] - ticks[100]) * Math.log10(v / 1000)
  const sorted = processes.filter((p) => p.count > 0).sort((a, b) => a.op.localeCompare(b.op) || a.process - b.process)
  sorted.forEach((p, i) => {
    t.ok(Math.abs(drawn[i].top - y(p.max)) < 1.5, `${p.op} ${p.process} reaches up to its max`)
    t.ok(Math.abs(drawn[i].bottom - y(p.min)) < 1.5, `${p.op} ${p.process} reaches down to its min`)
  })
})

t.test('the subtitle names the cell', async (t) => {
  const svg = draw([{ process: 1, op: 'GET', min: 1, mean: 2, max: 3, count: 1 }])
  t.ok(texts(svg).some((e) => e.text.startsWith('2 cores · Node v20.20.2 · sync-s1-c4-doff')))
})

t.test('no operations give a chart that says there is nothing to draw', async (t) => {
  const svg = draw([{ process: 1, op: 'GET', min: null, mean: null, max: null, count: 0 }])
  t.ok(texts(svg).some((e) => e.text === 'no latency recorded'))
  t.equal(candles(svg).length, 0)
  t.ok(draw([]).includes('>no latency recorded<'))
})
