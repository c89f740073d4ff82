'use strict'
// The cells of a command that runs them (sweep, quick, versions, capacity, run): its preset's grid and
// the list flags crossed, each cell with its id (suffixes from lib/results/dimensions.js) and config, the A/A
// pair (sweep/plan/aa.js), the storage-latency slice, the Node binaries; checked whole before anything runs.

const { loadConfig, ConfigError, checked, oneOf } = require('../../lib/config')
const { KINDS, KIND_NAMES, isMultiProcess, kindProblem, fsyncProblem } = require('../../lib/kinds')
const { SUFFIXES, QUIET, MOOT, CONFIG_KEYS, VALIDATORS, firstValues, usesDelayLayer, valueLabel } = require('../../lib/results/dimensions')
const { aaCombos } = require('./aa')
const { takeLists, cross } = require('./lists')
const { planStorage, coldProblem } = require('./storage')
const { schedule } = require('./schedule')
const { resolveRuntimes, resolveClientNode } = require('./runtimes')
const { prepareRev, checkServers } = require('./revs')
const { checkFuse } = require('../../storage')
const { placementProblem } = require('../cell/placement')
const { planRemote } = require('../hosts/hosts')
const { hasProc, notLinuxLines, LINUX_ONLY } = require('../../lib/platform')
const { SWEEP_OPTIONS, SWEEP_LISTS, ROUND_OPTIONS, CAPACITY_OPTIONS, CELL_TIMEOUT_MS, COMMON_FLAGS, runOptions } = require('./options')

const kind = oneOf(...KIND_NAMES)

/**
 * The id of a cell, e.g. async-cluster-s2-c4, plus -uv8, -sp-none, -rpw4, -v1024, -d1000, -qd64,
 * -api-filehandle, -fw-http, -iou1, -fs-each, -rev-1a2b3c4 (another commit's servers), -node-v24.21.0 or -bun-1.4.5, -cpu-split, -rtt1 for optional dimensions
 * given, in that order (none for one moot for the cell: -api- for a sync kind, -qd for a plain folder,
 * -lb- for a kind without HAProxy), plus -A or -B for a variant of the A/A cell.
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
  // A slice of named kinds gives way to --kinds; every slice to --ioDelay, and to --rev (its budget goes to the revisions).
  if (!slice || lists.ioDelay || lists.rev || (lists.kinds && slice.kinds)) return { slice: null, notes: [] }
  const why = serverHost ? `the storage layer is mounted on this machine, and the server runs on ${serverHost.text}` : checkFuse()
  const which = `${slice.kinds ? `${slice.kinds.join(' and ')} ` : ''}at ioDelay ${slice.ioDelay.join(', ')}`
  if (why) return { slice: null, notes: [`skipped the storage-latency slice (${which}): ${why}`] }
  return { slice, notes: [] }
}

/**
 * Takes --node out of the lists: --node=24,26 is --runtime=node@24,node@26 (after any --runtime values).
 * @param {{ lists: object, rest: string[] }} taken from takeLists
 * @returns {{ lists: object, rest: string[] }}
 */
function takeRuntimes ({ lists: { node, ...lists }, rest }) {
  if (node) lists.runtime = [...new Set([...(lists.runtime ?? []), ...node.map((v) => `node@${v}`)])]
  return { lists, rest }
}

/** Refuses what only Node's servers can do: --profile (V8's inspector and perf maps) and a server on another host. */
function refuseRuntimes (runtimes, options) {
  const other = runtimes.find((r) => r.name !== 'node')
  if (!other) return
  if (options.profile) throw new ConfigError(`--profile profiles Node servers (V8's inspector and its perf map); ${other.id} is not Node`)
  if (options.serverHost) {
    throw new ConfigError(`--serverHost: a server on another host runs on that host's Node (its .node-cache/); ${other.id} is not Node`)
  }
}

/**
 * The --rev values as commits with worktrees (sweep/plan/revs.js), after the flags that cannot go with them are refused.
 * @returns {object[]} prepareRev's records, one per commit
 */
function planRevs (refs = [], preset, options) {
  if (options['fail-on'] && refs.length === 0) throw new ConfigError('--fail-on=slower judges this tree against --rev=REF: give --rev too')
  if (refs.length === 0) return []
  if (preset.measure !== 'rounds') throw new ConfigError(`--rev is for the commands of interleaved rounds (sweep, quick, ...), not ${preset.command}`)
  if (options.serverHost) throw new ConfigError('--rev: a server host runs the servers of its own checkout, not a worktree of this one')
  const revs = new Map(refs.map((ref) => prepareRev(ref)).map((rev) => [rev.sha, rev]))
  return [...revs.values()]
}

