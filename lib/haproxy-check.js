'use strict'
// Whether HAProxy can run here, and where it is: for lib/kinds.js (a balanced kind's problem) and
// balancer/haproxy.js (which starts it).

const { spawnSync } = require('node:child_process')
const path = require('node:path')
const { findOnPath } = require('./find-on-path')

const INSTALL = './run_benchmark.sh setup, or apt-get install -y haproxy'

// Debian puts haproxy in /usr/sbin, which a user's PATH may lack.
const findTool = (name, env = process.env) => findOnPath(name, [env.PATH || '', '/usr/sbin', '/usr/local/sbin', '/sbin'].join(path.delimiter))
// HAPROXY names another build; an executable file, else none.
const haproxyBinary = (env = process.env) => env.HAPROXY
  ? findOnPath(path.basename(env.HAPROXY), path.dirname(path.resolve(env.HAPROXY)))
  : findTool('haproxy', env)

/**
 * Says whether HAProxy can run here: HAPROXY if set, else haproxy on the PATH or in /usr/sbin.
 * @param {object} [env] environment whose HAPROXY and PATH are read
 * @returns {string|null} null when it can, else one line saying what to install
 */
function checkHaproxy (env = process.env) {
  if (!haproxyBinary(env)) return `haproxy is not installed${env.HAPROXY ? ` at HAPROXY=${env.HAPROXY}` : ''}: the balanced kinds need it (${INSTALL})`
  if (!findTool('setpriv', env)) return 'setpriv is not on the PATH: it ties HAProxy to its launcher (apt-get install -y util-linux)'
  return null
}

/** HAProxy's version line (for env.json), or null where it cannot run. */
function haproxyVersion (env = process.env) {
  const binary = haproxyBinary(env)
  const res = binary ? spawnSync(binary, ['-v'], { encoding: 'utf8' }) : null
  return res?.status === 0 ? res.stdout.split('\n')[0] : null
}

module.exports = { checkHaproxy, haproxyBinary, haproxyVersion, findTool }
