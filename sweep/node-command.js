'use strict'
// The `node` command of ./run_benchmark.sh: `node install 24 26` puts official binaries into the
// project's cache (.node-cache/, git-ignored) from the npm registry; `node list` shows what is there.
// Also runs as `node sweep/node-command.js install lts`: it needs no dependency, so CI can fill the
// cache before `npm ci`.

const { ConfigError, runMain } = require('../lib/config')
const { lineStatus, newestLts } = require('../lib/node-lines')
const { installNode } = require('../lib/node-install')
const { parseNodeSpec, cachedNodes, probeNode, systemNode, CACHE_DIR } = require('../lib/node-versions')

const USAGE = 'use node install VERSION... (a major such as 24, a full version such as 24.21.0, or lts for the newest LTS line) or node list'

/**
 * Checks the arguments of the node command.
 * @param {string[]} args after `node`
 * @returns {{ action: 'install'|'list', versions: string[] }}
 * @throws {ConfigError} for a bad action or version
 */
function parseNodeCommand ([action, ...versions]) {
  if (action === 'list' && versions.length === 0) return { action, versions }
  if (action !== 'install' || versions.length === 0) throw new ConfigError(`node: ${USAGE}`)
  return {
    action,
    versions: versions.map((v) => {
      if (v === 'lts') return String(newestLts())
      const spec = (() => { try { return parseNodeSpec(v) } catch { return {} } })()
      if (spec.type !== 'major' && spec.type !== 'full') throw new ConfigError(`node install: ${JSON.stringify(v)} is not a version; ${USAGE}`)
      return spec.version
    })
  }
}

/**
 * Runs the node command: paths of installed binaries on stdout, one per version, notes on stderr.
 * @param {{ action: string, versions: string[] }} todo from parseNodeCommand
 * @param {{ cacheDir?: string, npm?: string }} [how]
 * @returns {number} exit status: 0, or 2 when a version cannot be had
 */
function runNodeCommand ({ action, versions }, { cacheDir = CACHE_DIR, npm } = {}) {
  if (action === 'list') {
    const system = systemNode()
    const rows = [...cachedNodes(cacheDir), ...(system ? [{ version: probeNode(system).node, path: system, system: true }] : [])]
    for (const n of rows) {
      const major = Number(n.version.slice(1).split('.')[0])
      process.stdout.write(`${n.version}\t${lineStatus(major)}\t${n.system ? 'system ' : ''}${n.path}\n`)
    }
    return 0
  }
  let status = 0
  for (const version of versions) {
    try {
      const got = installNode(version, { cacheDir, npm, notify: (line) => process.stderr.write(`node ${version}: ${line}\n`) })
      process.stderr.write(`node ${version}: ${got.version} ${got.installed ? 'installed' : 'already in the cache'}\n`)
      process.stdout.write(`${got.path}\n`)
    } catch (err) {
      process.stderr.write(`node ${version}: cannot be had: ${err.message}\n`)
      status = 2
    }
  }
  return status
}

if (require.main === module) {
  process.exitCode = runNodeCommand(runMain('node-command', () => parseNodeCommand(process.argv.slice(2))))
}

module.exports = { parseNodeCommand, runNodeCommand }