const PROFILE_KEYS = ['profile', 'profileRounds'] // run takes them too (sweep/cell/profiled.js)
// Refuses the flags a command does not take: each measures its cells one way (preset.measure).
function checkFlags ({ measure, rounds }, given) {
  const stray = measure === 'sequence' && Object.keys(ROUND_OPTIONS).find((key) => !PROFILE_KEYS.includes(key) && given[key] !== undefined)
  if (stray) throw new ConfigError(`--${stray} is for the interleaved commands (sweep, quick, versions); run measures one cell once per --rounds`)
  if (given.profileRounds !== undefined && !given.profile) {
    throw new ConfigError('--profileRounds is how many profiled rounds --profile adds: give --profile too')
  }
  if (given.profile && !hasProc()) throw new ConfigError(`--profile: ${LINUX_ONLY.profile}`)
  const notCapacity = measure === 'capacity' && [...Object.keys(ROUND_OPTIONS), 'aa'].find((key) => key !== 'budget' && given[key] !== undefined)
  if (notCapacity) {
    throw new ConfigError(`--${notCapacity} is for sweep, quick${PROFILE_KEYS.includes(notCapacity) ? ', versions and run' : ' and versions'}; ` +
      'capacity searches each cell with probes (--slo, --precision, --startRate, --endRate, --probe, --rates)')
  }
  const capacityFlag = measure !== 'capacity' && Object.keys(CAPACITY_OPTIONS).find((key) => given[key] !== undefined)
  if (capacityFlag) throw new ConfigError(`--${capacityFlag} is for the capacity command`)
  if (measure === 'capacity') {
    const { startRate = rounds.startRate, endRate = rounds.endRate } = given
    if (startRate > endRate) throw new ConfigError(`--startRate=${startRate} is above --endRate=${endRate}`)
    if (given.hosts !== undefined && given.hosts !== 'local') throw new ConfigError('--hosts: capacity runs its servers on this host')
  }
}

/**
 * Plans a command that runs cells from its preset (sweep/commands.js) and its flags.
 * @param {{ command: string, measure: 'rounds'|'capacity'|'sequence', lists: object, flags: string[], aa: Function,
 *   slice?: object, keep?: Function, node?: Function, rounds: object }} preset measure: interleaved rounds (sweep/interleaved/rounds.js),
 *   capacity searches (sweep/capacity/), or one run after another (run); keep(combo, lists): whether a combination of the grid
 *   is a cell, given the list flags the user gave (a preset thins its own grid)
 * @param {string[]} argv the flags
 * @param {string} [runKind] the KIND of `run KIND`
 * @returns {object} command, config, options, grid, notes (lines for the user), and cells (interleaved, capacity) or
 *   runs (the schedule of a sequence)
 * @throws {ConfigError} for a bad flag or value
 */
