'use strict'
// The `node` command of ./run_benchmark.sh: `node install 24 26 bun@1.4 deno` puts official Node binaries, Bun and
// Deno into the project's cache (.node-cache/, git-ignored) from the npm registry; `node list` shows what is there.
// Also runs as `node sweep/node-command.js install lts`: it needs no dependency, so CI can fill the
// cache before `npm ci`.

const { ConfigError, runMain } = require('../lib/config')
const { lineStatus, newestLts } = require('../lib/install/node-lines')
const { installRuntime } = require('../lib/install/node-install')
const { parseNodeSpec, cachedNodes, probeNode, systemNode, CACHE_DIR } = require('../lib/install/node-versions')
const { parseRuntimeSpec, cachedRuntimes } = require('../lib/install/runtime-specs')

const USAGE = 'use node install VERSION... (a Node major such as 24, a full version such as 24.21.0, lts for the newest LTS line, ' +
  'or bun, deno, bun@1.4, deno@2.9.6) or node list'

const attempt = (parse) => { try { return parse() } catch { return {} } }

/**
 * Checks the arguments of the node command.
 * @param {string[]} args after `node`
 * @returns {{ action: 'install'|'list', versions: Array<{ text: string, name: string, range: string }> }}
 * @throws {ConfigError} for a bad action or version
 */
function parseNodeCommand ([action, ...versions]) {
  if (action === 'list' && versions.length === 0) return { action, versions }
  if (action !== 'install' || versions.length === 0) throw new ConfigError(`node: ${USAGE}`)
  return {
    action,
    versions: versions.map((text) => {
      const bad = () => { throw new ConfigError(`node install: ${JSON.stringify(text)} is not a version; ${USAGE}`) }
      if (text === 'lts') return { text, name: 'node', range: String(newestLts()) }
      if (/^(bun|deno)(@|$)/.test(text)) {
        const spec = attempt(() => parseRuntimeSpec(text))
        return spec.range !== undefined ? { text, name: spec.name, range: spec.range } : bad()
      }
      const spec = attempt(() => parseNodeSpec(text.replace(/^node@/, '')))
      return spec.type === 'major' || spec.type === 'full' ? { text, name: 'node', range: spec.version } : bad()
    })
  }
}

/**
 * Runs the node command: paths of installed binaries on stdout, one per version, notes on stderr.
 * @param {{ action: string, versions: object[] }} todo from parseNodeCommand
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
    for (const name of ['bun', 'deno']) for (const r of cachedRuntimes(name, cacheDir)) process.stdout.write(`${name}-${r.version}\t${name}\t${r.path}\n`)
    return 0
  }
  let status = 0
  for (const { text, name, range } of versions) {
    try {
      const got = installRuntime(name, range, { cacheDir, npm, notify: (line) => process.stderr.write(`node ${text}: ${line}\n`) })
      process.stderr.write(`node ${text}: ${name === 'node' ? '' : `${name} `}${got.version} ${got.installed ? 'installed' : 'already in the cache'}\n`)
      process.stdout.write(`${got.path}\n`)
    } catch (err) {
      process.stderr.write(`node ${text}: cannot be had: ${err.message}\n`)
      status = 2
    }
  }
  return status
}

if (require.main === module) {
  process.exitCode = runNodeCommand(runMain('node-command', () => parseNodeCommand(process.argv.slice(2))))
}

module.exports = { parseNodeCommand, runNodeCommand }
