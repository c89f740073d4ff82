'use strict'
// Which Node binary a --node value names, and what it is: a major version (24) or a full one
// (24.21.0) from the project's cache of official binaries (.node-cache/, filled from the npm
// registry by lib/install/node-install.js), `system` (the node on PATH) or a path to a binary.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { ROOT, ConfigError, ValueError } = require('../config')
const { parseVersion } = require('../kinds')
const { PLATFORM } = require('../platform')

const CACHE_DIR = path.join(ROOT, '.node-cache')
const FORMS = 'a major version (24), a full version (24.21.0), system, or a path to a node binary'
const PROBE = 'JSON.stringify({ node: process.version, v8: process.versions.v8, uv: process.versions.uv })'
const PROBE_TIMEOUT_MS = 20000

/**
 * Parses a --node value (a lib/config.js validator: returns the value or throws a ValueError).
 * @param {string} text
 * @returns {{ text: string, type: 'major'|'full'|'system'|'path', version?: string, path?: string }}
 */
function parseNodeSpec (text) {
  if (text === 'system') return { text, type: 'system' }
  if (/^\d{1,3}$/.test(text)) return { text, type: 'major', version: text }
  if (/^v?\d{1,3}\.\d{1,4}\.\d{1,4}$/.test(text)) return { text, type: 'full', version: `v${text.replace(/^v/, '')}` }
  if (text.includes('/')) return { text, type: 'path', path: path.resolve(text) }
  throw new ValueError(`must be ${FORMS}`)
}

/** A lib/config.js validator of one --node or --clientNode value: returns it or throws a ValueError. */
function nodeSpec (text) {
  parseNodeSpec(text)
  return text
}
nodeSpec.takes = FORMS

/** Sorts versions (v24.21.0) newest first. */
function newestFirst (a, b) {
  const [x, y] = [parseVersion(a), parseVersion(b)]
  return y[0] - x[0] || y[1] - x[1] || y[2] - x[2]
}

/**
 * The official binaries in a cache folder, newest first.
 * @param {string} [cacheDir]
 * @returns {Array<{ version: string, path: string }>}
 */
function cachedNodes (cacheDir = CACHE_DIR) {
  let names
  try {
    names = fs.readdirSync(cacheDir)
  } catch {
    return []
  }
  return names.filter((n) => /^v\d+\.\d+\.\d+$/.test(n)).sort(newestFirst)
    .map((version) => ({ version, path: binaryIn(path.join(cacheDir, version)) }))
    .filter((entry) => isExecutable(entry.path))
}

/**
 * Where npm puts the binary of node-<platform>-<arch> installed with --prefix dir.
 * @param {string} dir
 * @returns {string}
 */
function binaryIn (dir) {
  return path.join(dir, 'node_modules', `node-${PLATFORM}-${process.arch}`, 'bin', 'node')
}

function isExecutable (file) {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

/** The `node` on PATH, as a shell would find it, or null. */
function systemNode (envPath = process.env.PATH || '') {
  for (const dir of envPath.split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, 'node')
    if (isExecutable(file)) return file
  }
  return null
}

/**
 * Runs a binary to read its versions.
 * @param {string} bin
 * @returns {{ path: string, node: string, v8: string, uv: string }}
 * @throws {Error} when it is not a working node binary
 */
function probeNode (bin) {
  let out
  try {
    out = execFileSync(bin, ['-p', PROBE], { timeout: PROBE_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] }).toString()
    const { node, v8, uv } = JSON.parse(out)
    if (!/^v\d+\.\d+\.\d+/.test(node)) throw new Error(`it reports version ${JSON.stringify(node)}`)
    return { path: bin, node, v8, uv }
  } catch (err) {
    const why = err.code || err.stderr?.toString().trim().split('\n').pop() || err.message
    throw new Error(`${bin} is not a working node binary: ${why}`)
  }
}

/**
 * The cached binary a major or full version names, or null.
 * @param {{ type: string, version?: string }} spec from parseNodeSpec
 * @param {string} [cacheDir]
 * @returns {{ version: string, path: string }|null}
 */
function findCached (spec, cacheDir = CACHE_DIR) {
  const nodes = cachedNodes(cacheDir)
  if (spec.type === 'full') return nodes.find((n) => n.version === spec.version) ?? null
  return nodes.find((n) => n.version.startsWith(`v${spec.version}.`)) ?? null
}

/**
 * Resolves a --node value to a binary and its versions. A major or full version not in the cache
 * is installed there with `install` (one line on stderr says so).
 * @param {string} text a --node value
 * @param {{ cacheDir?: string, install?: Function, envPath?: string, notify?: (line: string) => void, flag?: string }} [how]
 *   install(range, { cacheDir, notify }) returns { version, path } (lib/install/node-install.js); flag names
 *   the value in messages (--node)
 * @returns {{ spec: string, source: 'system'|'path'|'cache'|'installed', path: string, node: string, v8: string, uv: string }}
 * @throws {ConfigError} naming the value when it cannot be had
 */
function resolveNode (text, { cacheDir = CACHE_DIR, install, envPath, notify = (line) => process.stderr.write(`${line}\n`), flag = '--node' } = {}) {
  const fail = (why) => { throw new ConfigError(`${flag} ${text}: ${why}`) }
  let spec
  try {
    spec = parseNodeSpec(text)
  } catch (why) {
    fail(`${why.message}, got ${JSON.stringify(text)}`)
  }
  let bin
  let source = spec.type === 'system' || spec.type === 'path' ? spec.type : 'cache'
  if (spec.type === 'system') bin = systemNode(envPath) ?? fail('there is no node on PATH')
  else if (spec.type === 'path') bin = spec.path
  else {
    let entry = findCached(spec, cacheDir)
    if (!entry) {
      if (!install) fail(`Node ${spec.version} is not in ${cacheDir}`)
      notify(`${flag} ${text}: Node ${spec.version} is not in ${path.relative(process.cwd(), cacheDir) || '.'}; installing it from the npm registry`)
      try {
        entry = install(spec.version, { cacheDir, notify })
      } catch (err) {
        fail(`Node ${spec.version} cannot be had: ${err.message}`)
      }
      source = 'installed'
    }
    bin = entry.path
  }
  try {
    return { spec: text, source, ...probeNode(bin) }
  } catch (err) {
    fail(err.message)
  }
}

/**
 * The binary on this host that runs a full Node version (v26.10.0): the node on PATH, else the
 * project's .node-cache/; null if neither.
 * @param {string} version
 * @returns {string|null}
 */
function binaryFor (version) {
  const system = systemNode()
  try {
    if (system && probeNode(system).node === version) return system
  } catch {} // a node on PATH that does not run: look in the cache
  return findCached({ type: 'full', version })?.path ?? null
}

module.exports = { binaryFor, parseNodeSpec, resolveNode, probeNode, cachedNodes, findCached, systemNode, binaryIn, newestFirst, CACHE_DIR, nodeSpec }
