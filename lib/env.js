'use strict'
// The environment a result was produced in, recorded beside every result.

const os = require('node:os')

/**
 * @returns {{ node: string, cpus: number, cpuModel: string, platform: string, release: string,
 *   totalMemBytes: number, uvThreadpoolSize: number }}
 */
function describeEnv () {
  const cpus = os.cpus()
  return {
    node: process.version,
    cpus: os.availableParallelism(),
    cpuModel: cpus.length > 0 ? cpus[0].model : 'unknown',
    platform: process.platform,
    release: os.release(),
    totalMemBytes: os.totalmem(),
    uvThreadpoolSize: Number(process.env.UV_THREADPOOL_SIZE) || 4 // libuv's default
  }
}

module.exports = { describeEnv }
