'use strict'
// The one config loader shared by servers, client and sweep: defaults from config.json, then
// --config=FILE, then --KEY=VALUE flags. Every field is validated here, once.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const ROOT = path.resolve(__dirname, '..')
const DEFAULTS_FILE = path.join(ROOT, 'config.json')
const TAG_ROOM = 64 // bytes reserved for the client's record tag " RUNID:cP-I\n" (at most 32)

class ConfigError extends Error {}

const int = (min, max = Number.MAX_SAFE_INTEGER) => (v) => {
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v
  if (!Number.isInteger(n) || n < min || n > max) {
    throw `must be an integer ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`}`
  }
  return n
}
const str = (v) => {
  if (typeof v !== 'string') throw 'must be a string'
  return v
}
const oneOf = (...values) => (v) => {
  if (!values.includes(v)) throw `must be one of ${values.join(', ')}`
  return v
}
const bool = (v) => {
  if (v === true || v === 'true') return true
  if (v === false || v === 'false') return false
  throw 'must be true or false'
}

/** The validator of every config key. A validator returns the value or throws a phrase. */
const SCHEMA = {
  dataPath: (v) => { if (str(v) === '') throw 'must be a non-empty path'; return v },
  readsPerWrite: (v) => (v === 'inf' ? v : int(0, 1e6)(v)),
  value: (v) => {
    if (str(v) === '' || /[\r\n]/.test(v)) throw 'must be non-empty text without a newline'
    return v
  },
  sortSplitString: str,
  asyncApi: oneOf('callback', 'promise'),
  framework: oneOf('express', 'http'),
  fsync: oneOf('none', 'each', 'group'),
  nFiles: int(1, 100000),
  nOperations: int(1),
  nServers: (v) => (v === 'auto' ? os.availableParallelism() : int(1, 256)(v)),
  nClients: int(1, 256),
  serverHostname: (v) => { if (str(v) === '') throw 'must be a host name'; return v },
  serverPort: int(0, 65535),
  bodyLimit: int(TAG_ROOM + 1, 64 * 1024 * 1024),
  headersTimeout: int(1),
  requestTimeout: int(1),
  keepAliveTimeout: int(1),
  maxHeaderSize: int(1024, 1024 * 1024),
  warmup: int(0),
  concurrency: int(1, 1000),
  rate: int(0),
  timeout: int(1, 2 ** 31 - 1), // setTimeout's longest delay
  verify: bool,
  serverStats: (v) => { try { return v === 'auto' ? v : bool(v) } catch { throw 'must be auto, true or false' } }
}

function fail (key, why, value) {
  throw new ConfigError(`${key} ${why}, got ${JSON.stringify(value)}`)
}

function readJson (file) {
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${err.code || err.message}`)
  }
  try {
    const obj = JSON.parse(text)
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new Error('not an object')
    return obj
  } catch (err) {
    throw new ConfigError(`config file ${file} is not a JSON object: ${err.message}`)
  }
}

/**
 * Loads the configuration from config.json, --config=FILE and --KEY=VALUE flags.
 * @param {string[]} argv arguments after the script name
 * @param {object} [extra] validators of tool-specific flags (e.g. client's `out`), same form as SCHEMA
 * @returns {{ config: object, options: object }} validated config and the tool-specific flags
 * @throws {ConfigError} naming the field and the value
 */
function loadConfig (argv = [], extra = {}) {
  const layers = [{ values: readJson(DEFAULTS_FILE), base: ROOT }]
  const flags = {}
  const options = {}
  for (const arg of argv) {
    const m = /^--([A-Za-z][\w-]*)=(.*)$/s.exec(arg)
    if (!m) throw new ConfigError(`bad argument ${JSON.stringify(arg)}: use --KEY=VALUE; valid keys: ${validKeys(extra)}`)
    const [, key, value] = m
    if (key === 'config') {
      const file = path.resolve(value)
      layers.push({ values: readJson(file), base: path.dirname(file) })
    } else if (Object.hasOwn(SCHEMA, key)) {
      flags[key] = value
    } else if (Object.hasOwn(extra, key)) {
      try { options[key] = extra[key](value) } catch (why) { fail(`--${key}`, why, value) }
    } else {
      throw new ConfigError(`unknown flag --${key}; valid keys: ${validKeys(extra)}`)
    }
  }
  layers.push({ values: flags, base: process.cwd() })

  const raw = {}
  const base = {}
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer.values)) {
      if (!Object.hasOwn(SCHEMA, key)) throw new ConfigError(`unknown config key ${key}; valid keys: ${validKeys({})}`)
      raw[key] = value
      base[key] = layer.base
    }
  }
  const config = {}
  for (const [key, validate] of Object.entries(SCHEMA)) {
    try { config[key] = validate(raw[key]) } catch (why) { fail(key, why, raw[key]) }
  }
  config.dataPath = path.resolve(base.dataPath, config.dataPath)
  if (config.headersTimeout > config.requestTimeout) {
    fail('headersTimeout', `must not exceed requestTimeout (${config.requestTimeout})`, config.headersTimeout)
  }
  if (Buffer.byteLength(config.value) + TAG_ROOM > config.bodyLimit) {
    fail('value', `must be at most bodyLimit - ${TAG_ROOM} = ${config.bodyLimit - TAG_ROOM} bytes`, `${config.value.slice(0, 20)}...`)
  }
  return { config, options }
}

function validKeys (extra) {
  return ['config', ...Object.keys(SCHEMA), ...Object.keys(extra)].join(', ')
}

/**
 * Runs an entry point's main; a ConfigError ends the process with status 2 and one line.
 * @param {string} name program name for the message
 * @param {() => any} main
 */
function runMain (name, main) {
  try {
    return main()
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(`${name}: ${err.message}\n`)
    process.exit(2)
  }
}

module.exports = { loadConfig, runMain, ConfigError, SCHEMA, ROOT, int, str, bool, oneOf }
