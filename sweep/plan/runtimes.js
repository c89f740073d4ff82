'use strict'
// The runtime dimension of a plan: --runtime values (and --node, which is --runtime=node@...) resolved to
// binaries, one per exact version (one not in the cache is installed there first), and --clientNode, the one
// Node every client runs on so that the load generator's own cost is the same in every cell.

const { resolveNode } = require('../../lib/install/node-versions')
const { resolveRuntime } = require('../../lib/install/runtime-specs')
const { installRuntime } = require('../../lib/install/node-install')

const say = (line) => process.stderr.write(`${line}\n`)

/**
 * The Node that runs the sweep, as a resolved record.
 * @returns {{ spec: string, source: string, path: string, node: string, v8: string, uv: string }}
 */
function sweepNode () {
  return { spec: 'sweep', source: 'sweep', path: process.execPath, node: process.version, v8: process.versions.v8, uv: process.versions.uv }
}

/**
 * Resolves --runtime values; two that are the same runtime and version run once (a line says so). A Bun or Deno
 * that cannot be had (no registry) is left out with one line; when none is left, the first reason throws.
 * @param {string[]|undefined} specs the --runtime list, or undefined for the Node running the sweep
 * @param {{ notify?: (line: string) => void, install?: Function, cacheDir?: string }} [how]
 * @returns {object[]} records from lib/install/runtime-specs.js resolveRuntime, in the order given
 * @throws {ConfigError} naming a value that cannot be had
 */
function resolveRuntimes (specs = ['node'], { notify = say, install = installRuntime, cacheDir } = {}) {
  const byId = new Map()
  const missing = []
  for (const text of specs) {
    let record
    try {
      record = resolveRuntime(text, { install, notify, cacheDir, sweepNode })
    } catch (err) {
      // A Node asked for is the question itself; another runtime that cannot be had leaves the rest to run.
      if (text.startsWith('node') || !/cannot be had|no (Bun|Deno)/.test(err.message)) throw err
      missing.push(err)
      notify(`skipped ${err.message}`)
      continue
    }
    const seen = byId.get(record.id)
    if (seen) notify(`--runtime ${text} is the same as ${seen.spec} (${record.id}); running it once`)
    else byId.set(record.id, record)
  }
  if (byId.size === 0) throw missing[0]
  return [...byId.values()]
}

/**
 * Resolves --clientNode, or the Node running the sweep when it is not given.
 * @param {string|undefined} spec
 * @param {object} [how] as for resolveRuntimes
 * @returns {object} a resolved record
 */
function resolveClientNode (spec, how = {}) {
  const install = (range, h) => installRuntime('node', range, h)
  return spec === undefined ? sweepNode() : resolveNode(spec, { install, notify: say, flag: '--clientNode', ...how })
}

module.exports = { resolveRuntimes, resolveClientNode }
