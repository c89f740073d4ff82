'use strict'
// The runtimes a server can run on: Node (lib/install/node-versions.js), Bun and Deno, each from its package on
// the npm registry (lib/install/node-install.js puts them into .node-cache/). A --runtime value is NAME[@VERSION]:
// node@26, node@24.21.0, node@system, node@/path/to/node, bun@1.4, bun@1.4.5, deno@2, deno@/path/to/deno;
// NAME alone is the Node running the sweep, or the newest Bun or Deno cached (else the registry's).
// A resolved runtime is named by its id, e.g. node-v26.10.0, bun-1.4.5, deno-2.9.6: a cell id ends with it.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { ConfigError, ValueError } = require('../config')
const { CACHE_DIR, parseNodeSpec, resolveNode, newestFirst } = require('./node-versions')

const { PLATFORM } = require('../platform')

// Bun's and Deno's npm packages for a platform and CPU (null: none there): each runtime names them its own way.
const PACKAGES = {
  bun: { linux: (a) => `@oven/bun-linux-${{ x64: 'x64', arm64: 'aarch64' }[a]}`, darwin: (a) => `@oven/bun-darwin-${{ x64: 'x64', arm64: 'aarch64' }[a]}` },
  deno: { linux: (a) => `@deno/linux-${a}-glibc`, darwin: (a) => `@deno/darwin-${a}` }
}
/** The npm package of Bun or Deno for a platform and CPU, or null where the registry has none. */
const runtimePackage = (name, platform = PLATFORM, arch = process.arch) =>
  (['x64', 'arm64'].includes(arch) && PACKAGES[name][platform]?.(arch)) || null
/**
 * name → title; pkg: its npm package for this machine; bin: the binary inside the package; args: what
 * goes before a script (Deno runs one with `run -A`: all permissions, as Node and Bun have); probe: the
 * arguments that evaluate PROBE.
 */
const RUNTIMES = {
  node: { title: 'Node', pkg: `node-${PLATFORM}-${process.arch}`, bin: ['bin', 'node'], args: [], probe: ['-p'] },
  bun: { title: 'Bun', pkg: runtimePackage('bun'), bin: ['bin', 'bun'], args: [], probe: ['-p'] },
  deno: { title: 'Deno', pkg: runtimePackage('deno'), bin: ['deno'], args: ['run', '-A'], probe: ['eval', '-p'] }
}
const NAMES = Object.keys(RUNTIMES)
const FORMS = 'node, bun or deno, each optionally @VERSION: node@26 (a major, a full version, system or a path to a node binary), ' +
  'bun@1.4 or deno@2.9.6 (a major, a minor or a full version, or a path to the binary)'
// What a Bun or Deno binary says of itself: its own version, and V8's where it runs on V8 (Deno; Bun runs on JavaScriptCore).
const PROBE = 'JSON.stringify({ bun: process.versions.bun, deno: process.versions.deno, v8: typeof Deno === "undefined" ? "" : Deno.version.v8, ' +
  'node: process.version })'
const PROBE_TIMEOUT_MS = 20000

/**
 * Parses a --runtime value (a lib/config.js validator's core).
 * @param {string} text
 * @returns {{ text: string, name: 'node'|'bun'|'deno', node?: object, range?: string, path?: string }} node: parseNodeSpec's
 *   record (none: the sweep's Node); range: a version prefix ('' for any); path: a binary
 * @throws {ValueError}
 */
function parseRuntimeSpec (text) {
  const m = /^([a-z]+)(?:@(.+))?$/.exec(text)
  if (!m || !NAMES.includes(m[1])) throw new ValueError(`must be ${FORMS}`)
  const [, name, version] = m
  if (name === 'node') {
    if (version === undefined) return { text, name }
    try {
      return { text, name, node: parseNodeSpec(version) }
    } catch {
      throw new ValueError(`must be ${FORMS}`)
    }
  }
  if (version === undefined) return { text, name, range: '' }
  if (/^\d{1,3}(\.\d{1,4}){0,2}$/.test(version)) return { text, name, range: version }
  if (version.includes('/')) return { text, name, path: path.resolve(version) }
  throw new ValueError(`must be ${FORMS}`)
}

/** A lib/config.js validator of one --runtime value: returns it or throws a ValueError. */
function runtimeSpec (text) {
  parseRuntimeSpec(text)
  return text
}
runtimeSpec.takes = FORMS

/** The runtime an id names and its version: node-v26.10.0 → { name: 'node', version: 'v26.10.0' }. */
function splitId (id) {
  const m = /^(node|bun|deno)-(.+)$/.exec(String(id))
  return m ? { name: m[1], version: m[2] } : { name: 'node', version: String(id) } // an older folder's node column: v26.10.0
}

/** A runtime id in the report's words: Node v26.10.0, Bun 1.4.5. */
function runtimeLabel (id) {
  const { name, version } = splitId(id)
  return `${RUNTIMES[name].title} ${version}`
}

/** The runtime running this process, as an id (the servers' telemetry says it, so a cell can check what ran). */
function currentRuntime () {
  if (process.versions.bun) return `bun-${process.versions.bun}`
  if (process.versions.deno) return `deno-${process.versions.deno}`
  return `node-${process.version}`
}

/** The binary of a runtime installed with npm into dir (as lib/install/node-install.js lays it out). */
function runtimeBinaryIn (name, dir) {
  return path.join(dir, 'node_modules', RUNTIMES[name].pkg, ...RUNTIMES[name].bin)
}

