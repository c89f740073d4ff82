'use strict'
// client/stats.js and client/csv.js: records sent as JSON between processes, merged by the
// primary, give the figures a brute-force computation over the same samples gives.

const t = require('tap')
const { parse } = require('csv-parse/sync')
const stats = require('../../client/stats')
const { formatCsv, COLUMNS } = require('../../client/csv')

// A deterministic spread of latencies (µs) from 80 to ~2 s, with a heavy tail.
function samples (n, seed) {
  let x = seed
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2147483648
    const u = x / 2147483648
    return Math.round(80 + 400 * u + (u > 0.97 ? 2e6 * (u - 0.97) * 30 : 0))
  })
}

// Nearest-rank percentile, HdrHistogram's definition.
function percentile (sorted, p) {
  return sorted[Math.max(1, Math.ceil(p / 100 * sorted.length)) - 1]
}

t.test('merged figures equal a brute-force computation over the same samples', async (t) => {
  const parts = [samples(5000, 1), samples(3, 2), samples(12000, 3), samples(0, 4), samples(800, 5)]
  const sent = parts.map((part) => {
    const rec = stats.createRecord()
    for (const us of part) stats.recordLatency(rec, us)
    stats.recordError(rec, 'timeout')
    return JSON.parse(JSON.stringify(stats.serializeRecord(rec))) // through IPC
  })
  const merged = stats.summarize(stats.mergeRecords(sent.map(stats.deserializeRecord)))

  const all = parts.flat().sort((a, b) => a - b)
  t.equal(merged.count, all.length)
  t.equal(merged.errors, parts.length)
  t.equal(merged.min, all[0])
  t.equal(merged.max, all.at(-1))
  t.equal(merged.mean, all.reduce((a, b) => a + b, 0) / all.length, 'the mean is exact, not an average of averages')
  for (const [name, p] of [['p50', 50], ['p90', 90], ['p99', 99], ['p999', 99.9]]) {
    const exact = percentile(all, p)
    t.ok(Math.abs(merged[name] - exact) <= exact / 1000 + 1, `${name}: ${merged[name]} within 0.1% of ${exact}`)
  }
})

t.test('an empty record summarizes to nulls, and percentiles never leave [min, max]', async (t) => {
  t.same(stats.summarize(stats.createRecord()), { count: 0, errors: 0, min: null, mean: null, max: null, p50: null, p90: null, p99: null, p999: null })
  const rec = stats.createRecord()
  stats.recordLatency(rec, 123456) // HDR's bucket for it ends at 123519
  t.same(stats.summarize(rec), { count: 1, errors: 0, min: 123456, mean: 123456, max: 123456, p50: 123456, p90: 123456, p99: 123456, p999: 123456 })
})

t.test('the CSV has the historic columns first, a row per process and type, then the merged rows', async (t) => {
  const s = (mean) => ({ count: 2, errors: 1, min: 10, mean, max: 30, p50: 20, p90: 30, p99: 30, p999: 30 })
  const empty = stats.summarize(stats.createRecord())
  const report = {
    processes: [{ index: 1, latency: { GET: s(20), PUT: empty } }, { index: 2, latency: { GET: s(10), PUT: s(15.5) } }],
    latency: { GET: s(15), PUT: s(15.5) }
  }
  const csv = formatCsv(report)
  t.equal(csv.split('\n')[0], 'PUT/GET,Min,Mean,101% of Mean,Max,Count,p50,p90,p99,p99.9,Errors')
  const rows = parse(csv, { columns: true })
  t.same(rows.map((r) => r['PUT/GET']), ['PUT process 1', 'GET process 1', 'PUT process 2', 'GET process 2', 'PUT all', 'GET all'])
  t.same(Object.keys(rows[0]), COLUMNS)
  t.equal(rows[0].Mean, '', 'no figures where nothing succeeded')
  t.same(rows[2], {
    'PUT/GET': 'PUT process 2', Min: '10', Mean: '15.5', '101% of Mean': '15.655', Max: '30', Count: '2',
    p50: '20', p90: '30', p99: '30', 'p99.9': '30', Errors: '1'
  })
})
