'use strict'
// /_stats and /_stats/reset of a balanced kind, answered by its launcher for the whole unit (HAProxy
// routes them there): a reset resets every backend and HAProxy's counters; a read merges the
// backends' figures and adds HAProxy's (balancer/stats.js).

const { createMonitor } = require('../lib/serving/process-telemetry')
const { log } = require('../lib/serving/process-io')
const { askSocket, parseStat } = require('./haproxy')
const { balancerFigures, mergeTelemetry } = require('./stats')
const { processCpuUs } = require('../lib/machine/proc')

/**
 * The request handler of the launcher's telemetry server.
 * @param {string} kind
 * @param {{ backends: object, haproxy: object, socket: string, balance: string, cpuStart: object }} state
 *   the launcher's, filled in as the unit starts; cpuStart is set here at each reset
 * @returns {function(http.IncomingMessage, http.ServerResponse): Promise<void>}
 */
function telemetryHandler (kind, state) {
  const monitor = createMonitor('primary')
  return async (req, res) => {
    const answer = (status, body, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) })
      res.end(req.method === 'HEAD' ? undefined : body)
    }
    try {
      if (req.url === '/_stats/reset' && req.method === 'POST') {
        await Promise.all([state.backends.stats('reset'), askSocket(state.socket, 'clear counters all')])
        state.cpuStart = processCpuUs(state.haproxy.pid)
        await monitor.begin()
        return answer(200, 'reset')
      }
      if (req.url === '/_stats' && (req.method === 'GET' || req.method === 'HEAD')) {
        const [docs, text] = await Promise.all([state.backends.stats('collect'), askSocket(state.socket, 'show stat')])
        const cpuUs = processCpuUs(state.haproxy.pid) - state.cpuStart
        const balancer = balancerFigures({ rows: parseStat(text), pid: state.haproxy.pid, balance: state.balance, cpuUs })
        return answer(200, JSON.stringify(mergeTelemetry(kind, await monitor.finish(), docs, balancer)), 'application/json')
      }
      return answer(req.url.startsWith('/_stats') ? 405 : 404, 'not here')
    } catch (err) {
      log(`telemetry: ${err.message}`)
      return answer(500, 'internal error')
    }
  }
}

module.exports = { telemetryHandler }
