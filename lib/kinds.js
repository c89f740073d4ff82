'use strict'
// The server kinds: the store each uses (sync or async fs) and its process model (one process, a
// node:cluster primary and workers, independent processes sharing a port with reusePort,
// single-process servers behind HAProxy, or one process whose file work runs on a pool of threads).
// Shared by servers, sweep, report and tests; it imports none of them.

const os = require('node:os')
const { checkHaproxy } = require('./haproxy-check')
const { PLATFORM, hasProc, LINUX_ONLY } = require('./platform')

/** name → { store, model }: the kinds in the order reports list them. */
const KINDS = {
  sync: { store: 'sync', model: 'single' },
  async: { store: 'async', model: 'single' },
  'sync-cluster': { store: 'sync', model: 'cluster' },
  'async-cluster': { store: 'async', model: 'cluster' },
  'sync-reuseport': { store: 'sync', model: 'reuseport' },
  'async-reuseport': { store: 'async', model: 'reuseport' },
  // nServers single-process servers behind HAProxy, which spreads requests (balancer/).
  'sync-lb': { store: 'sync', model: 'lb' },
  'async-lb': { store: 'async', model: 'lb' },
  // One process: its main thread does HTTP, as many worker threads as libuv's pool the sync fs calls (piscina).
  'sync-pool': { store: 'sync', model: 'pool' }
}
const KIND_NAMES = Object.keys(KINDS)
// server.listen({ reusePort }) arrived in Node 23.1.0 and was backported to 22.12.0.
const REUSE_PORT_SINCE = [[22, 12, 0], [23, 1, 0]]
// Platforms where libuv sets SO_REUSEPORT (Node's docs); Linux since 3.9.
const REUSE_PORT_PLATFORMS = ['linux', 'freebsd', 'sunos', 'aix']

/**
 * @param {string} kind a name in KINDS
 * @returns {boolean} whether nServers applies: the kind runs more than one serving process (the pool
 *   kind's threads are as many as libuv's pool: UV_THREADPOOL_SIZE)
 */
function isMultiProcess (kind) {
  return !['single', 'pool'].includes(KINDS[kind].model)
}

/**
 * The kind with a store and a model, e.g. kindOf('async', 'single') is 'async'.
 * @param {'sync'|'async'} store
 * @param {'single'|'cluster'|'reuseport'|'lb'|'pool'} model
 * @returns {string|undefined}
 */
function kindOf (store, model) {
  return KIND_NAMES.find((k) => KINDS[k].store === store && KINDS[k].model === model)
}

function parseVersion (version) {
  return String(version).replace(/^v/, '').split('.').map((n) => parseInt(n, 10))
}

function atLeast (have, want) {
  for (let i = 0; i < want.length; i++) if (have[i] !== want[i]) return have[i] > want[i]
  return true
}

/**
 * Why a Node and kernel cannot run the reuseport kinds, or null when they can.
 * @param {{ version?: string, platform?: string, release?: string }} [where] defaults: this process
 * @returns {string|null}
 */
function reusePortProblem ({ version = process.version, platform = PLATFORM, release = os.release() } = {}) {
  const [major] = parseVersion(version)
  const since = major === 22 ? REUSE_PORT_SINCE[0] : REUSE_PORT_SINCE[1]
  if (!atLeast(parseVersion(version), since)) {
    return `server.listen({ reusePort }) needs Node >= 22.12.0 (22.x) or >= 23.1.0; this is ${version}`
  }
  if (!REUSE_PORT_PLATFORMS.includes(platform)) return `reusePort is not supported on ${platform}`
  if (platform === 'linux' && !atLeast(parseVersion(release), [3, 9])) {
    return `SO_REUSEPORT needs Linux >= 3.9; this kernel is ${release}`
  }
  return null
}

/**
 * Why a kind cannot run on a Node and kernel (or, for the balanced kinds, without HAProxy here),
 * or null when it can.
 * @param {string} kind a name in KINDS
 * @param {{ version?: string, platform?: string, release?: string }} [where] defaults: this process
 * @returns {string|null}
 */
function kindProblem (kind, where) {
  if (KINDS[kind].model === 'lb') return hasProc() ? checkHaproxy() : LINUX_ONLY.lb
  return KINDS[kind].model === 'reuseport' ? reusePortProblem(where) : null
}

/**
 * Why a kind cannot take an fsync setting, or null: fsync=group shares one flush among the PUTs that
 * arrived meanwhile, which needs an async store (a sync process handles one request at a time).
 * @param {string} kind a name in KINDS
 * @param {'none'|'each'|'group'} fsync
 * @returns {string|null}
 */
function fsyncProblem (kind, fsync) {
  if (fsync !== 'group' || KINDS[kind].store === 'async') return null
  const unit = KINDS[kind].model === 'pool' ? 'thread' : 'process'
  return `fsync=group needs an async kind: a ${kind} server handles one request at a time per ${unit}, so no two PUTs can share a flush`
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`
// A process model in words, for nServers processes.
const MODEL_WORDS = {
  single: () => '1 process',
  cluster: (n) => `cluster of ${plural(n, 'worker', 'workers')}`,
  reuseport: (n) => plural(n, 'reusePort process', 'reusePort processes'),
  lb: (n) => `${plural(n, 'backend', 'backends')} behind HAProxy`,
  pool: () => '1 process + libuv-sized thread pool'
}

/**
 * A kind and its process count in words, the one wording of the report, compare and verdicts.json:
 * "1 process", "cluster of 2 workers", "2 reusePort processes", "2 backends behind HAProxy", "1 process + libuv-sized
 * thread pool".
 * @param {string} kind a name in KINDS
 * @param {number} nServers
 * @returns {string}
 */
function modelLabel (kind, nServers) {
  return MODEL_WORDS[KINDS[kind].model](nServers)
}

/**
 * A comparison of two kinds in words, sentence-ready: "sync vs async, 1 process" when only the store
 * differs, "sync: cluster of 2 workers vs 1 process" when only the model does, else both in full.
 * @param {{ kind: string, nServers: number }} a
 * @param {{ kind: string, nServers: number }} b
 * @returns {string}
 */
function pairLabel (a, b) {
  const [ka, kb] = [KINDS[a.kind], KINDS[b.kind]]
  const [ma, mb] = [modelLabel(a.kind, a.nServers), modelLabel(b.kind, b.nServers)]
  if (ma === mb) return `${ka.store} vs ${kb.store}, ${ma}`
  if (ka.store === kb.store) return `${ka.store}: ${ma} vs ${mb}`
  return `${ka.store}, ${ma} vs ${kb.store}, ${mb}`
}

module.exports = { KINDS, KIND_NAMES, isMultiProcess, kindOf, kindProblem, reusePortProblem, fsyncProblem, parseVersion, modelLabel, pairLabel }
