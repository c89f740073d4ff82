'use strict'
// --cpuset: shared leaves the client and the server to the scheduler on every core; split pins
// the server side (servers, workers, HAProxy) and the client's processes to disjoint cores with
// taskset, which every child inherits. split is Linux only; shared runs anywhere.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { findOnPath } = require('../find-on-path')
const { PLATFORM, hasProc, procPath, LINUX_ONLY } = require('../platform')

/**
 * The cores this process may run on, from a Cpus_allowed_list such as "0-3,6".
 * @param {string|null} [status] the text of /proc/self/status; null (no /proc): as many cores as Node says it may use
 * @returns {number[]}
 */
function allowedCpus (status = hasProc() ? fs.readFileSync(procPath('self', 'status'), 'utf8') : null) {
  if (status === null) return Array.from({ length: os.availableParallelism() }, (_, k) => k)
  const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(status)[1]
  return list.split(',').flatMap((part) => {
    const [from, to = from] = part.split('-').map(Number)
    return Array.from({ length: to - from + 1 }, (_, k) => from + k)
  })
}

/** "0-1,3" style, as taskset -c takes it. */
const cpuList = (cpus) => cpus.join(',')

/**
 * Which cores each side gets: split gives the server the first half (rounded up) and the client
 * the rest.
 * @param {'shared'|'split'} mode
 * @param {number[]} [cpus] the cores to share out
 * @returns {{ mode: string, server: number[], client: number[] }}
 * @throws {Error} for split with fewer than 2 cores
 */
function planCpuset (mode, cpus = allowedCpus()) {
  if (mode === 'shared') return { mode, server: cpus, client: cpus }
  if (cpus.length < 2) throw new Error(`--cpuset=split needs at least 2 cores, this process may use ${cpus.length} (${cpuList(cpus)})`)
  const half = Math.ceil(cpus.length / 2)
  return { mode, server: cpus.slice(0, half), client: cpus.slice(half) }
}

/**
 * The command that runs a program on some cores, or [] to run it as it is.
 * @param {string} mode
 * @param {number[]} cpus
 * @returns {string[]}
 */
function pinPrefix (mode, cpus) {
  if (mode === 'shared') return []
  return [findOnPath('taskset', [process.env.PATH || '', '/usr/bin', '/bin'].join(path.delimiter)) || 'taskset', '-c', cpuList(cpus)]
}

/** Why split cannot be used here, or null. */
function checkCpuset () {
  if (!hasProc()) return `${LINUX_ONLY.cpuset} (this is ${PLATFORM})`
  if (!findOnPath('taskset', [process.env.PATH || '', '/usr/bin', '/bin'].join(path.delimiter))) {
    return 'taskset is not installed: --cpuset=split needs it (apt-get install -y util-linux)'
  }
  try {
    planCpuset('split')
  } catch (err) {
    return err.message
  }
  return null
}

/** The cores a running process may use (its Cpus_allowed_list), e.g. to check a pin took. */
function processCpus (pid) {
  return allowedCpus(fs.readFileSync(procPath(pid, 'status'), 'utf8'))
}

module.exports = { allowedCpus, planCpuset, pinPrefix, checkCpuset, processCpus, cpuList }
