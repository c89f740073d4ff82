'use strict'
// Installs official Node binaries into the project's cache (.node-cache/v24.21.0/...) from the npm
// registry's node-<platform>-<arch> packages, with npm itself. Run through
// `./run_benchmark.sh node install 24 26`; the sweep calls it for a --node version not yet cached.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { CACHE_DIR, binaryIn, probeNode, findCached, newestFirst } = require('./node-versions')

const PACKAGE = `node-${process.platform}-${process.arch}`
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
 * The newest version of the binary package matching a range, as the registry says.
 * @param {string} range a major (24) or a full version (v24.21.0)
 * @param {{ npm?: string }} [how]
 * @returns {string} e.g. v24.21.0
 * @throws {Error} when the registry cannot be reached or has no such version
 */
function newestInRegistry (range, { npm = 'npm' } = {}) {
  const spec = `${PACKAGE}@${range.replace(/^v/, '')}`
  const out = runNpm(npm, ['view', '--json', spec, 'version'], spec, 60000).trim()
  const found = out === '' ? [] : [].concat(JSON.parse(out))
  if (found.length === 0) throw new Error(`the npm registry has no ${spec}`)
  return found.map((v) => `v${v}`).sort(newestFirst)[0]
}

/**
 * Installs the newest Node matching a range into the cache, unless that version is there.
 * @param {string} range a major (24) or a full version (v24.21.0)
 * @param {{ cacheDir?: string, npm?: string, notify?: (line: string) => void }} [how]
 * @returns {{ version: string, path: string, installed: boolean }}
 * @throws {Error} when npm fails or the binary does not report the version asked for
 */
function installNode (range, { cacheDir = CACHE_DIR, npm = 'npm', notify = () => {} } = {}) {
  const version = newestInRegistry(range, { npm })
  const cached = findCached({ type: 'full', version }, cacheDir)
  if (cached) return { ...cached, installed: false }
  fs.mkdirSync(cacheDir, { recursive: true })
  // A stage of our own, renamed into place at the end: no one ever sees a half-installed version.
  const stage = fs.mkdtempSync(path.join(cacheDir, '.stage-'))
  fs.chmodSync(stage, 0o755)
  try {
    fs.writeFileSync(path.join(stage, 'package.json'), '{ "private": true }\n')
    const spec = `${PACKAGE}@${version.slice(1)}`
    notify(`installing ${spec} into ${path.join(cacheDir, version)}`)
    runNpm(npm, ['install', '--prefix', stage, '--no-save', '--no-package-lock', '--ignore-scripts', spec], spec)
    const probed = probeNode(binaryIn(stage))
    if (probed.node !== version) throw new Error(`the installed binary reports ${probed.node}, not ${version}`)
    const target = path.join(cacheDir, version)
    try {
      fs.renameSync(stage, target)
    } catch (err) {
      // Another process installed the same version meanwhile: theirs is as good as ours.
      if (!['ENOTEMPTY', 'EEXIST'].includes(err.code)) throw err
    }
    return { version, path: binaryIn(target), installed: true }
  } finally {
    fs.rmSync(stage, { recursive: true, force: true })
  }
}

module.exports = { installNode, newestInRegistry }
