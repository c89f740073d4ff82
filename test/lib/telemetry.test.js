'use strict'
// GET /_stats and POST /_stats/reset: per-process figures that add up to the requests sent.

const t = require('tap')
const { KINDS, startServer, request } = require('../fixtures/server')
const { isMultiProcess, KINDS: KIND_MODELS } = require('../../lib/kinds')
const { summarize, createMonitor } = require('../../lib/serving/process-telemetry')

const snap = (role, requests, utilization = 0.5) => ({ role, requests, utilization, cpuUs: { user: 10, system: 5 } })

t.test('summarize adds requests and CPU, and scores fairness with Jain\'s index', async (t) => {
  const even = summarize('k', [snap('primary', 0), snap('worker', 50), snap('worker', 50)])
  t.same(even.totals, { requests: 100, cpuUs: 45, meanUtilization: 0.5, share: [0.5, 0.5], fairness: 1 })
  const skewed = summarize('k', [snap('worker', 90, 1), snap('worker', 10, 0)])
  t.equal(skewed.totals.fairness, (100 * 100) / (2 * (8100 + 100)))
  t.same(skewed.totals.share, [0.9, 0.1])
  t.equal(skewed.totals.meanUtilization, 0.5)
  t.equal(summarize('k', [snap('single', 0)]).totals.fairness, 1, 'no requests is not unfair')
})

// createMonitor over a histogram of the test's: lib/serving/process-telemetry.js loaded afresh while
// monitorEventLoopDelay gives that one, so that what it makes of the figures is checked exactly,
// whatever this machine's timers did.
function monitorOver (histogram) {
  const perf = require('node:perf_hooks')
  const real = perf.monitorEventLoopDelay
  const file = require.resolve('../../lib/serving/process-telemetry')
  perf.monitorEventLoopDelay = () => histogram
  delete require.cache[file]
  try {
    return require(file).createMonitor('single')
  } finally {
    perf.monitorEventLoopDelay = real
    delete require.cache[file]
  }
}

t.test('event-loop delay is the delay alone: the 10 ms sampling interval is taken off every figure, in µs', async (t) => {
  // What Node 20's histogram holds: each sampling interval plus its delay, in ns.
  const ns = { min: 10.2e6, mean: 12.5e6, max: 70e6, 50: 10.5e6, 99: 70e6 }
  const histogram = { count: 30, min: ns.min, mean: ns.mean, max: ns.max, percentile: (p) => ns[p], enable () {}, reset () {} }
  t.same(monitorOver(histogram).snapshot().eventLoopDelayUs, { min: 200, mean: 2500, p50: 500, p99: 60000, max: 60000 })
  t.equal(monitorOver({ ...histogram, min: 9.5e6 }).snapshot().eventLoopDelayUs.min, 0, 'a sample under the interval is no delay, not a negative one')
  // On a loaded machine a late run of the timer brings the next one closer: 8.5 ms between two runs, the figures stand.
  t.same(monitorOver({ ...histogram, min: 8.5e6 }).snapshot().eventLoopDelayUs, { min: 0, mean: 2500, p50: 500, p99: 60000, max: 60000 },
    'an interval well under the resolution keeps the figures')
  t.same(monitorOver({ ...histogram, count: 0 }).snapshot().eventLoopDelayUs, { min: null, mean: null, p50: null, p99: null, max: null },
    'no sample yet: no figures')
})

t.test('a blocked event loop shows in its delay', async (t) => {
  const monitor = createMonitor('single')
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
  // Until the histogram has samples (its 10 ms timer runs): on a loaded machine the first can come late.
  const sampled = async () => { for (let i = 0; i < 100 && monitor.snapshot().eventLoopDelayUs.max === null; i++) await sleep(20) }
  await sleep(30)
  await sampled()
  const end = Date.now() + 60
  while (Date.now() < end); // block the loop for 60 ms
  await sleep(50)
  await sampled()
  const delay = monitor.snapshot().eventLoopDelayUs
  t.ok(Object.values(delay).every(Number.isInteger) && delay.min <= delay.p50 && delay.p50 <= delay.p99 && delay.p99 <= delay.max,
    `whole µs, in order: ${JSON.stringify(delay)}`)
  // The sample due in the block came after it: at least the block less the interval and the time since the
  // sample before, on any machine (a busier one only makes it later). The upper bound only checks the unit.
  t.ok(delay.max >= 40000 && delay.max < 10e6, `a 60 ms block shows as max ${delay.max} µs`)
})

