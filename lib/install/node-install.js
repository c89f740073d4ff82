'use strict'
// Installs runtimes into the project's cache from their packages on the npm registry, with npm itself:
// official Node binaries (node-<platform>-<arch>: .node-cache/v24.21.0/...), Bun (@oven/bun-linux-x64:
// .node-cache/bun-1.4.5/...) and Deno (@deno/linux-x64-glibc: .node-cache/deno-2.9.6/...). Run through
// `./run_benchmark.sh node install 24 26 bun@1.4`; the sweep calls it for a runtime not yet cached.

const { execFileSync } = require('node:child_process')
const crypto = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')
const { CACHE_DIR, binaryIn, probeNode, newestFirst } = require('./node-versions')
const { RUNTIMES, cacheName, runtimeBinaryIn, probeRuntime } = require('./runtime-specs')
const { PLATFORM } = require('../platform')

const NPM_TIMEOUT_MS = 300000
// One try with a short wait: an unreachable registry should fail in seconds, not minutes.
const NPM_FLAGS = ['--fetch-retries=1', '--fetch-retry-mintimeout=1000', '--fetch-retry-maxtimeout=2000', '--fetch-timeout=30000',
  '--no-audit', '--no-fund', '--no-update-notifier']
// Set by a parent `npm test` or `npm run`: they would point this npm at the project, not the stage.
const PARENT_NPM_VARS = ['npm_config_prefix', 'npm_config_local_prefix', 'npm_config_global', 'npm_config_package_lock']

// Runs npm; a failure throws one line: no such version, no registry, or npm's own first words.
function runNpm (npm, args, spec, timeout = NPM_TIMEOUT_MS) {
  const env = { ...process.env }
  for (const name of PARENT_NPM_VARS) delete env[name]
  try {
    return execFileSync(npm, [...args, ...NPM_FLAGS], { env, timeout, stdio: ['ignore', 'pipe', 'pipe'] }).toString()
  } catch (err) {
    const text = err.stderr?.toString() || ''
    const code = /\b(E404|ETARGET|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH)\b/.exec(text)?.[1]
    if (code === 'E404' || code === 'ETARGET') throw new Error(`the npm registry has no ${spec} (${code})`)
    if (code) throw new Error(`cannot reach the npm registry (${code}) for ${spec}`)
    const first = text.split('\n').filter((l) => /error/i.test(l) && !/A complete log/.test(l)).slice(0, 2).join(' ')
    throw new Error(`npm ${args[0]} ${spec} failed: ${first.replace(/\s+/g, ' ').trim() || err.code || err.message}`)
  }
}

/**
 * The newest version of a runtime's package in a range, as the registry says.
 * @param {'node'|'bun'|'deno'} name
 * @param {string} range a major (24), a minor (1.4), a full version (v24.21.0), or '' for any
 * @param {{ npm?: string, registry?: string }} [how]
 * @returns {string} e.g. v24.21.0 for Node, 1.4.5 for Bun
 * @throws {Error} when the registry cannot be reached or has no such version
 */
function newestOf (name, range, { npm = 'npm', registry } = {}) {
  const spec = `${RUNTIMES[name].pkg}@${range.replace(/^v/, '') || '*'}`
  const out = runNpm(npm, ['view', '--json', spec, 'version', ...at(registry)], spec, 60000).trim()
  const found = out === '' ? [] : [].concat(JSON.parse(out))
  if (found.length === 0) throw new Error(`the npm registry has no ${spec}`)
  const newest = found.map((v) => `v${v}`).sort(newestFirst)[0]
  return name === 'node' ? newest : newest.slice(1)
}

/** The newest Node matching a range in the registry (a major or a full version), e.g. v24.21.0. */
const newestInRegistry = (range, how) => newestOf('node', range, how)

const at = (registry) => (registry ? [`--registry=${registry}`] : [])

/**
 * Installs the newest version of a runtime in a range into the cache, unless that version is there: the
 * package's tarball fetched with `npm pack`, its SHA-512 checked against the registry's integrity field,
 * unpacked where `npm install` would put it.
 * @param {'node'|'bun'|'deno'} name
 * @param {string} range as newestOf takes it
 * @param {{ cacheDir?: string, npm?: string, registry?: string, notify?: (line: string) => void }} [how]
 * @returns {{ version: string, path: string, installed: boolean }}
 * @throws {Error} when npm fails, the tarball is not what the registry says, or the binary does not report the version asked for
 */
function installRuntime (name, range, { cacheDir = CACHE_DIR, npm = 'npm', registry, notify = () => {} } = {}) {
  if (!RUNTIMES[name].pkg) throw new Error(`the npm registry has no ${RUNTIMES[name].title} package for ${PLATFORM} on ${process.arch}`)
  const version = newestOf(name, range, { npm, registry })
  const target = path.join(cacheDir, cacheName(name, version))
  const binary = (dir) => (name === 'node' ? binaryIn(dir) : runtimeBinaryIn(name, dir))
  if (fs.existsSync(binary(target))) return { version, path: binary(target), installed: false }
  fs.mkdirSync(cacheDir, { recursive: true })
  // A stage of our own, renamed into place at the end: no one ever sees a half-installed version.
  const stage = fs.mkdtempSync(path.join(cacheDir, '.stage-'))
  fs.chmodSync(stage, 0o755)
  try {
    const { pkg } = RUNTIMES[name]
    const spec = `${pkg}@${version.replace(/^v/, '')}`
    notify(`installing ${spec} into ${target}`)
    const integrity = JSON.parse(runNpm(npm, ['view', '--json', spec, 'dist.integrity', ...at(registry)], spec, 60000))
    const [packed] = JSON.parse(runNpm(npm, ['pack', '--json', '--pack-destination', stage, spec, ...at(registry)], spec))
    const tarball = path.join(stage, packed.filename)
    const [algorithm, expected] = String(integrity).split(/-(.*)/s)
    if (algorithm !== 'sha512') throw new Error(`the registry gives no sha512 integrity for ${spec}: ${JSON.stringify(integrity)}`)
    const got = crypto.createHash('sha512').update(fs.readFileSync(tarball)).digest('base64')
    if (got !== expected) throw new Error(`${packed.filename} does not match the registry's integrity (sha512-${got} is not ${integrity})`)
    const into = path.join(stage, 'node_modules', pkg)
    fs.mkdirSync(into, { recursive: true })
    execFileSync('tar', ['-xzf', tarball, '-C', into, '--strip-components=1', '--no-same-owner'], { stdio: ['ignore', 'ignore', 'pipe'] })
    fs.rmSync(tarball)
    const reported = name === 'node' ? probeNode(binary(stage)).node : probeRuntime(name, binary(stage)).version
    if (reported !== version) throw new Error(`the installed binary reports ${reported}, not ${version}`)
    try {
      fs.renameSync(stage, target)
    } catch (err) {
      // Another process installed the same version meanwhile: theirs is as good as ours.
      if (!['ENOTEMPTY', 'EEXIST'].includes(err.code)) throw err
    }
    return { version, path: binary(target), installed: true }
  } finally {
    fs.rmSync(stage, { recursive: true, force: true })
  }
}

/** Installs the newest Node matching a range (a major or a full version) into the cache: installRuntime('node', range). */
const installNode = (range, how) => installRuntime('node', range, how)

module.exports = { installNode, installRuntime, newestInRegistry }
