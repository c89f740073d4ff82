'use strict'
// The summary's server-telemetry and CPU-per-request columns of one run, read from the client's
// JSON (client/report.js, its serverStats from lib/serving/process-telemetry.js), and the client-bound rule.

// Mean event-loop utilization below which the server's loops had idle time to spare.
const BUSY_UTILIZATION = 0.8

const finite = (x) => typeof x === 'number' && Number.isFinite(x)
const round = (x, digits) => (finite(x) ? Number(x.toFixed(digits)) : undefined)

/**
 * The storage layer's columns of one run, from its counters and CPU time before and after the
 * client: the calls it served (reads, writes, flushes), the latency a call that took the device
 * really had (a read, a flush, a durable write: queueing at ioDepth, the delay, the syscall),
 * and the daemon's CPU per HTTP request of the client's whole run (warm-up included).
 * @param {{ counters: object, cpuUs: number }} before delayfs counters and daemon CPU µs
 * @param {{ counters: object, cpuUs: number }} after
 * @param {number} requests HTTP requests the server had meanwhile
 * @returns {{ storageOps?: number, storageLatencyUs?: number, storageCpuPerReqUs?: number }}
 */
function storageFigures (before, after, requests) {
  const delta = (key) => after.counters[key] - before.counters[key]
  const calls = delta('deviceCalls')
  return {
    storageOps: delta('reads') + delta('writes') + delta('syncs'),
    storageLatencyUs: calls > 0 ? round(delta('deviceUs') / calls, 1) : undefined,
    storageCpuPerReqUs: requests > 0 ? round((after.cpuUs - before.cpuUs) / requests, 1) : undefined
  }
}

/**
 * Whether a run was client-bound: the client processes spent more CPU per request than the server
 * processes, while the server's event loops were busy less than 80% of the window on average (so
 * the server waited for requests the client could not send faster).
 * @param {{ clientCpuPerReqUs?: number, serverCpuPerReqUs?: number, meanUtilization?: number }} figures
 * @returns {boolean|undefined} undefined when a figure is missing
 */
function isClientBound ({ clientCpuPerReqUs, serverCpuPerReqUs, meanUtilization }) {
  if (![clientCpuPerReqUs, serverCpuPerReqUs, meanUtilization].every(finite)) return undefined
  return clientCpuPerReqUs > serverCpuPerReqUs && meanUtilization < BUSY_UTILIZATION
}

// The columns from the server's telemetry window (as client/server-stats.js checked it); none when
// the server did not answer.
function serverFigures (stats) {
  if (stats === null) return {}
  const serving = stats.processes.filter((p) => p.role !== 'primary')
  const worst = (key) => {
    const values = serving.map((p) => p.eventLoopDelayUs?.[key]).filter(finite)
    return values.length > 0 ? Math.max(...values) : undefined
  }
  const { requests, cpuUs, meanUtilization, share, fairness } = stats.totals
  return {
    serverRequests: requests,
    eldP50Us: worst('p50'),
    eldP99Us: worst('p99'),
    meanUtilization: round(meanUtilization, 4),
    workerShares: share.map((s) => s.toFixed(3)).join(';'),
    fairness: round(fairness, 4),
    serverCpuPerReqUs: requests > 0 ? round(cpuUs / requests, 1) : undefined,
    // The largest serving process's peak memory so far (KiB).
    serverPeakRssKiB: serving.every((p) => finite(p.maxRssKiB)) && serving.length > 0 ? Math.max(...serving.map((p) => p.maxRssKiB)) : undefined,
    // The largest serving process's most memory resident in the round's windows (KiB).
    serverWindowRssKiB: serving.every((p) => finite(p.windowRssKiB)) && serving.length > 0 ? Math.max(...serving.map((p) => p.windowRssKiB)) : undefined
  }
}

/**
 * The columns serverRequests, eldP50Us, eldP99Us, meanUtilization, workerShares, fairness,
 * clientCpuPerReqUs, serverCpuPerReqUs, serverPeakRssKiB, serverWindowRssKiB and clientBound of a run; a missing figure is left out.
 * clientBound is judged on the rounded figures, as summary.csv shows them.
 * @param {object|null} json the client's --json document
 * @returns {object}
 */
function costFigures (json) {
  if (!json) return {}
  const cpu = json.clientCpuUs
  const requests = json.operations.completed + json.operations.failed
  const figures = {
    ...serverFigures(json.serverStats),
    clientCpuPerReqUs: cpu && requests > 0 ? round((cpu.user + cpu.system) / requests, 1) : undefined
  }
  return { ...figures, clientBound: isClientBound(figures) }
}

module.exports = { storageFigures, costFigures, isClientBound, BUSY_UTILIZATION }
