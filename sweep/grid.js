'use strict'
// The grid of the sweep, quick and run commands: list-valued flags, the cells they span with each
// cell's config, the A/A cell's two variants (sweep/aa.js), and cell ids.

const crypto = require('node:crypto')
const { loadConfig, ConfigError, rule, refuse, checked, int, str, bool, oneOf } = require('../lib/config')
const { KINDS, KIND_NAMES, isMultiProcess, kindProblem } = require('../lib/kinds')
const { VALIDATORS, SUFFIXES, MOOT, CONFIG_KEYS, firstValues } = require('../lib/dimensions')
const { nodeSpec } = require('../lib/node-versions')
const { defaultAa, parseAa, aaCombos } = require('./aa')
const { takeLists, cross } = require('./lists')
const { schedule } = require('./schedule')
const { resolveNodes, resolveClientNode } = require('./nodes')
const { supportedLts } = require('../lib/node-lines')
const { checkFuse } = require('../storage')
const { placementProblem, hostsOption } = require('./placement')
const { MAX_INTERFERENCE } = require('../lib/interference')
const { MARGIN } = require('../report/intervals')
const { parseSlo } = require('../lib/slo')
const { HOST_OPTIONS } = require('../lib/ssh')
const { planRemote } = require('./hosts')

const kind = oneOf(...KIND_NAMES)

/** Flags every command that runs cells takes (validators, as lib/config.js's `extra`). */
const RUN_OPTIONS = {
  rounds: int(1, 1000),
  repeats: () => refuse('is now --rounds (rounds hold every cell once)'),
  seed: int(0, 2 ** 32 - 1),
  results: str,
  readyTimeout: int(1),
  keepData: bool,
  ...HOST_OPTIONS
}
const RUN_DEFAULTS = { readyTimeout: 15000, keepData: false, hosts: 'local' } // and a random seed
// A duration: seconds, or a number with s, m or h.
const duration = rule('a duration above 0 such as 90, 90s, 2m or 1.5h', (v) => {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(String(v))
  return m && Number(m[1]) > 0 ? Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] ?? 's'] : undefined
})
const share = (low, high) => rule(`a number above ${low} and at most ${high}`, (v) => {
  const n = Number(v)
  return String(v).trim() !== '' && Number.isFinite(n) && n > low && n <= high ? n : undefined
})
// The interleaved commands' own flags (sweep/rounds.js, sweep/passes.js).
const ROUND_OPTIONS = {
  maxRounds: int(1, 10000),
  budget: duration,
  margin: share(0, 1),
  maxInterference: share(0, 1),
  window: int(1, 1000000),
  passes: int(1, 1000),
  warmOps: int(0),
  restartEvery: int(0)
}
// The capacity command's own flags (sweep/capacity/).
const RATES = 'a comma list of rates in requests per second (whole numbers above 0)'
const rateList = Object.assign((v) => String(v).split(',').map((part, k, parts) => {
  if (!/^\d+$/.test(part) || Number(part) < 1) refuse(`must be ${RATES}${parts.length > 1 ? `, got ${JSON.stringify(part)} in it` : ''}`)
  return Number(part)
}), { takes: RATES })
const CAPACITY_OPTIONS = { slo: parseSlo, precision: share(0, 1), startRate: int(1, 1000000), endRate: int(1, 1000000), probe: int(1, 60), rates: rateList }
const SWEEP_OPTIONS = { ...RUN_OPTIONS, ...ROUND_OPTIONS, ...CAPACITY_OPTIONS, cellTimeout: int(1), aa: parseAa, clientNode: nodeSpec, hosts: hostsOption }
const CELL_TIMEOUT_MS = 300000
// The list flags: one per dimension of lib/dimensions.js.
const SWEEP_LISTS = VALIDATORS
// The FUSE slice quick adds: sync and async in one process, at a plain folder and 1 ms storage.
const QUICK_SLICE = { kinds: ['sync', 'async'], nServers: [1], nClients: [2], ioDelay: ['off', 1000] }
// A sync server handles one request at a time per process: no two PUTs can share a flush.
const hasCell = (combo) => combo.fsync !== 'group' || KINDS[combo.kind].store === 'async'

