'use strict'
// The environment a result was produced in, recorded beside every result.

const os = require('node:os')
const { PLATFORM } = require('../platform')

const LIBUV_DEFAULT_THREADPOOL = 4
const LIBUV_MAX_THREADPOOL = 1024
// Node's policy when NODE_CLUSTER_SCHED_POLICY is unset or neither rr nor none.
const SCHED_POLICY_DEFAULT = process.platform === 'win32' ? 'none' : 'rr'

/**
 * The libuv thread-pool size a process started with `env` gets, as libuv reads it: atoi of
 * UV_THREADPOOL_SIZE (leading digits; "abc" and "0" give 1), at most 1024 (a negative value wraps
 * in libuv's unsigned int to the maximum), 4 when unset.
 * @param {object} [env]
 * @returns {number}
 */
function uvThreadpoolSize (env = process.env) {
  const text = env.UV_THREADPOOL_SIZE
  if (text === undefined) return LIBUV_DEFAULT_THREADPOOL
  const n = parseInt(text, 10) || 0
  if (n === 0) return 1
  return n < 0 || n > LIBUV_MAX_THREADPOOL ? LIBUV_MAX_THREADPOOL : n
}

/**
 * How a cluster primary started with `env` hands out connections: NODE_CLUSTER_SCHED_POLICY if it
 * is exactly rr or none, else Node's default (cluster.schedulingPolicy's own rule).
 * @param {object} [env]
 * @returns {'rr'|'none'}
 */
function schedPolicy (env = process.env) {
  const value = env.NODE_CLUSTER_SCHED_POLICY
  return value === 'rr' || value === 'none' ? value : SCHED_POLICY_DEFAULT
}

/**
 * Whether libuv in a process started with `env` does file I/O on io_uring: UV_USE_IO_URING set to a
 * number other than 0 (libuv's atoi), off when unset (opt-in since Node 20.11.1, CVE-2024-22017).
 * @param {object} [env]
 * @returns {0|1}
 */
function uvUseIoUring (env = process.env) {
  return parseInt(env.UV_USE_IO_URING, 10) ? 1 : 0
}

/**
 * @returns {{ node: string, cpus: number, cpuModel: string, platform: string, release: string,
 *   totalMemBytes: number, uvThreadpoolSize: number, uvUseIoUring: number, schedPolicy: string }} of this process
 */
function describeEnv () {
  return {
    node: process.version,
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    platform: PLATFORM,
    release: os.release(),
    totalMemBytes: os.totalmem(),
    uvThreadpoolSize: uvThreadpoolSize(),
    uvUseIoUring: uvUseIoUring(),
    schedPolicy: schedPolicy()
  }
}

module.exports = { describeEnv, uvThreadpoolSize, uvUseIoUring, schedPolicy, SCHED_POLICY_DEFAULT, LIBUV_DEFAULT_THREADPOOL }
