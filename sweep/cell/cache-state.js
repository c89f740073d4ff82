'use strict'
// The page-cache state of a cell's data set round by round (--storage): before each round of a cache
// cell, and of a delay cell (its backing folder: the layer's sleep stands in for the device, so the
// daemon's reads must find the page cache), its files read into the page cache (a machine may page out
// what stays idle: this VM's DAMON does after a minute); before each round of a cold cell, its files
// written back and dropped from the cache, its memory cgroup's limit set to the most the server used
// besides the cache at any round's start or end (an idle server gives memory back that its next round takes
// again), plus SLACK_BYTES and --cacheShare of the data set, and that share of the files
// read back into the cache from inside the cgroup (storage/warm.js: spread evenly, as a steady cache
// that holds that share would have them); for every cell on this host, the data set's residency before
// and after the round and the bytes read from the device per GET by the server's processes (a delay
// cell's: by the layer's daemon, which reads for them). A round whose residency left its bounds
// drifted: its rows are invalid and the round is measured again (sweep/interleaved/rounds.js).

const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { residency, evict, touch, readBytes, vmtouchProblem } = require('../../storage/cache')
const { usesDelayLayer } = require('../../lib/results/dimensions')
const { processTable, processTree } = require('../../lib/machine/cpu-share')
const { hasProc } = require('../../lib/platform')

const SLACK_BYTES = 32 * 1024 * 1024 // what the server may grow by in a round without reclaiming its own memory
const PAGE_BYTES = 4096
// A round's residency bounds, in points of the data set: --cacheShare (a cache cell: 100) cached at its start, give or
// take BEFORE_BOUND; a cold round's end no more than --cacheShare plus what SLACK_BYTES holds of the default data set (6%)
// and a margin.
const BEFORE_BOUND = 2
const AFTER_MARGIN = 10
const WARM = path.join(__dirname, '..', '..', 'storage', 'warm.js')

/** Whether a cell's data set is followed round by round: on this host, with vmtouch. */
const tracked = (cell, opened) => !opened.remote && (cell.storage === 'cold' || !vmtouchProblem())

/** Where a cell's data set lies: the delay layer's backing folder, else the data folder. */
const filesOf = (cell, opened) => (usesDelayLayer(cell) ? opened.storage.backing : opened.dataPath)

/** The processes that read the files: the delay layer's daemon; else the cold server's cgroup's, or the tree of the one started. */
function readerPids (opened) {
  if (opened.storage) return [opened.storage.pid]
  if (opened.cgroup) return opened.cgroup.pids()
  return [...processTree(processTable(), opened.server.child.pid)]
}

// The share of the files read into the cache by a process in the cell's cgroup.
function warm (opened, cell) {
  const res = spawnSync('/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', opened.cgroup.procs, process.execPath, WARM, opened.dataPath,
    String(cell.config.nFiles), String(cell.cacheShare)], { encoding: 'utf8' })
  if (res.status !== 0) throw new Error(`warming ${cell.cacheShare}% of the data set: ${res.error?.message || res.stderr.trim() || `exit ${res.status}`}`)
}

// Not measured (null) without /proc, where a process's bytes from the device are read.
const deviceBytes = (opened) => (hasProc() ? readerPids(opened).reduce((sum, pid) => sum + readBytes(pid), 0) : null)

/**
 * Readies a cell's data set for a round and notes where it starts: cold, emptied and limited.
 * @param {{ cell: object, opened: object }} c a live cell
 * @returns {Promise<{ percent: number, readBytes: number, limitBytes?: number }|null>} null when not tracked
 */
async function beginCache ({ cell, opened }) {
  if (!tracked(cell, opened) || !opened.server) return null
  const files = filesOf(cell, opened)
  const start = {}
  if (opened.cgroup) {
    // Warmed without a limit (the warming process's own memory would push its pages out), then limited: the share fits,
    // with SLACK_BYTES free for the round's reads, which evict no warm page while it lasts.
    await evict(opened.dataPath)
    opened.cgroup.setLimit(null)
    if (cell.cacheShare > 0) warm(opened, cell)
    const dataBytes = residency(opened.dataPath).pages * PAGE_BYTES
    opened.peakOther = Math.max(opened.peakOther ?? 0, opened.cgroup.memory().other)
    start.limitBytes = opened.peakOther + SLACK_BYTES + Math.round(dataBytes * cell.cacheShare / 100)
    opened.cgroup.setLimit(start.limitBytes)
    start.ooms = opened.cgroup.ooms()
  } else {
    await touch(files)
  }
  return { ...start, percent: residency(files).percent, readBytes: deviceBytes(opened) }
}

/**
 * The figures of a round of a tracked cell, and whether its cold cache drifted.
 * @param {object|null} start from beginCache
 * @param {{ cell: object, opened: object }} c
 * @param {number} requests in the round
 * @returns {{ fields: object, drift: string, oom?: boolean }} drift: why the round's cache state was not the one asked for, or '';
 *   oom: the kernel killed a server process at the cgroup's limit (drift says so)
 */
function endCache (start, { cell, opened }, requests) {
  if (!start) return { fields: {}, drift: '' }
  const after = residency(filesOf(cell, opened)).percent
  const r = cell.config.readsPerWrite
  const gets = r === 'inf' ? requests : Math.round(requests * r / (r + 1))
  const fields = {
    residencyBefore: round1(start.percent),
    residencyAfter: round1(after),
    deviceBytesPerGet: gets > 0 && start.readBytes !== null ? Math.round((deviceBytes(opened) - start.readBytes) / gets) : '',
    cacheLimitBytes: start.limitBytes ?? ''
  }
  if (!opened.cgroup) return { fields, drift: driftOf(fields, null) }
  opened.peakOther = Math.max(opened.peakOther ?? 0, opened.cgroup.memory().other)
  const killed = opened.cgroup.ooms() - start.ooms
  if (killed === 0) return { fields, drift: driftOf(fields, cell.cacheShare) }
  const limit = `${Math.round(start.limitBytes / 2 ** 20)} MiB`
  return { fields, oom: true, drift: `the memory cgroup killed ${killed} server process${killed > 1 ? 'es' : ''} at its limit of ${limit}` }
}

/**
 * Why a round's cache state was not the one asked for, or ''.
 * @param {{ residencyBefore: number, residencyAfter: number }} fields
 * @param {number|null} share a cold cell's --cacheShare; null for a cache or delay cell (all of it at the start, its end as it came)
 * @returns {string}
 */
function driftOf ({ residencyBefore, residencyAfter }, share) {
  const asked = share ?? 100
  if (Math.abs(residencyBefore - asked) > BEFORE_BOUND) {
    return `cache drifted: ${residencyBefore}% of the data set was cached at the round's start (${asked}% ± ${BEFORE_BOUND} asked)`
  }
  if (share === null) return ''
  const bound = share + AFTER_MARGIN
  return residencyAfter > bound ? `cache drifted: ${residencyAfter}% of the data set was cached at the round's end (bound ${bound}%)` : ''
}

const round1 = (x) => Math.round(x * 10) / 10

module.exports = { beginCache, endCache, driftOf, SLACK_BYTES }