/** The cache folder of a Bun or Deno version: .node-cache/bun-1.4.5 (Node's are .node-cache/v26.10.0). */
const cacheName = (name, version) => (name === 'node' ? `v${version.replace(/^v/, '')}` : `${name}-${version}`)

/**
 * The Bun or Deno versions in the cache whose binary is there, newest first.
 * @returns {Array<{ version: string, path: string }>}
 */
function cachedRuntimes (name, cacheDir = CACHE_DIR) {
  if (!RUNTIMES[name].pkg) return [] // no package for this platform: none installed either
  let names = []
  try {
    names = fs.readdirSync(cacheDir)
  } catch {}
  const prefix = `${name}-`
  return names.filter((n) => n.startsWith(prefix) && /^\d+\.\d+\.\d+$/.test(n.slice(prefix.length)))
    .map((n) => ({ version: n.slice(prefix.length), path: runtimeBinaryIn(name, path.join(cacheDir, n)) }))
    .filter((e) => fs.existsSync(e.path))
    .sort((a, b) => newestFirst(`v${a.version}`, `v${b.version}`))
}

/** Whether a version (1.4.5) is in a range (1, 1.4, 1.4.5, or '' for any). */
const inRange = (version, range) => range === '' || version === range || version.startsWith(`${range}.`)

/**
 * Runs a Bun or Deno binary to read its versions.
 * @returns {{ version: string, v8: string, node: string }} node: the Node version it says it is compatible with
 * @throws {Error} when it is not a working binary of that runtime
 */
function probeRuntime (name, bin) {
  try {
    const out = execFileSync(bin, [...RUNTIMES[name].probe, PROBE], { timeout: PROBE_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] }).toString()
    const said = JSON.parse(out)
    if (!/^\d+\.\d+\.\d+/.test(said[name] ?? '')) throw new Error(`it is not ${RUNTIMES[name].title}`)
    return { version: said[name], v8: said.v8, node: said.node }
  } catch (err) {
    const why = err.code || err.stderr?.toString().trim().split('\n').pop() || err.message
    throw new Error(`${bin} is not a working ${RUNTIMES[name].title} binary: ${why}`)
  }
}

/**
 * Resolves a --runtime value to a binary: a Node as lib/install/node-versions.js resolveNode does, a Bun or Deno from
 * the cache (the newest in the range), else installed there with `install` (one line on stderr says so).
 * @param {string} text a --runtime value
 * @param {{ cacheDir?: string, install?: Function, sweepNode?: () => object, notify?: (line: string) => void }} how
 *   install(name, range, { cacheDir, notify }) returns { version, path } (lib/install/node-install.js installRuntime);
 *   sweepNode: the record of the Node running the sweep (for a bare `node`)
 * @returns {{ spec: string, id: string, name: string, version: string, path: string, args: string[], source: string,
 *   v8: string, uv: string, node: string }} node: the Node version the binary is, or says it is compatible with
 * @throws {ConfigError} naming the value when it cannot be had
 */
function resolveRuntime (text, { cacheDir = CACHE_DIR, install, sweepNode, notify = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const fail = (why) => { throw new ConfigError(`--runtime ${text}: ${why}`) }
  let spec
  try {
    spec = parseRuntimeSpec(text)
  } catch (why) {
    fail(`${why.message}, got ${JSON.stringify(text)}`)
  }
  const { name } = spec
  if (name === 'node') {
    // resolveNode's lines name the value as --node VERSION: here it is --runtime node@VERSION.
    const named = (line) => line.replace(`--node ${spec.node?.text}:`, `--runtime ${text}:`)
    let record
    try {
      record = spec.node
        ? resolveNode(spec.node.text, { cacheDir, install: install && ((range, how) => install('node', range, how)), notify: (l) => notify(named(l)) })
        : sweepNode()
    } catch (err) {
      throw new ConfigError(named(err.message))
    }
    return { ...record, spec: text, id: `node-${record.node}`, name, version: record.node, args: [] }
  }
  if (!RUNTIMES[name].pkg) fail(`the npm registry has no ${RUNTIMES[name].title} package for ${PLATFORM} on ${process.arch}`)
  let bin = spec.path
  let source = 'path'
  if (!bin) {
    source = 'cache'
    let entry = cachedRuntimes(name, cacheDir).find((e) => inRange(e.version, spec.range))
    if (!entry) {
      if (!install) fail(`no ${RUNTIMES[name].title} ${spec.range || ''} in ${cacheDir}`.replace('  ', ' '))
      notify(`--runtime ${text}: not in ${path.relative(process.cwd(), cacheDir) || '.'}; installing it from the npm registry`)
      try {
        entry = install(name, spec.range, { cacheDir, notify })
      } catch (err) {
        fail(`${RUNTIMES[name].title} cannot be had: ${err.message}`)
      }
      source = 'installed'
    }
    bin = entry.path
  }
  let probed
  try {
    probed = probeRuntime(name, bin)
  } catch (err) {
    fail(err.message)
  }
  const { version, v8, node } = probed
  return { spec: text, id: `${name}-${version}`, name, version, path: bin, args: RUNTIMES[name].args, source, v8, uv: '', node }
}

module.exports = {
  RUNTIMES, runtimePackage, parseRuntimeSpec, runtimeSpec, splitId, runtimeLabel, currentRuntime, runtimeBinaryIn, cacheName, cachedRuntimes, probeRuntime,
  resolveRuntime
}