function planCells (preset, argv, runKind) {
  const { command } = preset
  const { lists, rest } = takeRuntimes(takeLists(argv, SWEEP_LISTS))
  const stored = planStorage({
    lists: { storage: preset.lists.storage, ...lists }, slice: preset.slice && !lists.ioDelay ? preset.slice : null, argv: rest, measure: preset.measure
  })
  const flags = [...COMMON_FLAGS, ...preset.flags, ...stored.flags, ...rest]
  const { config, options: given } = loadConfig(flags, SWEEP_OPTIONS)
  checkFlags(preset, given)
  // With --rev, the A/A pair only when asked: the revisions' comparisons calibrate as well (--rev=HEAD is an A/A).
  const options = runOptions(given, { ...preset.rounds, cellTimeout: CELL_TIMEOUT_MS, aa: lists.rev ? null : preset.aa(), command })
  const runtimes = resolveRuntimes(lists.runtime ?? preset.runtime?.())
  refuseRuntimes(runtimes, options)
  const revs = planRevs(lists.rev, preset, options)
  options.clientNode = resolveClientNode(options.clientNode)
  const grid = {
    ...firstValues(config),
    kinds: runKind === undefined ? KIND_NAMES : [runKindOf(runKind)],
    ...preset.lists,
    ...lists,
    storage: stored.storage,
    runtime: runtimes.map((r) => r.id),
    rev: ['', ...revs.map((r) => r.short)],
    rounds: options.rounds,
    aa: options.aa
  }
  const dims = (g) => Object.keys(VALIDATORS).map((d) => [d === 'kinds' ? 'kind' : d, g[d]])
  // A balanced kind asked for by name needs HAProxy; one in a preset's list is left out, saying why.
  const asked = (lists.kinds || runKind !== undefined) && grid.kinds.find((k) => KINDS[k].model === 'lb')
  const noHaproxy = asked && kindProblem(asked)
  if (noHaproxy) throw new ConfigError(`${asked}: ${noHaproxy}`)
  const placement = placementProblem({ hosts: options.hosts, rtts: grid.rtt, cpusets: grid.cpuset })
  if (placement) throw new ConfigError(placement)
  const { slice, notes } = planSlice(preset, lists, options.serverHost)
  const dropped = [!given.aa && preset.aa() && 'the A/A pair (--aa adds it)', preset.slice && !lists.ioDelay && 'the storage slice (--ioDelay adds it)']
  if (revs.length > 0 && dropped.some(Boolean)) notes.push(`--rev: this tree against each revision, without ${dropped.filter(Boolean).join(' or ')}`)
  const varied = (d) => new Set([...grid[d], ...(slice?.[d] ?? [])]).size > 1
  const optional = Object.keys(SUFFIXES).filter((d) => (lists[d] || slice?.[d] || preset.lists[d] || (d === 'runtime' && preset.runtime)) &&
    (!QUIET.includes(d) || varied(d)))
  const combos = [...cross(dims(grid)), ...(slice ? cross(dims({ ...grid, ...slice })) : [])]
  const base = Object.fromEntries(Object.keys(SUFFIXES).map((d) => [d, grid[d][0]]))
  const cells = new Map()
  const cannot = new Map() // kind and Node that cannot go together → why
  for (const combo of [...combos, ...(options.aa ? aaCombos(options.aa, base) : [])]) {
    if (fsyncProblem(combo.kind, combo.fsync)) continue
    if (!isMultiProcess(combo.kind)) combo.nServers = 1
    // The delay layer is storage=delay at a number of µs; cache and cold are a plain folder.
    if (combo.storage !== 'delay') combo.ioDelay = 'off'
    else if (combo.ioDelay === 'off') continue
    for (const [d, moot] of Object.entries(MOOT)) if (moot(combo)) combo[d] = ''
    if (preset.keep && !preset.keep(combo, lists)) continue
    const id = cellId(combo, optional)
    if (cells.has(id)) continue
    const runtime = runtimes.find((r) => r.id === combo.runtime)
    const problem = kindProblem(combo.kind, { version: runtime.node })
    if (problem) {
      cannot.set(KINDS[combo.kind].model === 'lb' ? combo.kind : `${combo.kind} on ${valueLabel('runtime', combo.runtime)}`, problem)
      continue
    }
    const value = lists.valueBytes ? sizedValue(config.value, combo.valueBytes) : config.value
    // The config keys among the dimensions reach the server as its config (a moot one as the default).
    const cellFlags = [...CONFIG_KEYS.map((key) => `--${key}=${combo[key] === '' ? config[key] : combo[key]}`), `--value=${value}`]
    try {
      const { path, args, v8, uv } = runtime
      const revDir = revs.find((r) => r.short === combo.rev)?.dir
      cells.set(id, { ...combo, id, runtimeBin: path, runtimeArgs: args, v8, uv, ...(revDir && { revDir }),
        config: loadConfig([...flags, ...cellFlags], SWEEP_OPTIONS).config })
    } catch (err) {
      throw new ConfigError(`cell ${id}: ${err.message}`)
    }
  }
  const kept = preset.measure === 'capacity' && [...cells.values()].find((c) => c.asyncApi === 'handle')
  if (kept) {
    throw new ConfigError(`cell ${kept.id}: capacity empties the data files between probes on a running server, and --asyncApi=handle ` +
      'keeps their descriptors open (its writes would go to the removed files): use callback or promise')
  }
  const skipped = [...cannot].map(([what, why]) => `${what}: ${why}`)
  if (cells.size === 0) {
    throw new ConfigError(skipped.length > 0 ? `nothing to run: ${skipped.join('; ')}` : 'no cell to run: fsync=group needs an async kind')
  }
  for (const line of skipped) process.stderr.write(`skipped ${line}\n`)
  for (const rev of revs) checkServers(rev, [...new Set([...cells.values()].map((c) => c.kind))])
  const remote = planRemote(options, { cells: [...cells.values()], serverHostname: config.serverHostname, clientVersion: options.clientNode.node })
  const why = [...cells.values()].some(usesDelayLayer) && checkFuse()
  if (why) throw new ConfigError(`--ioDelay needs the FUSE storage layer: ${why}`)
  // The smallest cold data set decides whether cold can run (--fileBytes may be a list).
  const [coldest] = [...cells.values()].filter((c) => c.storage === 'cold').map((c) => c.config)
    .sort((a, b) => a.nFiles * a.fileBytes - b.nFiles * b.fileBytes)
  const cold = coldest && coldProblem(coldest, options.serverHost)
  if (cold) throw new ConfigError(cold)
  const written = [...cells.values()].some((c) => c.config.fileBytes > 0)
  if (written && preset.measure === 'capacity') {
    throw new ConfigError('--fileBytes: capacity empties the data files before every probe, so its files start empty')
  }
  if (written && options.serverHost) {
    throw new ConfigError(`--fileBytes: the data set is written on this host; the server runs on ${options.serverHost.text}`)
  }
  const interleaved = preset.measure !== 'sequence'
  // What needs Linux here, said once (lib/platform.js): interference, and how a cluster shares its port.
  const multi = [...cells.values()].some((c) => isMultiProcess(c.kind))
  notes.push(...notLinuxLines([...(interleaved ? ['others'] : []), ...(multi ? ['ports'] : [])]))
  return { command, config, options, grid, notes, remote, envExtra: { runtimes, skipped, revs, ...(remote && { hosts: remote.checked }) },
    ...(interleaved ? { cells: [...cells.values()] } : { runs: schedule([...cells.values()], options.rounds, options.seed) }) }
}

module.exports = { planCells, cellId, sizedValue }
