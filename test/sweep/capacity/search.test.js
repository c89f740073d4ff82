'use strict'
// The capacity search and its probe rule, pure (sweep/capacity/search.js, judge.js, lib/slo.js),
// then the client's probe against a fake server whose latency jumps above a set rate (the knee).

const http = require('node:http')
const { once } = require('node:events')
const t = require('tap')
const { parseSlo, formatSlo, minRequests } = require('../../../lib/slo')
const { searchCapacity } = require('../../../sweep/capacity/search')
const { judgeProbe, probeSeconds } = require('../../../sweep/capacity/judge')
const { createRecord, recordLatency } = require('../../../client/stats')
const { createClient } = require('../../../client/load')
const { openPool } = require('../../../client/pool')

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

// A probe function of a server with a knee: passes at or below `knee`; invalid above `generator`.
function fakeProbe (knee, generator = Infinity) {
  const calls = []
  const probe = async (rate, seconds) => {
    calls.push({ rate, seconds })
    return { passed: rate <= knee && rate <= generator, invalid: rate > generator }
  }
  return { probe, calls }
}

t.test('the search finds a known knee within the precision, and confirms it with a probe three times as long', async (t) => {
  for (const knee of [137, 950, 3300, 17000]) {
    const { probe, calls } = fakeProbe(knee)
    const found = await searchCapacity(probe, { startRate: 100, endRate: 20000, precision: 0.05, seconds: 1 })
    t.ok(found.capacity <= knee && found.capacity >= knee / 1.05, `knee ${knee}: found ${found.capacity}`)
    t.ok(found.high / found.low <= 1.05 + 1e-9, `bracket [${found.low}, ${found.high}] within 5%`)
    t.equal(found.limit, 'slo')
    t.same(calls[calls.length - 1], { rate: found.capacity, seconds: 3 }, 'the last probe confirms, 3 times as long')
    t.same(calls.slice(0, 2).map((c) => c.rate), [100, 200], 'it starts low and doubles')
  }
})

t.test('a later round starts from the capacity found so far and needs fewer probes', async (t) => {
  const first = fakeProbe(2500)
  await searchCapacity(first.probe, { startRate: 100, endRate: 20000, precision: 0.05, seconds: 1 })
  const again = fakeProbe(2500)
  const found = await searchCapacity(again.probe, { startRate: 100, endRate: 20000, precision: 0.05, seconds: 1, prior: 2400 })
  t.equal(again.calls[0].rate, 2400, 'the first probe at the prior capacity')
  t.ok(found.capacity <= 2500 && found.capacity >= 2500 / 1.05, `found ${found.capacity}`)
  t.ok(again.calls.length < first.calls.length, `${again.calls.length} probes against ${first.calls.length}`)
  const lower = fakeProbe(1500)
  const down = await searchCapacity(lower.probe, { startRate: 100, endRate: 20000, precision: 0.05, seconds: 1, prior: 2400 })
  t.ok(down.capacity <= 1500 && down.capacity >= 1500 / 1.05, `a prior above the knee steps down: ${down.capacity}`)
})

t.test('the edges: nothing fails up to --endRate, even --startRate fails, the generator cannot keep up, the long probe fails', async (t) => {
  t.match(await searchCapacity(fakeProbe(1e9).probe, { startRate: 100, endRate: 1000, precision: 0.05, seconds: 1 }),
    { capacity: 1000, high: null, limit: 'endRate' })
  t.match(await searchCapacity(fakeProbe(50).probe, { startRate: 100, endRate: 1000, precision: 0.05, seconds: 1 }), { capacity: null, limit: 'startRate' })
  const generator = await searchCapacity(fakeProbe(5000, 1200).probe, { startRate: 100, endRate: 20000, precision: 0.05, seconds: 1 })
  t.match(generator, { limit: 'generator' }, 'an invalid probe ends the search: the server was not the limit')
  t.ok(generator.capacity <= 1200, `what it reports is a rate that passed: ${generator.capacity}`)
  // Short probes pass up to 1000, the longer ones only up to 800: the confirmation steps down.
  const probe = async (rate, seconds) => ({ passed: rate <= (seconds > 1 ? 800 : 1000), invalid: false })
  const found = await searchCapacity(probe, { startRate: 100, endRate: 20000, precision: 0.05, seconds: 1 })
  t.ok(found.capacity <= 800 && found.capacity > 600, `a failed confirmation steps down until one holds: ${found.capacity}`)
  // The generator falls behind in the longer probes above 900: the confirmation steps down to a rate it holds, a lower bound.
  const late = async (rate, seconds) => ({ passed: rate <= (seconds > 1 ? 900 : 1000), invalid: seconds > 1 && rate > 900 })
  const bound = await searchCapacity(late, { startRate: 100, endRate: 20000, precision: 0.05, seconds: 1 })
  t.match(bound, { limit: 'generator' }, 'said to be a lower bound')
  t.ok(bound.capacity <= 900 && bound.capacity > 800, `not nothing: ${bound.capacity}`)
  const never = async (rate, seconds) => ({ passed: seconds === 1 && rate <= 1000, invalid: seconds > 1 })
  t.match(await searchCapacity(never, { startRate: 100, endRate: 20000, precision: 0.05, seconds: 1 }), { capacity: null, limit: 'generator' },
    'no longer probe held: nothing, and why')
})

