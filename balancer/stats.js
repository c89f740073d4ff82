'use strict'
// The balanced kinds' telemetry: HAProxy's own counters (`show stat`) per backend, its CPU time,
// and the backends' /_stats documents merged into one document of the shape the cluster kinds
// answer (lib/serving/process-telemetry.js), with a `balancer` part added.

const { summarize } = require('../lib/serving/process-telemetry')
const { fairness } = require('../lib/median')

const int = (text) => Number(text) || 0

/**
 * Each server of a backend as HAProxy counts it since its counters were last cleared.
 * @param {object[]} rows `show stat` rows (balancer/haproxy.js parseStat)
 * @param {string} [backend]
 * @returns {Array<{ name: string, address: string, requests: number, responses: number, status: string,
 *   checkFailures: number, downs: number, connectionErrors: number, responseErrors: number, retries: number, redispatches: number }>}
 */
function backendFigures (rows, backend = 'servers') {
  return rows.filter((r) => r.pxname === backend && r.svname !== 'BACKEND').map((r) => ({
    name: r.svname,
    address: r.addr,
    requests: int(r.lbtot), // times the balancer chose it
    responses: ['1xx', '2xx', '3xx', '4xx', '5xx', 'other'].reduce((a, c) => a + int(r[`hrsp_${c}`]), 0),
    status: r.status,
    checkFailures: int(r.chkfail),
    downs: int(r.chkdown),
    connectionErrors: int(r.econ),
    responseErrors: int(r.eresp),
    retries: int(r.wretr),
    redispatches: int(r.wredis)
  }))
}

/**
 * The balancer's part of the telemetry document.
 * @param {{ rows: object[], pid: number, balance: string, cpuUs: number }} what cpuUs: HAProxy's CPU
 *   in the window
 * @returns {object} pid, balance, cpuUs, requests, cpuPerRequestUs, fairness, backends, failed (5xx it answered itself)
 */
function balancerFigures ({ rows, pid, balance, cpuUs }) {
  const backends = backendFigures(rows)
  const requests = backends.reduce((a, b) => a + b.requests, 0)
  const front = rows.find((r) => r.pxname === 'bench' && r.svname === 'FRONTEND') || {}
  return {
    pid,
    balance,
    cpuUs,
    requests,
    cpuPerRequestUs: requests > 0 ? Math.round((cpuUs / requests) * 10) / 10 : null,
    fairness: fairness(backends.map((b) => b.requests)),
    failed: int(front.hrsp_5xx),
    backends
  }
}

/**
 * One telemetry document for the whole balanced server: the launcher (role primary, serving
 * nothing), every backend that answered, and totals whose CPU includes HAProxy's.
 * @param {string} kind
 * @param {object} launcher the launcher's own snapshot (lib/serving/process-telemetry.js createMonitor)
 * @param {Array<object|null>} backendDocs each backend's /_stats document, null if it did not answer
 * @param {object} balancer from balancerFigures
 * @returns {object}
 */
function mergeTelemetry (kind, launcher, backendDocs, balancer) {
  const serving = backendDocs.filter(Boolean).flatMap((doc) => doc.processes)
  const doc = summarize(kind, [launcher, ...serving])
  doc.totals.cpuUs += balancer.cpuUs
  return { ...doc, balancer }
}

module.exports = { backendFigures, balancerFigures, mergeTelemetry }
