'use strict'
// bench/soak.js for 8 seconds instead of 30 minutes: every interval is sampled (RSS, descriptors,
// p99), nothing fails, every interval's writes verify, and the chart is drawn. Its speed and
// memory criteria are judged by the bench on a real run (bench/RESULTS.md), not asserted here.

const t = require('tap')
const { execFile } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('../../bench/soak')
const { verdict } = require('../../bench/lib/soak-figures')

const SOAK = path.resolve(__dirname, '..', '..', 'bench', 'soak.js')

t.test('soak flags: minutes by default 30, seconds override, and a bad flag is refused', async (t) => {
  t.match(parseArgs([]), { totalSeconds: 1800, rate: 200, interval: 10, kinds: ['sync', 'async', 'sync-cluster', 'async-cluster'] })
  t.match(parseArgs(['--minutes=2', '--kinds=async']), { totalSeconds: 120, kinds: ['async'] })
  t.equal(parseArgs(['--minutes=2', '--seconds=6', '--interval=2']).totalSeconds, 6)
  t.throws(() => parseArgs(['--kinds=fast']), /bad argument --kinds=fast/)
  t.throws(() => parseArgs(['--seconds=1', '--interval=2']), /seconds >= interval/)
})

t.test('the verdict compares the end with the reference time and wants no failure', async (t) => {
  const sample = (seconds, rss, fds, p99, failures = 0) => ({ seconds, rssBytes: rss, fds, p99Us: p99, failures, verified: true, load1: 1 })
  const steady = Array.from({ length: 12 }, (_, i) => sample(10 * (i + 1), 100 + (i > 3 ? 5 : 0), 20, 1000))
  t.match(verdict(steady, { totalSeconds: 120 }), { referenceSeconds: 20, windowSeconds: 20, rssRatio: 1.05, fdsFlat: true, p99Ratio: 1, loadRef: 1, ok: true })
  const blip = steady.map((s, i) => (i === 6 ? { ...s, fds: 24, p99Us: 90000 } : s))
  t.match(verdict(blip, { totalSeconds: 120 }), { fdsFlat: true, p99Ratio: 1, ok: true }, 'one descriptor blip and one slow interval are not a trend')
  const leaking = steady.map((s, i) => ({ ...s, rssBytes: 100 + 10 * i, fds: 20 + i }))
  t.match(verdict(leaking, { totalSeconds: 120 }), { fdsFlat: false, ok: false })
  t.ok(verdict(leaking, { totalSeconds: 120 }).rssRatio > 1.1)
  const slowing = steady.map((s, i) => ({ ...s, p99Us: 1000 * (i + 1) }))
  t.ok(verdict(slowing, { totalSeconds: 120 }).p99Ratio > 1.5, 'a p99 that keeps rising fails')
  t.match(verdict([...steady.slice(0, -1), sample(120, 105, 20, 1000, 1)], { totalSeconds: 120 }), { failures: 1, ok: false })
})

t.test('a soak of seconds samples every interval, fails nothing, verifies every write and draws its chart', async (t) => {
  const dir = t.testdir()
  const chart = path.join(dir, 'soak.svg')
  const { code, stdout, stderr } = await new Promise((resolve) => execFile(process.execPath,
    [SOAK, '--seconds=8', '--interval=2', '--rate=50', '--kinds=sync,async-cluster', `--chart=${chart}`],
    { timeout: 120000 }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr })))
  t.ok(code === 0 || code === 1, `exit ${code} (1: a criterion missed on a short, noisy run): ${stderr.slice(-300)}`)
  const result = JSON.parse(stdout)
  t.same(result.kinds.map((k) => k.kind), ['sync', 'async-cluster'])
  for (const { kind, samples, verdict: v } of result.kinds) {
    t.ok(samples.length >= 2 && samples.length <= 10, `${kind}: one sample per interval until the time is up (${samples.length})`)
    for (const s of samples) {
      t.ok(s.rssBytes > 0 && s.fds > 0 && s.p99Us > 0, `${kind} at ${s.seconds} s: rss, descriptors and p99 recorded`)
      t.equal(s.failures, 0, `${kind} at ${s.seconds} s: no failure`)
      t.equal(s.verified, true, `${kind} at ${s.seconds} s: every write verified`)
    }
    t.equal(samples[0].processes, kind === 'sync' ? 1 : 3, `${kind}: every process of the server counted`)
    t.match(v, { rssRatio: Number, p99Ratio: Number, fdsFlat: Boolean, failures: 0, verified: true })
  }
  t.match(fs.readFileSync(chart, 'utf8'), /^<svg[^]*server RSS \(MiB\)[^]*p99 \(ms\)[^]*<\/svg>$/)
  t.match(stderr, /async-cluster RSS end\/ref \d/)
})