// Records of one window: `n` requests at `us` µs each, of which the last `slow` at `tail` µs; every 11th a PUT.
function window (n, us, slow = 0, tail = us) {
  const slice = { GET: createRecord(), PUT: createRecord() }
  for (let i = 0; i < n; i++) recordLatency(slice[i % 11 === 0 ? 'PUT' : 'GET'], i >= n - slow ? tail : us)
  return slice
}
const SLO = parseSlo('p99:20ms')
const probeOf = (slices, more) => ({ rate: 500, seconds: slices.length, failed: 0, late: 0, sent: 500 * slices.length, wallS: slices.length, slices, ...more })
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
  t.match(short, { passed: false, invalid: true, requests: 2500, reason: /^2500 requests are too few to judge p99 \(3000 at least\)$/ })
  t.match(judgeProbe(probeOf(windows(6)), SLO), { passed: true, requests: 3000 }, '3,000 are enough')
  t.match(judgeProbe(probeOf(windows(5, 50, 45000)), SLO), { passed: false, invalid: true }, 'not even when slow: 50 of 2,500 says nothing of a p99')
  t.match(judgeProbe(probeOf(windows(1)), parseSlo('p90:20ms')), { passed: true, requests: 500 }, 'a p90 needs 300')
})

t.test('the windows are a stability check: a backlog fails; a failure fails; a late generator makes it invalid', async (t) => {
  const climbing = [2000, 2600, 3300, 4100, 5000, 6000].map((us) => window(500, us))
  t.match(judgeProbe(probeOf(climbing), SLO), { passed: false, invalid: false, reason: /latency climbed every second .*: a backlog/ },
    'within the SLO pooled, but climbing')
  const back = [2000, 2600, 3300, 2500, 5000, 6000].map((us) => window(500, us))
  t.match(judgeProbe(probeOf(back), SLO), { passed: true }, 'a rise that falls back is no backlog')
  t.match(judgeProbe(probeOf(windows(6), { failed: 3 }), SLO), { passed: false, invalid: false, reason: '3 requests failed' })
  const late = judgeProbe(probeOf(windows(6, 100, 45000), { late: 60, sent: 3000 }), SLO)
  t.match(late, { passed: false, invalid: true, reason: /the generator sent 98\.0% of its requests on time .*it, not the server, was the limit/ },
    'invalid, not failed, even though the requests broke the SLO')
  t.match(judgeProbe(probeOf(windows(6), { late: 30, sent: 3000 }), SLO), { passed: true }, '99% on time is enough')
})

// A server whose answers wait 250 ms once more than `knee` requests arrived in the last 200 ms (× 5 a second).
// A server whose answers wait 250 ms while more than `knee` requests a second arrive; forget() clears
// what it counted, as a real server's queue has drained once every request of a probe is answered.
async function kneeServer (t, knee) {
  const arrivals = []
  const server = http.createServer((req, res) => {
    const now = Date.now()
    arrivals.push(now)
    // Arrivals over the last 500 ms: long enough that a generator stalled for a moment by other
    // tests on the cores (which then sends what fell due at once) does not look like a higher rate.
    while (arrivals[0] < now - 500) arrivals.shift()
    const answer = () => res.end(req.method === 'POST' ? 'success' : 'a line\n')
    req.resume()
    req.on('end', () => (arrivals.length * 2 > knee ? setTimeout(answer, 250) : answer()))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.closeAllConnections(); server.close() })
  return { port: server.address().port, forget: () => { arrivals.length = 0 } }
}

const configFor = (port, more) => ({ serverHostname: '127.0.0.1', serverPort: port, nClients: 2, concurrency: 16, timeout: 10000, rate: 0,
  nOperations: 20000, readsPerWrite: 10, nFiles: 4, value: 'v', warmup: 0, ...more })

