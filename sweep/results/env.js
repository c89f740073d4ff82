'use strict'
// The environment a results folder was produced in: machine, Node, libuv and cluster settings,
// git commit and installed package versions, and the run's own record, for env.json.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { ROOT } = require('../../lib/config')
const { describeEnv, SCHED_POLICY_DEFAULT } = require('../../lib/results/environment')
const { RESULTS_FORMAT } = require('../../lib/results/dimensions') // the results folder's layout (docs/REFERENCE.md, env.json)
const { haproxyVersion } = require('../../lib/haproxy-check')

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
  const env = describeEnv() // uvThreadpoolSize, schedPolicy: what servers get unless a cell sets them
  return {
    format: RESULTS_FORMAT,
    ...env,
    oversubscriptionNote: `with ${env.cpus} cores, nServers > ${env.cpus} measures oversubscription`,
    // How busy the machine was as the run began (1, 5, 15 min): other work shares the cores.
    loadAverage: os.loadavg().map((x) => Number(x.toFixed(2))),
    fingerprint: null, // the machine's costs, measured as the run starts (sweep/runner.js)
    schedPolicyDefault: SCHED_POLICY_DEFAULT,
    inheritedEnv: Object.fromEntries(['UV_THREADPOOL_SIZE', 'UV_USE_IO_URING', 'NODE_CLUSTER_SCHED_POLICY'].map((name) => [name, process.env[name] ?? null])),
    gitCommit: commit,
    gitDirty: commit === null ? null : git(['status', '--porcelain']) !== '',
    packages: installedPackages(),
    haproxy: haproxyVersion(), // the -lb kinds' balancer, null where it is not installed
    ...run,
    startedAt: new Date().toISOString(),
    finishedAt: null
  }
}

/**
 * env.json as a plan's run begins: collectEnv with the plan's command, argv, seed, config, grid,
 * options and notes, and what its planner adds (envExtra: nodes, skipped, hosts; peak's latencyUnit).
 * @param {{ command: string, config: object, options: object, grid: object, notes?: string[], envExtra?: object }} plan
 * @returns {object}
 */
function planEnv (plan) {
  const { command, config, options, grid } = plan
  return collectEnv({ command, argv: process.argv.slice(2), seed: options.seed, config, grid, options, notes: plan.notes ?? [], ...plan.envExtra })
}

/**
 * env.json as the run ends: when, whether it was interrupted, and the rounds of an interleaved or
 * capacity run (sweep/interleaved/rounds.js, sweep/capacity/run.js) when it had any.
 * @param {object} env from planEnv
 * @param {{ interrupted: boolean, rounds?: object|null }} end
 * @returns {object}
 */
function finishEnv (env, { interrupted, rounds }) {
  return { ...env, finishedAt: new Date().toISOString(), interrupted, ...(rounds && { rounds }) }
}

module.exports = { collectEnv, planEnv, finishEnv }
