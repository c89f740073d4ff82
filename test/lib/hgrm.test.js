'use strict'
// The .hgrm files: HdrHistogram's percentile-distribution text, written from the client's
// histograms and read back, with the percentiles the client's JSON reports.

const t = require('tap')
const { createRecord, recordLatency, serializeRecord, summarize } = require('../../client/stats')
const { formatHgrm, decodeHistogram, mergeHistograms, parseHgrm } = require('../../lib/results/hgrm')

// A client record of n latencies (µs) from a fixed long-tailed distribution.
function record (n, scale = 1) {
  const rec = createRecord()
  for (let i = 0; i < n; i++) {
    const u = (i * 7919 % n + 0.5) / n // every quantile once, in a scrambled order
    recordLatency(rec, Math.round(scale * (150 + 600 * u + (u > 0.99 ? 40000 * (u - 0.99) / 0.01 : 0))))
  }
  return rec
}
const textOf = (rec) => formatHgrm(decodeHistogram(serializeRecord(rec).histogram))

t.test('the text has HdrHistogram\'s layout: header, fixed-width rows, the last without 1/(1-p), three footer lines', async (t) => {
  const lines = textOf(record(10000)).split('\n')
  t.equal(lines[0], '       Value     Percentile TotalCount 1/(1-Percentile)', 'Java\'s "%12s %14s %10s %14s" header')
  t.equal(lines[1], '', 'then a blank line')
  const rows = lines.slice(2, lines.findIndex((l) => l.startsWith('#')))
  t.ok(rows.length > 50, `${rows.length} percentile rows`)
  for (const row of rows.slice(0, -1)) t.match(row, /^[ \d]{7}\d\.\d{3} \d\.\d{12} [ \d]{9}\d [ \d]{10}\d\.\d\d$/, 'a "%12.3f %2.12f %10d %14.2f" row')
  t.match(rows[rows.length - 1], /^[ \d]{7}\d\.\d{3} 1\.000000000000 [ \d]{5}10000$/, 'the 100% row has no 1/(1-p)')
  t.match(lines.slice(-4), [/^#\[Mean {4}= +\d+\.\d{3}, StdDeviation {3}= +\d+\.\d{3}\]$/,
    /^#\[Max {5}= +\d+\.\d{3}, Total count {4}= +10000\]$/, /^#\[Buckets = +\d+, SubBuckets {5}= +\d+\]$/, /^$/])
})

t.test('read back, the file has the JSON\'s count, mean, max and percentiles, in ms', async (t) => {
  const rec = record(10000)
  const json = summarize(rec)
  const hgrm = parseHgrm(textOf(rec))
  t.equal(hgrm.totalCount, json.count)
  t.equal(hgrm.rows[hgrm.rows.length - 1].totalCount, json.count)
  t.ok(Math.abs(hgrm.meanMs * 1000 - json.mean) <= 1, `mean ${hgrm.meanMs} ms ~ ${json.mean} µs`)
  // HDR keeps 3 significant digits: the file's max is the top of the bucket that holds the exact one.
  t.ok(hgrm.maxMs * 1000 >= json.max && hgrm.maxMs * 1000 <= json.max * 1.001, `max ${hgrm.maxMs} ms ~ ${json.max} µs`)
  // 50% and 90% are ticks of the distribution: the same value (±1 µs of rounding to 3 decimals in ms).
  for (const [p, name] of [[0.5, 'p50'], [0.9, 'p90']]) {
    const row = hgrm.rows.find((r) => r.percentile === p)
    t.ok(Math.abs(row.valueMs * 1000 - json[name]) <= 1, `${name}: ${row.valueMs} ms ~ ${json[name]} µs`)
  }
  // 99% and 99.9% fall between two ticks: the JSON's value lies between theirs.
  for (const [p, name] of [[0.99, 'p99'], [0.999, 'p999']]) {
    const below = hgrm.rows.filter((r) => r.percentile <= p).pop()
    const above = hgrm.rows.find((r) => r.percentile >= p)
    t.ok(below.valueMs * 1000 - 1 <= json[name] && json[name] <= above.valueMs * 1000 + 1,
      `${name} ${json[name]} µs within [${below.valueMs}, ${above.valueMs}] ms`)
  }
})

t.test('merged histograms count every repeat\'s requests', async (t) => {
  const parts = [record(1000), record(3000, 2)].map((rec) => decodeHistogram(serializeRecord(rec).histogram))
  const merged = parseHgrm(formatHgrm(mergeHistograms(parts)))
  t.equal(merged.totalCount, 4000)
  const max = summarize(record(3000, 2)).max
  t.ok(merged.maxMs * 1000 >= max && merged.maxMs * 1000 <= max * 1.001, 'the max is the larger repeat\'s')
})

t.test('an empty histogram is a valid file with no rows; other text is refused with the line', async (t) => {
  const empty = parseHgrm(textOf(createRecord()))
  t.same([empty.rows, empty.totalCount], [[], 0])
  t.throws(() => parseHgrm('Value,Percentile\n'), /not an \.hgrm file: line 1 is not the header/)
  const broken = textOf(record(100)).replace(/\n {7}0\.\d{3} 0\.1\d+/, '\n  garbage')
  t.throws(() => parseHgrm(broken), /not an \.hgrm file: line \d+ is " {2}garbage/)
})