// Defaults per command; the flags go before the user's, so the user's win. The interleaved commands
// (all but run) keep every cell's server up, warm it up (warmOps per serving process) and measure it
// in windows, round after round (sweep/rounds.js); 6 rounds are the fewest whose interval reaches 95%
// (report/intervals.js), and rounds are added until the intervals are narrow or the budget (s) is
// spent. The client's own warm-up is one operation per process after creating the files; idle
// connections between a cell's windows are kept. quick's A/A cell is its cheapest, sync in one process.
const BASE_KINDS = ['sync', 'async', 'sync-cluster', 'async-cluster']
const ROUNDS = { maxInterference: MAX_INTERFERENCE, margin: MARGIN, maxRounds: 100, warmOps: 5000, restartEvery: 0 }
const INTERLEAVED_FLAGS = ['--warmup=1', '--keepAliveTimeout=3600000']
const PRESETS = {
  sweep: { lists: { kinds: KIND_NAMES, nServers: [1, 2, 4], nClients: [1, 2, 4, 8] }, flags: INTERLEAVED_FLAGS, aa: defaultAa,
    rounds: { ...ROUNDS, rounds: 6, budget: 1800, window: 200, passes: 5 } },
  quick: { lists: { kinds: BASE_KINDS, nServers: [2], nClients: [2] }, flags: [...INTERLEAVED_FLAGS, '--concurrency=2'],
    aa: () => ({ kind: 'sync', nServers: 1, nClients: 2 }), slice: QUICK_SLICE,
    rounds: { ...ROUNDS, rounds: 6, budget: 110, window: 200, passes: 8 } },
  run: { lists: {}, flags: [], aa: () => null, rounds: { rounds: 1 } },
  // Capacity (sweep/capacity/): the 4 base kinds at a plain folder and 1 ms storage, each on a fresh
  // server per round, 2 client processes × 16 connections in the open loop.
  capacity: { lists: { kinds: BASE_KINDS, nServers: [2], nClients: [2] }, flags: ['--warmup=1000', '--concurrency=16'], aa: () => null,
    slice: { ioDelay: ['off', 1000] },
    rounds: { rounds: 6, budget: 600, slo: parseSlo('p99:20ms'), precision: 0.05, startRate: 100, endRate: 20000, probe: 1, rates: [] } },
  // The version table: each store in one process on the system Node and every supported LTS line.
  versions: { lists: { kinds: ['sync', 'async'], nServers: [1], nClients: [4] }, flags: INTERLEAVED_FLAGS, aa: () => null,
    node: () => ['system', ...supportedLts().map(String)], rounds: { ...ROUNDS, rounds: 8, budget: 600, window: 200, passes: 6 } }
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
  return { ...RUN_DEFAULTS, seed: crypto.randomInt(2 ** 32), ...defaults, ...given }
}

/**
 * The id of a cell, e.g. sync-cluster-s2-c4, plus -uv8, -sp-none, -rpw4, -v1024, -d1000, -qd64,
 * -api-callback, -iou1, -fs-each, -node-v24.21.0 for optional dimensions given (none for a moot
 * one), plus -A or -B for a variant of the A/A cell.
 * @param {object} cell kind, nServers, nClients, the optional dimensions' values, and variant if any
 * @param {string[]} optional names of the optional dimensions that are given
 * @returns {string}
 */
function cellId (cell, optional) {
  const suffixes = optional.filter((d) => cell[d] !== '').map((d) => `${SUFFIXES[d]}${cell[d]}`)
  return [`${cell.kind}-s${cell.nServers}-c${cell.nClients}`, ...suffixes, ...(cell.variant ? [cell.variant] : [])].join('-')
}

function runKindOf (name) {
  return checked('run KIND: KIND', kind, name)
}

/** `value` repeated or cut to `bytes` bytes, so payload size can vary while its text stays alike. */
function sizedValue (value, bytes) {
  return value.repeat(Math.ceil(bytes / value.length)).slice(0, bytes)
}

/**
 * The preset's storage-latency slice, unless the user chose the kinds or the delays; when FUSE
 * cannot be used here, no slice and a note saying why.
 * @returns {{ slice: object|null, notes: string[] }}
 */
function planSlice ({ slice }, lists, serverHost) {
  // A slice of named kinds gives way to --kinds; every slice to --ioDelay.
  if (!slice || lists.ioDelay || (lists.kinds && slice.kinds)) return { slice: null, notes: [] }
  const why = serverHost ? `the storage layer is mounted on this machine, and the server runs on ${serverHost.text}` : checkFuse()
  const which = `${slice.kinds ? `${slice.kinds.join(' and ')} ` : ''}at ioDelay ${slice.ioDelay.join(', ')}`
  if (why) return { slice: null, notes: [`skipped the storage-latency slice (${which}): ${why}`] }
  return { slice, notes: [] }
}

/**
 * Plans the sweep, quick, versions or run command.
 * @param {'sweep'|'quick'|'versions'|'run'} command
 * @param {string[]} argv the flags
 * @param {string} [runKind] the KIND of `run KIND`
 * @returns {object} command, config, options, grid, notes (lines for the user) and runs (the schedule)
 * @throws {ConfigError} for a bad flag or value
 */
