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

/** What a validator throws when it refuses a value: "must be ..." (the caller adds key and value). */
class ValueError extends Error {}

/**
 * A validator: returns the value accept gives, or throws a ValueError "must be <takes>" when accept
 * gives undefined (or refuses through a validator it calls). --help prints `takes` (lib/entry-help.js),
 * so what a key takes is written once, here.
 * @param {string} takes what it accepts, e.g. 'an integer from 1 to 256'
 * @param {(v: any) => any} accept the value, or undefined to refuse
 * @returns {((v: any) => any) & { takes: string }}
 */
function rule (takes, accept) {
  return Object.assign((v) => {
    let out
    try {
      out = accept(v)
    } catch (err) {
      if (!(err instanceof ValueError)) throw err
    }
    if (out === undefined) throw new ValueError(`must be ${takes}`)
    return out
  }, { takes })
}

/** Throws a ValueError saying why (for validators with more to say than what they take). */
function refuse (why) {
  throw new ValueError(why)
}

/**
 * The value validate accepts; a refusal becomes a ConfigError "<name> <why>, got <value><more>".
 * @throws {ConfigError}
 */
function checked (name, validate, value, more = '') {
  try {
    return validate(value)
  } catch (err) {
    if (!(err instanceof ValueError)) throw err
    fail(name, err.message, value, more)
  }
}

const int = (min, max = Number.MAX_SAFE_INTEGER) => rule(max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`, (v) => {
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v
  return Number.isInteger(n) && n >= min && n <= max ? n : undefined
})
const str = rule('a string', (v) => (typeof v === 'string' ? v : undefined))
const text = (takes) => rule(takes, (v) => (typeof v === 'string' && v !== '' ? v : undefined))
const oneOf = (...values) => rule(`one of ${values.join(', ')}`, (v) => (values.includes(v) ? v : undefined))
const bool = rule('true or false', (v) => (v === true || v === 'true' ? true : v === false || v === 'false' ? false : undefined))

// The async kinds' fs APIs (servers/lib/store.js has a store of each; lib/entry-help.js says what each does).
const ASYNC_APIS = ['callback', 'promises', 'promisify', 'filehandle', 'handle', 'stream', 'read']

/** The validator of every config key (see rule). */
const SCHEMA = {
  dataPath: text('a non-empty path'),
  readsPerWrite: rule('an integer from 0 to 1000000, or inf', (v) => (v === 'inf' ? v : int(0, 1e6)(v))),
  value: rule('non-empty text without a newline', (v) => (typeof v === 'string' && v !== '' && !/[\r\n]/.test(v) ? v : undefined)),
  sortSplitString: str,
  getBody: oneOf('sorted', 'bytes'),
  asyncApi: oneOf(...ASYNC_APIS),
  framework: oneOf('express', 'http'),
  fsync: oneOf('none', 'each', 'group'),
  nFiles: int(1, 100000),
  fileBytes: int(0, 64 * 1024 * 1024),
  nOperations: int(1),
  nServers: rule('an integer from 1 to 256, or auto', (v) => (v === 'auto' ? os.availableParallelism() : int(1, 256)(v))),
  nClients: int(1, 256),
  serverHostname: text('a host name'),
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
  serverStats: rule('auto, true or false', (v) => (v === 'auto' ? v : bool(v)))
}

function fail (key, why, value, more = '') {
  throw new ConfigError(`${key} ${why}, got ${JSON.stringify(value)}${more}`)
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
    const bare = /^--([A-Za-z][\w-]*)$/.exec(arg) // a true-or-false flag alone means true: --profile
    const m = bare && [SCHEMA[bare[1]], extra[bare[1]]].includes(bool) ? [arg, bare[1], 'true'] : /^--([A-Za-z][\w-]*)=(.*)$/s.exec(arg)
    if (!m) throw new ConfigError(`bad argument ${JSON.stringify(arg)}: use --KEY=VALUE; valid keys: ${validKeys(extra)}`)
    const [, key, value] = m
    if (key === 'config') {
      const file = path.resolve(value)
      layers.push({ values: readJson(file), base: path.dirname(file) })
    } else if (Object.hasOwn(SCHEMA, key)) {
      flags[key] = value
    } else if (Object.hasOwn(extra, key)) {
      options[key] = checked(`--${key}`, extra[key], value)
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
    config[key] = checked(key, validate, raw[key])
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

module.exports = { loadConfig, runMain, ConfigError, ValueError, SCHEMA, ASYNC_APIS, ROOT, rule, refuse, checked, int, str, text, bool, oneOf }
