'use strict'
// The Node dimension of a plan: --node values resolved to binaries, one per exact version (a
// version not in the cache is installed there first), and --clientNode, the one Node every
// client runs on so that the load generator's own cost is the same in every cell.

const { resolveNode } = require('../../lib/node-versions')
const { installNode } = require('../../lib/node-install')

const say = (line) => process.stderr.write(`${line}\n`)

/**
 * The Node that runs the sweep, as a resolved record.
 * @returns {{ spec: string, source: string, path: string, node: string, v8: string, uv: string }}
 */
function sweepNode () {
  return { spec: 'sweep', source: 'sweep', path: process.execPath, node: process.version, v8: process.versions.v8, uv: process.versions.uv }
}

/**
 * Resolves --node values; two that are the same version run once (a line says so).
 * @param {string[]|undefined} specs the --node list, or undefined for the Node running the sweep
 * @param {{ notify?: (line: string) => void, install?: Function, cacheDir?: string }} [how]
 * @returns {object[]} records from lib/node-versions.js resolveNode, in the order given
 * @throws {ConfigError} naming a value that cannot be had
 */
function resolveNodes (specs, { notify = say, install = installNode, cacheDir } = {}) {
  if (specs === undefined) return [sweepNode()]
  const byVersion = new Map()
  for (const text of specs) {
    const record = resolveNode(text, { install, notify, cacheDir })
    const seen = byVersion.get(record.node)
    if (seen) notify(`--node ${text} is the same Node as ${seen.spec} (${record.node}); running it once`)
    else byVersion.set(record.node, record)
  }
  return [...byVersion.values()]
}

/**
 * Resolves --clientNode, or the Node running the sweep when it is not given.
 * @param {string|undefined} spec
 * @param {object} [how] as for resolveNodes
 * @returns {object} a resolved record
 */
function resolveClientNode (spec, how = {}) {
  return spec === undefined ? sweepNode() : resolveNode(spec, { install: installNode, notify: say, flag: '--clientNode', ...how })
}

module.exports = { resolveNodes, resolveClientNode }