for (const kind of KINDS) {
  t.test(`${kind}: /_stats counts exactly the requests since the last reset`, async (t) => {
    const srv = await startServer(t, kind, { dataPath: t.testdir() })
    await request(srv, { method: 'POST', path: '/put?key=before', body: 'x' })
    const reset = await request(srv, { method: 'POST', path: '/_stats/reset' })
    t.equal(reset.status, 200)
    for (let i = 0; i < 20; i++) await request(srv, { method: 'POST', path: '/put?key=k', body: 'x' })
    for (let i = 0; i < 30; i++) await request(srv, { path: '/get?key=k' })
    for (let i = 0; i < 5; i++) await request(srv, { path: '/get?key=..' })
    const res = await request(srv, { path: '/_stats' })
    t.equal(res.status, 200)
    t.match(res.headers['content-type'], /^application\/json/)
    const stats = JSON.parse(res.body)
    const cluster = isMultiProcess(kind) && KIND_MODELS[kind].model !== 'pool' // a pool's threads are one process
    t.equal(stats.kind, kind)
    t.same(stats.processes.map((p) => p.role).sort(), cluster ? ['primary', 'worker', 'worker'] : ['single'])
    t.equal(stats.totals.requests, 55, 'total = requests sent after the reset, bad ones included, /_stats excluded')
    const served = stats.processes.filter((p) => p.role !== 'primary').map((p) => p.requests)
    t.equal(served.reduce((a, b) => a + b, 0), 55, 'per-process counts add up')
    t.equal(stats.totals.share.length, cluster ? 2 : 1)
    t.ok(stats.totals.fairness > 0 && stats.totals.fairness <= 1)
    for (const p of stats.processes) {
      t.ok(p.utilization >= 0 && p.utilization <= 1, `${p.role} utilization in [0, 1]`)
      t.ok(p.eventLoopDelayUs.p99 >= p.eventLoopDelayUs.p50, `${p.role} delay p99 >= p50`)
      t.ok(p.windowMs > 0, `${p.role} window is positive`)
      // Every process worked in the window: a server served its requests; a primary, which serves none, handed
      // the connections to its workers (round robin) or at least gathered these figures from them.
      const cpu = p.cpuUs.user + p.cpuUs.system
      t.ok(Number.isFinite(cpu) && cpu > 0, `${p.role} CPU ${cpu} µs for ${p.requests} requests`)
    }
    t.equal((await request(srv, { path: '/_stats/reset' })).status, 405)
    t.equal((await request(srv, { method: 'POST', path: '/_stats' })).headers.allow, 'GET, HEAD')
    await request(srv, { method: 'POST', path: '/_stats/reset' })
    t.equal(JSON.parse((await request(srv, { path: '/_stats' })).body).totals.requests, 0, 'reset starts a new window')
  })
}

t.test('the memory of a window: its most resident, a buffer held and freed within it counted, not in the window after', async (t) => {
  require('node:v8').setFlagsFromString('--expose-gc')
  const gc = require('node:vm').runInNewContext('gc') // frees the buffer's memory now (an mmap'ed block goes back at once)
  const monitor = createMonitor('single')
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
  monitor.reset()
  const quiet = monitor.snapshot().windowRssKiB
  monitor.reset()
  const held = [Buffer.alloc(256 * 1024 * 1024, 1)] // touched: 256 MiB resident
  await sleep(200) // sampled every 50 ms
  held.pop()
  gc()
  // Freed a moment later; on a busy machine the allocator's threads may take seconds to give it back.
  for (let k = 0; k < 100 && process.memoryUsage.rss() > (quiet + 100 * 1024) * 1024; k++) {
    await sleep(50)
    gc()
  }
  const during = monitor.snapshot().windowRssKiB
  const atEnd = Math.round(process.memoryUsage.rss() / 1024)
  t.ok(during - quiet > 200 * 1024, `a window that held 256 MiB: ${during} KiB against ${quiet}`)
  t.ok(atEnd < during - 200 * 1024, `its most, not what is left at its end (${atEnd} KiB)`)
  monitor.reset()
  await sleep(120)
  const after = monitor.snapshot().windowRssKiB
  t.ok(after < during - 200 * 1024, `the window after: ${after} KiB`)
})
