'use strict'
// --help of every entry point, written from the validator tables the loader checks: each key with
// its default, its meaning, and what its validator takes. A key without a line of help (or a line
// without a key) throws, so that the text cannot fall behind the tables.

const fs = require('node:fs')
const path = require('node:path')
const { SCHEMA, ROOT } = require('./config')

/** What each config key (lib/config.js SCHEMA) means, one line each. */
const CONFIG_HELP = {
  dataPath: 'folder of the data files, created if missing; relative to the config file that sets it, or to the current folder',
  readsPerWrite: 'GETs per POST: 0 = writes only, inf = reads only (1 = 50/50, 4 = 80/20)',
  value: 'text of each POST (no newline; the client adds a record tag)',
  sortSplitString: 'what a GET splits the file on before sorting the pieces ("" = every character)',
  getBody: 'what the client\'s GETs ask for: sorted (GET /get, the file split on sortSplitString, sorted, joined) or bytes (GET /file, the file as it is)',
  asyncApi: 'fs API of the async kinds: callback (fs.readFile), promises (fs.promises.readFile), promisify (util.promisify(fs.readFile)), ' +
    'filehandle (fs.promises.open, stat, readFile, close: a FileHandle per request), handle (descriptors kept open per key, one read() or ' +
    'write() per request), stream (fs.createReadStream piped to the answer), read (open, fstat, fs.read into a reused buffer, close); ' +
    'a PUT is the callback API\'s in promises, promisify, stream and read',
  framework: 'the app every kind serves: express (servers/lib/app.js) or http (the same routes, answers and checks on plain node:http)',
  fsync: 'durability of a PUT: none (acknowledged once in the page cache), each (fdatasync before the answer), ' +
    'group (one fdatasync for the PUTs that arrived meanwhile; async kinds only)',
  nFiles: 'data files the client uses',
  fileBytes: 'bytes each data file holds before the server starts, written by run_benchmark.sh (--storage=cold sets 16384); 0 = the client creates them empty',
  nOperations: 'measured operations in all, over every client process',
  nServers: 'workers of a cluster kind; auto = the CPU count',
  nClients: 'client processes',
  serverHostname: 'where the servers listen and the client connects',
  serverPort: 'their port; 0 = a free one (a server prints it in its ready line)',
  bodyLimit: 'largest POST body a server takes, in bytes (413 above)',
  headersTimeout: 'ms a server waits for a request\'s headers (408 after)',
  requestTimeout: 'ms a server waits for a whole request (408 after)',
  keepAliveTimeout: 'ms a server keeps an idle keep-alive connection',
  maxHeaderSize: 'bytes of request headers a server takes (431 above)',
  warmup: 'unrecorded warm-up operations per client process (0 = none)',
  concurrency: 'requests in flight (= connections) per client process',
  rate: '0 = closed loop; above 0 = open loop at this many operations/s in all',
  timeout: 'ms a client request may take before its connection is dropped',
  verify: 'after a run, check the data files hold every acknowledged write exactly once (same machine only); ' +
    'in a read-only run, also check each GET\'s length and a sample of its bodies against the files',
  serverStats: 'the server\'s telemetry (/_stats): auto = ask only a server whose answers announce it (X-Bench-Stats), true = always, false = never'
}

/** True when the arguments ask for help (--help or -h anywhere). */
function wantsHelp (argv) {
  return argv.some((arg) => arg === '--help' || arg === '-h')
}

// What a validator takes (lib/config.js rule), if it says.
const takes = (validate) => validate.takes ?? null

const shown = (value) => typeof value === 'string' && value !== '' ? value : JSON.stringify(value)

/**
 * One section of a help text: each key of a validator table, its default, its meaning and what
 * it takes.
 * @param {string} title
 * @param {object} validators the table the loader checks (SCHEMA, an entry point's own flags)
 * @param {object} help one line per key of validators, no more, no fewer
 * @param {object} defaults each key's default: a value, or a phrase saying where it comes from
 * @returns {string}
 * @throws {Error} naming a key without help or default, or help without a key
 */
function helpSection (title, validators, help, defaults) {
  const keys = Object.keys(validators)
  const stray = Object.keys(help).filter((key) => !Object.hasOwn(validators, key))
  const missing = keys.filter((key) => !Object.hasOwn(help, key) || !Object.hasOwn(defaults, key))
  if (stray.length + missing.length > 0) {
    throw new Error(`${title}: help and validators disagree: no help or default for ${missing.join(', ') || '-'}; help for no key ${stray.join(', ') || '-'}`)
  }
  const lines = keys.map((key) => {
    const accepted = takes(validators[key])
    return `  --${key} (default: ${shown(defaults[key])})\n      ${help[key]}${accepted === null ? '' : `; takes ${accepted}`}\n`
  })
  return `${title}\n${lines.join('')}`
}

/**
 * The config keys' section: every key of lib/config.js with its config.json default.
 * @returns {string}
 */
function configSection () {
  const defaults = JSON.parse(fs.readFileSync(path.join(ROOT, 'config.json'), 'utf8'))
  return helpSection('Config keys: defaults from config.json, then --config=FILE (a JSON object of them), then --KEY=VALUE',
    SCHEMA, CONFIG_HELP, defaults)
}

/**
 * The whole --help text of an entry point.
 * @param {{ usage: string, about: string, sections?: string[], config?: boolean }} parts usage: the
 *   command line after `Usage: `; about: what it does, its output and exit status; sections from
 *   helpSection; config: add the config keys' section (default true)
 * @returns {string}
 */
function entryHelp ({ usage, about, sections = [], config = true }) {
  return [`Usage: ${usage}\n\n${about}\n`, ...sections, ...(config ? [configSection()] : [])].join('\n')
}

module.exports = { CONFIG_HELP, wantsHelp, helpSection, entryHelp }
