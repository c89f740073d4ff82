'use strict'
// sweep/capacity/judge.js and lib/slo.js: a probe judged on its requests pooled, with scripted records; and the
// generator blamed only on its own figures (its send rate, CPU and event-loop delay), never on lateness alone.

const t = require('tap')
const { parseSlo, formatSlo, minRequests } = require('../../../lib/slo')
const { judgeProbe, probeSeconds } = require('../../../sweep/capacity/judge')
const { createRecord, recordLatency } = require('../../../client/stats')

t.test('--slo: percentiles with limits, a comma list, and one clear reason for each bad form', async (t) => {
  t.same(parseSlo('p99:20ms'), [{ name: 'p99', percentile: 99, us: 20000 }])
  t.same(parseSlo('p50:500us,p999:1.5s').map((x) => x.us), [500, 1500000])
  t.equal(formatSlo(parseSlo('p50:5ms,p99:20ms')), 'p50 ≤ 5 ms, p99 ≤ 20 ms')
  const why = (text) => { try { parseSlo(text) } catch (reason) { return reason } } // a validator throws its message
  t.match(why('p99:abc'), /must be PERCENTILE:LIMIT such as p99:20ms/)
  t.match(why('p101:5ms'), /p101 is not a percentile it knows: p50, p90, p99, p999/)
  t.match(why('p99:0ms'), /above 0/)
  t.match(why('p99:5ms,p99:6ms'), /twice/)
})

// Records of one window: `n` requests at `us` µs each, of which the last `slow` at `tail` µs; every 11th a PUT.
function window (n, us, slow = 0, tail = us) {
  const slice = { GET: createRecord(), PUT: createRecord() }
  for (let i = 0; i < n; i++) recordLatency(slice[i % 11 === 0 ? 'PUT' : 'GET'], i >= n - slow ? tail : us)
  return slice
}
const SLO = parseSlo('p99:20ms')
// A probe at 500 req/s of these windows; its generator on time, idle and quick unless `more` says otherwise.
const probeOf = (slices, more) => ({ rate: 500, seconds: slices.length, failed: 0, late: 0, sent: 500 * slices.length, wallS: slices.length,
  lagS: 0, cpu: 0.1, delayUs: { p50: 50, p90: 100, p99: 300, p999: 800 }, slices, ...more })
const windows = (k, ...one) => Array.from({ length: k }, () => window(500, 2000, ...one)) // k calm windows of 500

t.test('a verdict rests on 30 requests beyond the percentile: the fewest requests, and how long a probe lasts for them', async (t) => {
  t.same(['p50:5ms', 'p90:5ms', 'p99:20ms', 'p999:50ms', 'p50:5ms,p99:20ms'].map((text) => minRequests(parseSlo(text))), [60, 300, 3000, 30000, 3000])
  t.equal(probeSeconds(100, 1, SLO), 30, 'p99 at 100 req/s: 30 s')
  t.equal(probeSeconds(400, 1, SLO), 8, 'at 400 req/s: 8 s, 3,200 requests')
  t.equal(probeSeconds(5000, 1, SLO), 1, 'at 5,000 req/s: the second asked for')
  t.equal(probeSeconds(400, 3, SLO), 9, 'a confirmation of 3 s is repeated: 9 s')
  t.equal(probeSeconds(100, 1, parseSlo('p90:20ms')), 3)
})

t.test('a probe is judged on its requests pooled: one bad window among many good requests passes, enough slow requests fail it', async (t) => {
  // 10 windows of 500: one has 10 requests at 45 ms, its own p99; pooled they are 10 of 5,000, under 1%.
  const one = judgeProbe(probeOf([...windows(9), window(500, 2000, 10, 45000)]), SLO)
  t.match(one, { passed: true, invalid: false, reason: '', requests: 5000, windowsOver: 1 }, 'passes, and the window is flagged')
  t.ok(one.pooled.p99 < 20000, `pooled p99 ${one.pooled.p99} µs`)
  // 60 of 5,000 at 45 ms, over 1%: in one window or spread over all, it fails.
  const many = judgeProbe(probeOf([...windows(9), window(500, 2000, 60, 45000)]), SLO)
  t.match(many, { passed: false, invalid: false, reason: /^p99 4\d(\.\d)? ms > 20 ms over 5000 requests$/ })
  t.ok(many.pooled.p99 > 40000 && many.pooled.p99_GET > 40000, 'the row keeps the pooled percentiles, all requests and each op')
  t.match(judgeProbe(probeOf(windows(10, 6, 45000)), SLO), { passed: false, windowsOver: 10 }, '6 in every window: 60 of 5,000')
  t.match(judgeProbe(probeOf(windows(10, 4, 45000)), SLO), { passed: true, windowsOver: 0 }, '4 in every window: 40 of 5,000')
  t.match(judgeProbe(probeOf(windows(6)), parseSlo('p50:1ms,p99:20ms')), { passed: false, reason: /^p50 2 ms > 1 ms/ }, 'every target of a list must hold')
})