t.test("the client's probes and the search find a fake server's knee within the precision", async (t) => {
  const knee = 1200
  const { port, forget } = await kneeServer(t, knee)
  const pool = openPool({ size: 2, logFd: 2 })
  t.teardown(() => pool.close())
  await pool.open('fake', configFor(port), 'run')
  // Other tests share the cores: a release counts as late only after 50 ms here (5 ms in a capacity
  // run), and the SLO is 100 ms, well under the 250 ms the server waits above its knee.
  const probes = []
  const probe = async (rate, seconds) => {
    forget()
    const slo = parseSlo('p90:100ms') // 300 requests, a second at the lowest rate
    const length = probeSeconds(rate, seconds, slo)
    const measured = { rate, seconds: length, ...await pool.probe('fake', 2, rate, length, 50) }
    const judged = judgeProbe(measured, slo)
    probes.push({ ...measured, ...judged })
    return judged
  }
  // A machine so busy that the generator itself fell behind says nothing about the search: search again (at most 3 times).
  let found
  for (let attempt = 1; attempt <= 3 && found?.limit !== 'slo'; attempt++) {
    probes.length = 0
    found = await searchCapacity(probe, { startRate: 300, endRate: 5000, precision: 0.1, seconds: 1 })
  }
  t.equal(found.limit, 'slo', probes.map((p) => `${p.rate}: ${p.reason || 'passed'}`).join('; '))
  // The server counts arrivals over 500 ms windows, so its knee blurs by a few percent either way. Above it
  // answers wait 250 ms, against an SLO of 100 ms that a loaded machine's latency below it stays far under.
  t.ok(found.capacity >= knee * 0.8 && found.capacity <= knee * 1.1, `found ${found.capacity} req/s for a knee at ${knee}`)
  // A probe that passed sent its rate's requests, and every one was answered: how soon the last answer came
  // (and so the rate achieved over the probe's wall time) is the machine's speed, not asserted here.
  for (const p of probes.filter((x) => x.passed)) {
    t.equal(p.sent, Math.round(p.rate * p.seconds), `${p.rate} req/s × ${p.seconds} s sent`)
    t.equal(Math.round(p.achieved * Math.max(p.seconds, p.wallS)), p.sent, `and answered (${Math.round(p.achieved)} req/s over ${p.wallS.toFixed(2)} s)`)
  }
})

t.test('a generator whose event loop is blocked counts its late sends; sends that waited for a free connection are not its fault', async (t) => {
  const { port } = await kneeServer(t, 1e9)
  const client = createClient({ config: configFor(port, { nClients: 1, concurrency: 8 }), index: 1, runId: 'run' })
  t.teardown(() => client.close())
  // Late here means over 50 ms late, ten times what a loaded machine's timers lag: only the stall makes sends late.
  const t0 = process.hrtime.bigint() + 20000000n
  const running = client.probe(0, 400, t0, 400, 1, 50)
  setTimeout(() => { const end = Date.now() + 200; while (Date.now() < end); }, 300) // the generator stalls for 200 ms
  const stalled = await running
  // 80 sends fall due in the stall: the 60 due over 50 ms before its end are late on any machine, the others
  // only if the machine itself held this process back over 50 ms.
  t.ok(stalled.late >= 55 && stalled.late <= 120, `${stalled.late} of 400 sends late after a 200 ms stall (60 due over 50 ms before its end)`)
  t.equal(stalled.failed, 0)
  t.equal(stalled.slices.length, 1)
  // Without a stall none is late; over 200 ms late would take the machine holding this process back that long.
  const quiet = await client.probe(0, 400, process.hrtime.bigint() + 20000000n, 400, 1, 200)
  t.equal(quiet.late, 0, 'no send over 200 ms late without a stall')
  // One connection at 250 ms a request: the 10 sends, due within 90 ms, wait for it up to 2.2 s, the last five
  // over 1 s, the lateness allowed here. That is the server's doing: none is counted.
  const { port: slow } = await kneeServer(t, 0)
  const queued = createClient({ config: configFor(slow, { nClients: 1, concurrency: 1 }), index: 1, runId: 'run' })
  t.teardown(() => queued.close())
  const waited = await queued.probe(0, 10, process.hrtime.bigint() + 20000000n, 100, 1, 1000)
  t.equal(waited.late, 0, 'none of 10 counted late, though the last waited over 2 s for the connection')
})
