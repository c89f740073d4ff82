'use strict'
// report/compare/model.js: each cell's time per request split by the fingerprint cost it is paid at, scaled to another
// machine's costs and cores; a cell serves min(processes ÷ loop time, cores ÷ (client + server CPU)); sync's over async's is
// the prediction. The expected figures are worked out by hand in the comments.
// Run: node test/report/compare/model.test.js

const t = require('tap')
const { modelInputs, measuredPairs, predict, movers } = require('../../../report/compare/model')

const cost = (estimate) => ({ estimate, low: estimate * 0.9, high: estimate * 1.1 })
const FP = {
  cpuModel: 'Test CPU',
  cores: 2,
  costs: { poolTripUs: cost(80), wakeUpUs: cost(30), systemCallUs: cost(1.5), jsWorkUs: cost(220), httpRoundTripUs: cost(200) }
}
const row = (cell, kind, nServers, ops, clientUs, serverUs, busy, more = {}) => ({ cell, kind, nServers, ioDelay: 'off', storage: 'cache', rev: null,
  valid: true, opsPerSec: ops, clientCpuPerReqUs: clientUs, serverCpuPerReqUs: serverUs, meanUtilization: busy, ...more })
// Two rounds each, so that the categories are summed over rounds.
const profiled = (categories) => ({ rounds: [{ requests: 100, categories }, { requests: 100, categories }] })

function folder () {
  return {
    env: { fingerprint: FP },
    rows: [
      // sync: loop 1 × 0.8 × 1e6 / 4000 = 200 µs; async: 0.75e6 / 2500 = 300 µs
      row('sync-s1-B', 'sync', 1, 3900, 50, 200, 0.8), // the A/A copy (not profiled): never a pair's cell
      row('sync-s1', 'sync', 1, 4000, 50, 200, 0.8), row('async-s1', 'async', 1, 2500, 50, 300, 0.75),
      row('sync-s1-d1000', 'sync', 1, 600, 80, 300, 0.99, { ioDelay: 1000 }), // 1 ms storage: not the page cache
      // clusters: loops 2 × 0.5 × 1e6 / 6000 = 166.7 µs and 2 × 0.6 × 1e6 / 4000 = 300 µs
      row('sync-cluster-s2', 'sync-cluster', 2, 6000, 40, 260, 0.5), row('async-cluster-s2', 'async-cluster', 2, 4000, 40, 360, 0.6)
    ],
    profile: {
      cells: {
        'sync-s1': profiled({ app: 50, http: 50 }), // JS 0.5, HTTP 0.5
        'async-s1': profiled({ app: 20, 'kernel-wake': 20, pool: 10, profiler: 999 }), // JS 0.4, wake-up 0.4, pool 0.2; the profiler left out
        'sync-cluster-s2': profiled({ engine: 7 }),
        'async-cluster-s2': profiled({ gc: 3, express: 4 })
      }
    },
    verdicts: { comparisons: [{ a: 'sync-s1', b: 'async-s1', metric: 'opsPerSec', estimate: 1.6, low: 1.5, high: 1.7 },
      { a: 'sync-s1', b: 'async-s1', metric: 'serverCpuPerReqUs', estimate: 0.66, low: 0.6, high: 0.7 }] }
  }
}

const near = (t, got, want, what) => t.ok(Math.abs(got - want) < 1e-3 * want, `${what}: ${got} ≈ ${want}`)

t.test('on its own machine: the loops bind one process, the cores the cluster', async (t) => {
  const inputs = modelInputs(folder())
  const [one, cluster] = predict(inputs, FP)
  // sync: min(1e6/200 = 5000, 2e6/250 = 8000) = 5000; async: min(1e6/300 = 3333.3, 2e6/350 = 5714) = 3333.3
  near(t, one.ratio, 1.5, 'one process')
  t.same(one.bounds, ['loop', 'loop'])
  t.same(one.measured, { estimate: 1.6, low: 1.5, high: 1.7 }, 'the throughput verdict, not the CPU one')
  // sync: min(2e6/166.7 = 12000, 2e6/300 = 6666.7); async: min(2e6/300 = 6666.7, 2e6/400 = 5000): 6666.7 / 5000
  near(t, cluster.ratio, 4 / 3, 'cluster')
  t.same(cluster.bounds, ['cores', 'cores'])
  t.equal(cluster.measured, null, 'no verdict for it in the folder')
})