t.test('a probe with too few requests for the percentile is not judged', async (t) => {
  const short = judgeProbe(probeOf(windows(5)), SLO)
  t.match(short, { passed: false, invalid: true, cause: 'few', requests: 2500, reason: /^2500 requests are too few to judge p99 \(3000 at least\)$/ })
  t.match(judgeProbe(probeOf(windows(6)), SLO), { passed: true, requests: 3000 }, '3,000 are enough')
  t.match(judgeProbe(probeOf(windows(5, 50, 45000)), SLO), { passed: false, invalid: true }, 'not even when slow: 50 of 2,500 says nothing of a p99')
  t.match(judgeProbe(probeOf(windows(1)), parseSlo('p90:20ms')), { passed: true, requests: 500 }, 'a p90 needs 300')
})

t.test('the windows are a stability check: a backlog fails; a failure fails', async (t) => {
  const climbing = [2000, 2600, 3300, 4100, 5000, 6000].map((us) => window(500, us))
  t.match(judgeProbe(probeOf(climbing), SLO), { passed: false, invalid: false, cause: 'backlog', reason: /latency climbed every second .*: a backlog/ },
    'within the SLO pooled, but climbing')
  const back = [2000, 2600, 3300, 2500, 5000, 6000].map((us) => window(500, us))
  t.match(judgeProbe(probeOf(back), SLO), { passed: true }, 'a rise that falls back is no backlog')
  t.match(judgeProbe(probeOf(windows(6), { failed: 3 }), SLO), { passed: false, invalid: false, cause: 'failed', reason: '3 requests failed' })
})

t.test('a late generator that is idle is valid: its lateness counts against the server, and a probe that passed passed', async (t) => {
  // 600 of 3,000 sends over 5 ms late (80% on time), yet the generator released them all within 3 ms of the schedule's end, idle.
  const late = judgeProbe(probeOf(windows(6), { late: 600, lagS: 0.003 }), SLO)
  t.match(late, { passed: true, invalid: false, cause: '' })
  t.equal(late.onTime, 0.8, 'the on-time share is kept, as a figure')
  const failing = judgeProbe(probeOf(windows(6, 100, 45000), { late: 600 }), SLO)
  t.match(failing, { passed: false, invalid: false, cause: 'slo', reason: /^p99 4\d(\.\d)? ms > 20 ms over 3000 requests$/ }, 'a late one that failed failed')
})

t.test('the generator is blamed on its own figures: a send rate under the offered, a saturated CPU, its own event-loop delay', async (t) => {
  // 3,000 sends over 6 s + 0.5 s of lag: 461.5 req/s, under 95% of 500 (475).
  t.match(judgeProbe(probeOf(windows(6), { lagS: 0.5 }), SLO), { passed: false, invalid: true, cause: 'generator',
    reason: /^the generator released 462 req\/s of 500 \(under 95%\): it, not the server, was the limit$/ }, 'even a probe within the SLO')
  t.match(judgeProbe(probeOf(windows(6), { lagS: 0.3 }), SLO), { passed: true }, '3,000 over 6.3 s is 476 req/s: enough')
  const slow = windows(6, 100, 45000) // 600 of 3,000 at 45 ms: p99 about 45 ms
  t.match(judgeProbe(probeOf(slow, { cpu: 0.97 }), SLO), { passed: false, invalid: true, cause: 'generator',
    reason: /^p99 4\d(\.\d)? ms > 20 ms over 3000 requests, but a generator process was busy 97% of the probe \(90% at most\)/ })
  t.match(judgeProbe(probeOf(slow, { cpu: 0.89 }), SLO), { passed: false, invalid: false, cause: 'slo' }, 'at 89% its own work left it time')
  t.match(judgeProbe(probeOf(windows(6), { cpu: 0.97 }), SLO), { passed: true, invalid: false }, 'a probe that passed with a busy generator passed')
  t.match(judgeProbe(probeOf(slow, { delayUs: { p50: 100, p90: 1000, p99: 30000, p999: 40000 } }), SLO), { passed: false, invalid: true,
    cause: 'generator', reason: /the generator's own event loop was 30 ms late at p99, 50% or more of the 4\d(\.\d)? ms measured/ })
  t.match(judgeProbe(probeOf(slow, { delayUs: { p50: 100, p90: 1000, p99: 15000, p999: 40000 } }), SLO), { passed: false, invalid: false,
    cause: 'slo' }, '15 ms of its own delay cannot make 45 ms: the server was over')
})