function planSweep (command, argv, runKind) {
  const preset = PRESETS[command]
  const { lists, rest } = takeLists(argv, SWEEP_LISTS)
  const flags = [...COMMON_FLAGS, ...preset.flags, ...rest]
  const { config, options: given } = loadConfig(flags, SWEEP_OPTIONS)
  const stray = command === 'run' && Object.keys(ROUND_OPTIONS).find((key) => given[key] !== undefined)
  if (stray) throw new ConfigError(`--${stray} is for the interleaved commands (sweep, quick, versions); run measures one cell once per --rounds`)
  const notCapacity = command === 'capacity' && [...Object.keys(ROUND_OPTIONS), 'aa'].find((key) => key !== 'budget' && given[key] !== undefined)
  if (notCapacity) {
    throw new ConfigError(`--${notCapacity} is for sweep, quick and versions; ` +
      'capacity searches each cell with probes (--slo, --precision, --startRate, --endRate, --probe, --rates)')
  }
  const capacityFlag = command !== 'capacity' && Object.keys(CAPACITY_OPTIONS).find((key) => given[key] !== undefined)
  if (capacityFlag) throw new ConfigError(`--${capacityFlag} is for the capacity command`)
  if (command === 'capacity') {
    const { startRate = preset.rounds.startRate, endRate = preset.rounds.endRate } = given
    if (startRate > endRate) throw new ConfigError(`--startRate=${startRate} is above --endRate=${endRate}`)
    if (given.hosts !== undefined && given.hosts !== 'local') throw new ConfigError('--hosts: capacity runs its servers on this host')
  }
  const options = runOptions(given, { ...preset.rounds, cellTimeout: CELL_TIMEOUT_MS, aa: preset.aa(), command })
  const nodes = resolveNodes(lists.node ?? preset.node?.())
  options.clientNode = resolveClientNode(options.clientNode)
  const grid = {
    ...firstValues(config),
    kinds: runKind === undefined ? KIND_NAMES : [runKindOf(runKind)],
    ...preset.lists,
    ...lists,
    node: nodes.map((n) => n.node),
    rounds: options.rounds,
    aa: options.aa
  }
  const dims = (g) => Object.keys(SWEEP_LISTS).map((d) => [d === 'kinds' ? 'kind' : d, g[d]])
  // A balanced kind asked for by name needs HAProxy; one in a preset's list is left out, saying why.
  const asked = (lists.kinds || runKind !== undefined) && grid.kinds.find((k) => KINDS[k].model === 'lb')
  const noHaproxy = asked && kindProblem(asked)
  if (noHaproxy) throw new ConfigError(`${asked}: ${noHaproxy}`)
  const placement = placementProblem({ hosts: options.hosts, rtts: grid.rtt, cpusets: grid.cpuset })
  if (placement) throw new ConfigError(placement)
  const { slice, notes } = planSlice(preset, lists, options.serverHost)
  const optional = Object.keys(SUFFIXES).filter((d) => lists[d] || slice?.[d] || (d === 'node' && preset.node))
  const combos = [...cross(dims(grid)), ...(slice ? cross(dims({ ...grid, ...slice })) : [])]
  const base = Object.fromEntries(Object.keys(SUFFIXES).map((d) => [d, grid[d][0]]))
  const cells = new Map()
  const cannot = new Map() // kind and Node that cannot go together → why
  for (const combo of [...combos, ...(options.aa ? aaCombos(options.aa, base) : [])]) {
    if (!hasCell(combo)) continue
    if (!isMultiProcess(combo.kind)) combo.nServers = 1
    for (const [d, moot] of Object.entries(MOOT)) if (moot(combo)) combo[d] = ''
    const id = cellId(combo, optional)
    if (cells.has(id)) continue
    const problem = kindProblem(combo.kind, { version: combo.node })
    if (problem) {
      cannot.set(KINDS[combo.kind].model === 'lb' ? combo.kind : `${combo.kind} on Node ${combo.node}`, problem)
      continue
    }
    const value = lists.valueBytes ? sizedValue(config.value, combo.valueBytes) : config.value
    // The config keys among the dimensions reach the server as its config (a moot one as the default).
    const cellFlags = [...CONFIG_KEYS.map((key) => `--${key}=${combo[key] === '' ? config[key] : combo[key]}`), `--value=${value}`]
    try {
      const node = nodes.find((n) => n.node === combo.node)
      cells.set(id, { ...combo, id, nodeBin: node.path, v8: node.v8, uv: node.uv, config: loadConfig([...flags, ...cellFlags], SWEEP_OPTIONS).config })
    } catch (err) {
      throw new ConfigError(`cell ${id}: ${err.message}`)
    }
  }
  const skipped = [...cannot].map(([what, why]) => `${what}: ${why}`)
  if (cells.size === 0) {
    throw new ConfigError(skipped.length > 0 ? `nothing to run: ${skipped.join('; ')}` : 'no cell to run: fsync=group needs an async kind')
  }
  for (const line of skipped) process.stderr.write(`skipped ${line}\n`)
  const remote = planRemote(options, { cells: [...cells.values()], serverHostname: config.serverHostname, clientVersion: options.clientNode.node })
  const why = [...cells.values()].some((c) => c.ioDelay !== 'off') && checkFuse()
  if (why) throw new ConfigError(`--ioDelay needs the FUSE storage layer: ${why}`)
  const interleaved = command !== 'run'
  return { command, config, options, grid, notes, remote, envExtra: { nodes, skipped, ...(remote && { hosts: remote.checked }) },
    ...(interleaved ? { cells: [...cells.values()] } : { runs: schedule([...cells.values()], options.rounds, options.seed) }) }
}

module.exports = {
  planSweep, runOptions, cellId, sizedValue, KIND_NAMES, SWEEP_LISTS, RUN_OPTIONS, ROUND_OPTIONS, COMMON_FLAGS, BASE_KINDS,
  SWEEP_OPTIONS, RUN_DEFAULTS, CELL_TIMEOUT_MS, PRESETS
}
