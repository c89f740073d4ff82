'use strict'
// The grid of the sweep, quick and run commands: list-valued flags, the cells they span with each
// cell's config, the A/A cell's two variants (sweep/aa.js), and cell ids.

const crypto = require('node:crypto')
const { loadConfig, ConfigError, SCHEMA, int, str, bool } = require('../lib/config')
const { KINDS } = require('../servers/lib/launch')
const { uvThreadpoolSize, schedPolicy } = require('../lib/env')
const { defaultAa, parseAa, aaCombos } = require('./aa')
const { takeLists, cross } = require('./lists')
const { schedule } = require('./schedule')

const KIND_NAMES = Object.keys(KINDS)
const kind = (v) => {
  if (!KIND_NAMES.includes(v)) throw `must be one of ${KIND_NAMES.join(', ')}`
  return v
}

/** Flags every command that runs cells takes (validators, as lib/config.js's `extra`). */
const RUN_OPTIONS = {
  repeats: int(1, 1000),
  seed: int(0, 2 ** 32 - 1),
  results: str,
  readyTimeout: int(1),
  keepData: bool
}
const SWEEP_OPTIONS = { ...RUN_OPTIONS, cellTimeout: int(1), aa: parseAa }
const SWEEP_LISTS = {
  kinds: kind,
  nServers: SCHEMA.nServers,
  nClients: SCHEMA.nClients,
  uvThreadpoolSize: int(1, 1024),
  schedPolicy: (v) => { if (v !== 'rr' && v !== 'none') throw 'must be rr or none'; return v },
  readsPerWrite: SCHEMA.readsPerWrite,
  valueBytes: int(1),
  fsync: SCHEMA.fsync
}
// The optional dimensions, and the suffix they add to a cell id when they are given.
const SUFFIXES = { uvThreadpoolSize: 'uv', schedPolicy: 'sp-', readsPerWrite: 'rpw', valueBytes: 'v', fsync: 'fs-' }
// A sync server handles one request at a time per process: no two PUTs can share a flush.
const hasCell = (combo) => combo.fsync !== 'group' || combo.kind.startsWith('async')

// Defaults per command; the flags go before the user's, so the user's win.
const PRESETS = {
  sweep: { lists: { kinds: KIND_NAMES, nServers: [1, 2, 4], nClients: [1, 2, 4, 8] }, repeats: 3, flags: ['--nOperations=10000'], aa: defaultAa },
  quick: { lists: { kinds: KIND_NAMES, nServers: [2], nClients: [1, 4] }, repeats: 2, flags: ['--nOperations=3000'], aa: () => null },
  run: { lists: {}, repeats: 1, flags: [], aa: () => null }
}
// A free port for every server, unless the user names one.
const COMMON_FLAGS = ['--serverPort=0']

/**
 * The options of a command that runs cells: its defaults, then the flags given.
 * @param {object} given options from the flags
 * @param {object} defaults the command's own defaults
 * @returns {object}
 */
function runOptions (given, defaults) {
  return { readyTimeout: 15000, keepData: false, seed: crypto.randomInt(2 ** 32), ...defaults, ...given }
}

/**
 * The id of a cell, e.g. sync-cluster-s2-c4, plus -uv8, -sp-none, -rpw4, -v1024 for optional
 * dimensions given, plus -A or -B for a variant of the A/A cell.
 * @param {object} cell kind, nServers, nClients, the optional dimensions' values, and variant if any
 * @param {string[]} optional names of the optional dimensions that are given
 * @returns {string}
 */
function cellId (cell, optional) {
  const suffixes = optional.map((d) => `${SUFFIXES[d]}${cell[d]}`)
  return [`${cell.kind}-s${cell.nServers}-c${cell.nClients}`, ...suffixes, ...(cell.variant ? [cell.variant] : [])].join('-')
}

function runKindOf (name) {
  try {
    return kind(name)
  } catch (why) {
    throw new ConfigError(`run KIND: KIND ${why}, got ${JSON.stringify(name)}`)
  }
}

/** `value` repeated or cut to `bytes` bytes, so payload size can vary while its text stays alike. */
function sizedValue (value, bytes) {
  return value.repeat(Math.ceil(bytes / value.length)).slice(0, bytes)
}

/**
 * Plans the sweep, quick or run command.
 * @param {'sweep'|'quick'|'run'} command
 * @param {string[]} argv the flags
 * @param {string} [runKind] the KIND of `run KIND`
 * @returns {object} command, config, options, grid and runs (the schedule)
 * @throws {ConfigError} for a bad flag or value
 */
function planSweep (command, argv, runKind) {
  const preset = PRESETS[command]
  const { lists, rest } = takeLists(argv, SWEEP_LISTS)
  const flags = [...COMMON_FLAGS, ...preset.flags, ...rest]
  const { config, options: given } = loadConfig(flags, SWEEP_OPTIONS)
  const options = runOptions(given, { repeats: preset.repeats, cellTimeout: 300000, aa: preset.aa() })
  const grid = {
    kinds: runKind === undefined ? KIND_NAMES : [runKindOf(runKind)],
    nServers: [config.nServers],
    nClients: [config.nClients],
    uvThreadpoolSize: [uvThreadpoolSize()],
    schedPolicy: [schedPolicy()],
    readsPerWrite: [config.readsPerWrite],
    valueBytes: [Buffer.byteLength(config.value)],
    fsync: [config.fsync],
    ...preset.lists,
    ...lists,
    repeats: options.repeats,
    aa: options.aa
  }
  const optional = Object.keys(SUFFIXES).filter((d) => lists[d])
  const combos = cross(Object.keys(SWEEP_LISTS).map((d) => [d === 'kinds' ? 'kind' : d, grid[d]]))
  const base = Object.fromEntries(Object.keys(SUFFIXES).map((d) => [d, grid[d][0]]))
  const cells = new Map()
  for (const combo of [...combos, ...(options.aa ? aaCombos(options.aa, base) : [])]) {
    if (!hasCell(combo)) continue
    if (!KINDS[combo.kind].cluster) combo.nServers = 1
    const id = cellId(combo, optional)
    if (cells.has(id)) continue
    const value = lists.valueBytes ? sizedValue(config.value, combo.valueBytes) : config.value
    const cellFlags = [`--nServers=${combo.nServers}`, `--nClients=${combo.nClients}`, `--readsPerWrite=${combo.readsPerWrite}`, `--value=${value}`, `--fsync=${combo.fsync}`]
    try {
      cells.set(id, { ...combo, id, config: loadConfig([...flags, ...cellFlags], SWEEP_OPTIONS).config })
    } catch (err) {
      throw new ConfigError(`cell ${id}: ${err.message}`)
    }
  }
  if (cells.size === 0) throw new ConfigError('no cell to run: fsync=group needs an async kind')
  return { command, config, options, grid, runs: schedule([...cells.values()], options.repeats, options.seed) }
}

module.exports = { planSweep, runOptions, cellId, sizedValue, KIND_NAMES, SWEEP_LISTS, RUN_OPTIONS, COMMON_FLAGS }
