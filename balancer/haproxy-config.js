'use strict'
// The HAProxy configuration of a balanced kind, written from the cell's settings: HTTP mode, one
// thread, keep-alive to the backends, requests spread one by one, and a health check that takes a
// dead backend out. Pure: tests read the text; balancer/haproxy.js runs it.

const { BALANCE } = require('../lib/results/dimensions')

const CHECK_INTERVAL_MS = 500 // a dead backend is out after FALL failed checks, ~1 s
const FALL = 2
const RISE = 2
const CONNECT_TIMEOUT_MS = 2000
const STATS_PATH = '/_stats' // lib/serving/process-telemetry.js: answered for all backends by the launcher

const address = ({ host, port }) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`)

/**
 * The text of haproxy.cfg.
 * @param {{ listen: { host: string, port: number }, backends: Array<{ host: string, port: number }>,
 *   telemetry: { host: string, port: number }, statsSocket: string, balance: 'roundrobin'|'leastconn',
 *   config: { headersTimeout: number, requestTimeout: number, keepAliveTimeout: number, timeout: number } }} how
 *   listen: where clients connect; backends: the servers; telemetry: the launcher's /_stats;
 *   statsSocket: the path of HAProxy's own statistics socket; config: a validated config
 * @returns {string}
 * @throws {TypeError} for a balance HAProxy is not given here, or no backend
 */
function haproxyConfig ({ listen, backends, telemetry, statsSocket, balance, config }) {
  if (!BALANCE.includes(balance)) throw new TypeError(`balance must be one of ${BALANCE.join(', ')}, got ${JSON.stringify(balance)}`)
  if (backends.length === 0) throw new TypeError('a balancer needs at least one backend')
  const serverTimeout = Math.max(config.requestTimeout, config.timeout)
  return [
    'global',
    // One thread: on a small machine the balancer should not take every core from the servers.
    '  nbthread 1',
    '  maxconn 4096',
    `  stats socket ${statsSocket} mode 600 level admin`,
    'defaults',
    '  mode http',
    '  option http-keep-alive',
    // Keep-alive to the backends: an idle server connection may carry any client's next request.
    '  http-reuse always',
    '  option redispatch 1',
    '  retries 2',
    `  timeout connect ${CONNECT_TIMEOUT_MS}`,
    `  timeout client ${config.requestTimeout}`,
    `  timeout server ${serverTimeout}`,
    `  timeout http-request ${config.headersTimeout}`,
    `  timeout http-keep-alive ${config.keepAliveTimeout}`,
    'frontend bench',
    `  bind ${address(listen)}`,
    `  acl telemetry path ${STATS_PATH} ${STATS_PATH}/reset`,
    '  use_backend telemetry if telemetry',
    '  default_backend servers',
    'backend servers',
    // Without prefer-last-server each request of a keep-alive connection is balanced on its own.
    `  balance ${balance}`,
    '  option httpchk',
    `  http-check send meth HEAD uri ${STATS_PATH}`,
    `  default-server check inter ${CHECK_INTERVAL_MS} fall ${FALL} rise ${RISE}`,
    ...backends.map((b, k) => `  server b${k + 1} ${address(b)}`),
    'backend telemetry',
    `  server launcher ${address(telemetry)}`,
    ''
  ].join('\n')
}

module.exports = { haproxyConfig }
