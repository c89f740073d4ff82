'use strict'
// The summary's telemetry and CPU-per-request columns, read from a client JSON whose serverStats
// is built by the servers' own summarize(), and the client-bound rule.

const t = require('tap')
const { costFigures, isClientBound } = require('../../../sweep/cell/cost')
const { summarize } = require('../../../lib/serving/process-telemetry')

const proc = (role, requests, utilization, cpuUs, p50, p99) =>
  ({ pid: 1, role, requests, windowMs: 1000, utilization, cpuUs: { user: cpuUs, system: 0 }, eventLoopDelayUs: { min: 1, mean: 2, p50, p99, max: 99999 } })

const clientJson = (serverStats, { completed = 1000, failed = 0, cpuUs = 150000 } = {}) =>
  ({ operations: { planned: 1000, completed, failed }, clientCpuUs: { user: cpuUs - 30000, system: 30000 }, serverStats })

t.test('a cluster run: worst worker delay, shares and fairness, and CPU per request over the window', async (t) => {
  // The primary's figures (huge delay, its CPU) must not count as a worker's, but its CPU does count.
  const stats = summarize('async-cluster', [proc('primary', 0, 0.01, 20000, 900000, 900000),
    proc('worker', 700, 0.812345, 300000, 120, 4100), proc('worker', 300, 0.4, 180000, 250, 3900)])
  t.same(costFigures(clientJson(stats)), {
    serverRequests: 1000,
    eldP50Us: 250,
    eldP99Us: 4100,
    meanUtilization: 0.6062,
    workerShares: '0.700;0.300',
    fairness: Number(((1000 * 1000) / (2 * (700 ** 2 + 300 ** 2))).toFixed(4)),
    serverCpuPerReqUs: 500,
    clientCpuPerReqUs: 150,
    clientBound: false
  })
})

t.test('memory: the largest serving process\'s, the primary left out; empty where a process did not tell', async (t) => {
  const mem = (p, maxRssKiB, windowRssKiB) => ({ ...p, maxRssKiB, windowRssKiB })
  const stats = summarize('async-cluster', [mem(proc('primary', 0, 0.01, 20000, 1, 2), 900000, 800000),
    mem(proc('worker', 500, 0.5, 1000, 1, 2), 135000, 70000), mem(proc('worker', 500, 0.5, 1000, 1, 2), 120000, 90000)])
  t.match(costFigures(clientJson(stats)), { serverPeakRssKiB: 135000, serverWindowRssKiB: 90000 })
  const untold = summarize('sync', [mem(proc('single', 10, 0.5, 1000, 1, 2), null, null)])
  t.match(costFigures(clientJson(untold)), { serverPeakRssKiB: undefined, serverWindowRssKiB: undefined })
})

t.test('failed requests count in the client\'s CPU per request', async (t) => {
  const stats = summarize('sync', [proc('single', 1000, 0.5, 100000, 10, 20)])
  t.match(costFigures(clientJson(stats, { completed: 900, failed: 100, cpuUs: 300000 })),
    { clientCpuPerReqUs: 300, serverCpuPerReqUs: 100, workerShares: '1.000', fairness: 1, clientBound: true })
})

t.test('without server telemetry the server columns and clientBound are left empty', async (t) => {
  t.same(costFigures(clientJson(null)), { clientCpuPerReqUs: 150, clientBound: undefined })
  t.same(costFigures(null), {})
  const idle = summarize('sync', [{ ...proc('single', 0, 0.1, 5000, null, null) }])
  t.match(costFigures(clientJson(idle, { completed: 0 })), {
    serverRequests: 0, eldP50Us: undefined, serverCpuPerReqUs: undefined, clientCpuPerReqUs: undefined, clientBound: undefined
  })
  // JSON turns a NaN mean (no serving process answered) into null.
  const noMean = { ...idle, totals: { ...idle.totals, requests: 10, meanUtilization: null } }
  t.match(costFigures(clientJson(noMean)), { meanUtilization: undefined, serverCpuPerReqUs: 500, clientBound: undefined })
})

t.test('client-bound: the client costs more per request and the server loops were idle >= 20%', async (t) => {
  for (const [figures, expected] of [
    [{ clientCpuPerReqUs: 300, serverCpuPerReqUs: 200, meanUtilization: 0.5 }, true],
    [{ clientCpuPerReqUs: 300, serverCpuPerReqUs: 200, meanUtilization: 0.79 }, true],
    [{ clientCpuPerReqUs: 300, serverCpuPerReqUs: 200, meanUtilization: 0.8 }, false],
    [{ clientCpuPerReqUs: 200, serverCpuPerReqUs: 200, meanUtilization: 0.1 }, false],
    [{ clientCpuPerReqUs: 100, serverCpuPerReqUs: 200, meanUtilization: 0.1 }, false],
    [{ clientCpuPerReqUs: 300, serverCpuPerReqUs: 200 }, undefined],
    [{ clientCpuPerReqUs: 300, serverCpuPerReqUs: undefined, meanUtilization: 0.1 }, undefined],
    [{ clientCpuPerReqUs: NaN, serverCpuPerReqUs: 200, meanUtilization: 0.1 }, undefined]
  ]) {
    t.equal(isClientBound(figures), expected, JSON.stringify(figures))
  }
})
