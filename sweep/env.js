'use strict'
// The environment a results folder was produced in: machine, Node, libuv and cluster settings,
// git commit and installed package versions, for env.json.

const cluster = require('node:cluster')
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { ROOT } = require('../lib/config')

const LIBUV_DEFAULT_THREADPOOL = 4

/** @returns {number} the libuv thread-pool size children get unless a cell sets it */
function uvThreadpoolSize () {
  return Number(process.env.UV_THREADPOOL_SIZE) || LIBUV_DEFAULT_THREADPOOL
}

/** @returns {'rr'|'none'} how a cluster primary hands out connections (NODE_CLUSTER_SCHED_POLICY) */
function schedPolicy () {
  return cluster.schedulingPolicy === cluster.SCHED_RR ? 'rr' : 'none'
}

function git (args) {
  try {
    // GIT_OPTIONAL_LOCKS=0: `git status` must not write the index others may be using.
    return execFileSync('git', args, { cwd: ROOT, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' }, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim()
  } catch {
    return null
  }
}

function installedPackages () {
  const { dependencies = {}, devDependencies = {} } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
  const packages = {}
  for (const name of Object.keys({ ...dependencies, ...devDependencies }).sort()) {
    try {
      packages[name] = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version
    } catch {} // not installed: nothing to record
  }
  return packages
}

/**
 * The env.json record of a run; finishedAt is filled in at the end.
 * @param {object} run command, argv, seed, config and any further fields to record
 * @returns {object}
 */
function collectEnv (run) {
  const commit = git(['rev-parse', 'HEAD'])
  return {
    node: process.version,
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? null,
    totalMemBytes: os.totalmem(),
    platform: process.platform,
    release: os.release(),
    uvThreadpoolSize: uvThreadpoolSize(),
    schedPolicy: schedPolicy(),
    gitCommit: commit,
    gitDirty: commit === null ? null : git(['status', '--porcelain']) !== '',
    packages: installedPackages(),
    ...run,
    startedAt: new Date().toISOString(),
    finishedAt: null
  }
}

module.exports = { collectEnv, uvThreadpoolSize, schedPolicy }
