'use strict'
// --storage in a plan: which modes the cells get (not given: cache at --ioDelay=off, delay at a number),
// the data set a cold run needs (written for every cell, so that all compare on the same files), why a
// mode cannot run here, said before anything runs, and the delay layer's flags from a measured device.

const fs = require('node:fs')
const path = require('node:path')
const { ConfigError } = require('../../lib/config')
const { cgroupProblem } = require('../../storage/cgroup-base')
const { ramFolderProblem, vmtouchProblem } = require('../../storage/cache')
const { fioProblem } = require('../../storage/device')
const { SLACK_BYTES } = require('../cell/cache-state')

// The cold data set unless --nFiles or --fileBytes say otherwise: 32768 files of 16 KiB, 512 MiB, 16 × the cache
// a memory cgroup keeps beyond the server's own memory at --cacheShare=0.
const COLD_DATA = { nFiles: 32768, fileBytes: 16384 }
const MIN_COLD_BYTES = 8 * SLACK_BYTES

const given = (argv, key) => argv.some((a) => a.startsWith(`--${key}=`))

/**
 * The storage modes of a plan and the flags they add.
 * @param {{ lists: object, slice: object|null, argv: string[], measure: string }} plan lists: the list flags; argv: the other flags
 * @returns {{ storage: string[], flags: string[] }} flags: go before the user's
 * @throws {ConfigError} when the modes and --ioDelay disagree, or cold cannot run with this command
 */
function planStorage ({ lists, slice, argv, measure }) {
  const delays = [...(lists.ioDelay ?? ['off']), ...(slice?.ioDelay ?? [])]
  const numbers = delays.filter((d) => d !== 'off')
  if (!lists.storage) {
    if (lists.cacheShare) throw new ConfigError('--cacheShare is the share of a cold data set the cache may keep: give --storage=cold too')
    return { storage: [...(delays.includes('off') ? ['cache'] : []), ...(numbers.length > 0 ? ['delay'] : [])], flags: [] }
  }
  const storage = lists.storage
  if (storage.includes('delay') && numbers.length === 0) throw new ConfigError('--storage=delay is the FUSE layer at --ioDelay: give --ioDelay=µs too')
  if (!storage.includes('delay') && lists.ioDelay?.some((d) => d !== 'off')) {
    throw new ConfigError(`--ioDelay=${lists.ioDelay.join(',')} is the FUSE layer's latency: add delay to --storage`)
  }
  if (lists.cacheShare && !storage.includes('cold')) {
    throw new ConfigError('--cacheShare is the share of a cold data set the cache may keep: add cold to --storage')
  }
  if (!storage.includes('cold')) return { storage, flags: [] }
  if (measure !== 'rounds') {
    throw new ConfigError('--storage=cold is measured in interleaved rounds, each begun with the cache emptied: use sweep, quick or storage-check')
  }
  const flags = Object.entries(COLD_DATA).filter(([key]) => !given(argv, key) && !lists[key]).map(([key, value]) => `--${key}=${value}`)
  return { storage, flags }
}

/**
 * Why cold cells cannot run here, or ''.
 * @param {{ dataPath: string, nFiles: number, fileBytes: number }} config
 * @param {object|null} serverHost
 * @returns {string}
 */
function coldProblem (config, serverHost) {
  if (serverHost) return `--storage=cold: the server runs on ${serverHost.text}; the cold cache is made on this host`
  const why = cgroupProblem({ trial: false }) || vmtouchProblem() || fioProblem() || ramFolderProblem(existingAbove(config.dataPath))
  if (why) return `--storage=cold: ${why}`
  const bytes = config.nFiles * config.fileBytes
  if (bytes < MIN_COLD_BYTES) {
    return `--storage=cold: the data set (--nFiles=${config.nFiles} × --fileBytes=${config.fileBytes}, ${mib(bytes)}) must be at least ` +
      `${mib(MIN_COLD_BYTES)}, well above the ${mib(SLACK_BYTES)} of cache the server's cgroup may keep`
  }
  // Last, as it is the one that does something: a memory cgroup made, used and removed, as a cell will.
  const trial = cgroupProblem()
  return trial ? `--storage=cold: ${trial}` : ''
}

const mib = (bytes) => `${Math.round(bytes / 1048576)} MiB`

/**
 * The delay layer at a device's measured latencies: its mean read at queue depth 1 and at 4 (storage-check).
 * @param {{ qd1: { meanUs: number }, qd4: { meanUs: number } }} device storage/device.js probeDevice
 * @returns {string[]} --ioDelay and --ioDelayQd4, whole µs
 */
function delayFlags (device) {
  return [`--ioDelay=${Math.round(device.qd1.meanUs)}`, `--ioDelayQd4=${Math.round(device.qd4.meanUs)}`]
}

// The data folder, or the nearest folder above it that exists (the run makes it).
function existingAbove (dir) {
  let at = path.resolve(dir)
  while (!fs.existsSync(at)) at = path.dirname(at)
  return at
}

module.exports = { planStorage, coldProblem, delayFlags, COLD_DATA, MIN_COLD_BYTES }