t.test('on another machine each share is paid at its cost there', async (t) => {
  const inputs = modelInputs(folder())
  const there = (costs, cores = 2) => ({ cores, costs: { ...FP.costs, ...costs } })
  // Wake-ups 3 times as costly: async's time × (0.4 + 0.4 × 3 + 0.2) = 1.8: loop 540 µs, 1851.9/s (cores: 2e6/590 = 3389.8); sync 5000.
  near(t, predict(inputs, there({ wakeUpUs: cost(90) }))[0].ratio, 2.7, 'wake-ups × 3')
  // HTTP twice as costly: sync × (0.5 + 0.5 × 2) = 1.5: loop 300 µs, 3333.3/s; async × 1, loop 3333.3/s: the same
  near(t, predict(inputs, there({ httpRoundTripUs: cost(400) }))[0].ratio, 1, 'HTTP × 2')
  // 1 core: sync min(5000, 1e6/250 = 4000); async min(3333.3, 1e6/350 = 2857.1): 4000 / 2857.1 = 1.4, both by the cores
  const oneCore = predict(inputs, there({}, 1))[0]
  near(t, oneCore.ratio, 1.4, '1 core')
  t.same(oneCore.bounds, ['cores', 'cores'])
  // JS twice as costly, the cluster: sync S 520, loop 333.3: min(6000, 2e6/560 = 3571.4); async S 720: min(3333.3, 2e6/760 = 2631.6)
  near(t, predict(inputs, there({ jsWorkUs: cost(440) }))[1].ratio, 760 / 560, 'cluster, JS × 2')
  // HTTP twice as costly, the cluster (no HTTP share): the clients' 40 µs become 80: 2e6/340 against 2e6/440
  near(t, predict(inputs, there({ httpRoundTripUs: cost(400) }))[1].ratio, 440 / 340, 'cluster, HTTP × 2: the client\'s time too')
})

t.test('wake-ups at their CPU where both fingerprints have it, at their time otherwise', async (t) => {
  const withCpu = (fp, us) => ({ ...fp, costs: { ...fp.costs, wakeUpCpuUs: cost(us) } })
  const here = folder()
  here.env.fingerprint = withCpu(FP, 10)
  const inputs = modelInputs(here)
  // The wake-up's time × 3 (as in the test above) but its CPU the same: async's time × 1, 3333.3/s; sync 5000
  const there = { cores: 2, costs: { ...FP.costs, wakeUpUs: cost(90) } }
  near(t, predict(inputs, withCpu(there, 10))[0].ratio, 1.5, 'the CPU the same: the time ignored')
  // The CPU × 3: as the time × 3 above, 2.7
  near(t, predict(inputs, withCpu(there, 30))[0].ratio, 2.7, 'the CPU × 3')
  near(t, predict(inputs, there)[0].ratio, 2.7, 'no CPU there: the time × 3')
  near(t, predict(modelInputs(folder()), withCpu(there, 10))[0].ratio, 2.7, 'no CPU here: the time × 3')
  // movers doubles the wake-up's CPU with its time: 2.1 (the test below)
  near(t, movers(inputs)[3].ratios.process, 2.1, 'wake-up × 2 doubles its CPU too')
})

t.test('movers: each cost twice as costly, by pair', async (t) => {
  const moves = movers(modelInputs(folder()))
  t.same(moves.map((m) => m.what), ['JS work twice as costly (440 µs)', 'HTTP round trip twice as costly (400 µs)',
    'system call twice as costly (3.00 µs)', 'wake-up twice as costly (60.0 µs)', 'pool trip twice as costly (160 µs)'])
  // wake-ups × 2: async × (0.4 + 0.8 + 0.2) = 1.4: loop 420 µs, 2381/s; 5000 / 2381 = 2.1
  near(t, moves[3].ratios.process, 2.1, 'wake-up × 2, one process')
  // JS × 2, the cluster: 760 / 560 (above)
  near(t, moves[0].ratios.cluster, 760 / 560, 'JS × 2, cluster')
})

t.test('4 cores: the clusters\' event loops bind', async (t) => {
  // sync min(2e6/166.7 = 12000, 4e6/300 = 13333), async min(2e6/300 = 6666.7, 4e6/400 = 10000)
  const cluster = predict(modelInputs(folder()), { ...FP, cores: 4 })[1]
  near(t, cluster.ratio, 1.8, '4 cores, cluster')
  t.same(cluster.bounds, ['loop', 'loop'])
})

t.test('measuredPairs reads an unprofiled folder\'s verdicts', async (t) => {
  const { rows, verdicts } = folder()
  t.same([...measuredPairs({ rows, verdicts })], [['process', { estimate: 1.6, low: 1.5, high: 1.7 }]])
})

t.test('a folder the model cannot read says why', async (t) => {
  const f = folder()
  t.throws(() => modelInputs({ ...f, env: {} }), /no fingerprint/)
  t.throws(() => modelInputs({ ...f, profile: null }), /not profiled/)
  t.throws(() => modelInputs({ ...f, rows: f.rows.filter((r) => !r.kind.startsWith('async')) }), /no profiled pair/)
  t.throws(() => modelInputs({ ...f, profile: { cells: {} } }), /no profiled pair/, 'rows without profiled time')
  const onlyCluster = modelInputs({ ...f, rows: f.rows.filter((r) => r.nServers === 2) })
  t.same(onlyCluster.pairs.map((p) => p.id), ['cluster'], 'only the pairs it has')
})
