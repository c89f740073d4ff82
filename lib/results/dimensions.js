'use strict'
// The one table of a cell's dimensions: the list flags of sweep, quick, versions, capacity and run.
// Each entry says, once, how the dimension is checked and shown in --help, its default, the suffix
// it adds to a cell id (and when it is moot), how it reaches the server, and its summary.csv column.
// sweep/plan/grid.js (plans, cell ids), sweep/help.js, sweep/cell/harness.js (the server's environment),
// sweep/cell/cell.js and sweep/capacity/run.js (the rows), report/data/read.js (the columns' types) and the
// report's sections derive from it. Adding a dimension is an entry here plus the code that makes it
// real (docs/ARCHITECTURE.md).

const { SCHEMA, rule, int, oneOf } = require('../config')
const { KINDS, KIND_NAMES } = require('../kinds')
const { uvThreadpoolSize, uvUseIoUring, schedPolicy } = require('./environment')
const { runtimeSpec, runtimeLabel } = require('../install/runtime-specs')

const MAX_IO_DELAY_US = 10000000
const IO_DEPTH = 64 // the delay layer's queue depth unless --ioDepth says otherwise

/** Whether a cell's storage is the FUSE delay layer (storage/): an ioDelay other than off (a plain folder). */
const usesDelayLayer = (cell) => ![undefined, null, '', 'off'].includes(cell.ioDelay)

/** The order of ioDelay values: off (a plain folder) first, then the delays in µs. */
function delayOrder (a, b) {
  return (a === 'off' ? -1 : Number(a)) - (b === 'off' ? -1 : Number(b))
}
const delayRule = rule(`off or an integer number of µs from 0 to ${MAX_IO_DELAY_US}`,
  (v) => (v === 'off' ? v : /^\d+$/.test(v) && Number(v) <= MAX_IO_DELAY_US ? Number(v) : undefined))
const MAX_RTT_MS = 1000
const BALANCE = ['roundrobin', 'leastconn']
const STORAGE = ['cache', 'cold', 'delay']

/**
 * One dimension of a cell: how its flag is checked and shown, its default, how it names and reaches a cell.
 * @typedef {object} Dimension
 * @property {(value: string) => any} validate a lib/config.js validator of one value
 * @property {string} [help] its --help line
 * @property {boolean} [config] it is a config key (lib/config.js SCHEMA) that reaches the server as --NAME=VALUE; its default is config's
 * @property {(config: object) => any} [first] the value when the flag is not given, unless config
 * @property {(config: object) => string} [shown] that default in --help
 * @property {string} [suffix] what it adds to a cell id before the value when given (e.g. iou, for -iou1)
 * @property {(cell: object) => boolean} [moot] it means nothing for that cell (its suffix is '' then)
 * @property {string} [env] the environment variable that carries it to the server (its shell value is also in env.json)
 * @property {(cell: object) => any} [row] its summary.csv value (default cell[name]), null when the run's figures write it
 * @property {string} [column] the column's name (default the dimension's)
 * @property {boolean} [text] the column is text, not a number
 * @property {boolean} [variant] cells that differ by it are told apart in the report
 * @property {(value: any) => string} [label] a value in the report's words
 * @property {number} [line] a crossover chart draws a line per value (report/stats/crossover.js); the order of such dimensions in its name
 * @property {string} [cellKey] the report's cells carry it under this name, and group by it apart from the variants
 *   (an async cell's fs API)
 * @property {boolean} [historic] its column is in every summary.csv since the first (the others may be missing in older ones)
 * @property {boolean} [quiet] its suffix only where a plan has two values or more (a config key that became a dimension: one
 *   value given names no cell differently than before)
 */

/**
 * Each dimension, in the order of the cross product (and of a cell id's suffixes).
 * @type {Record<string, Dimension>}
 */
const DIMENSIONS = {
  kinds: { validate: oneOf(...KIND_NAMES), help: 'server kinds', shown: () => 'all', first: () => KIND_NAMES, column: 'kind', historic: true },
  nServers: {
    validate: SCHEMA.nServers,
    config: true,
    help: 'workers of the multi-process kinds, cluster and reuseport, or backends of the -lb kinds (sync, async and sync-pool run one process)',
    shown: () => 'auto (the CPU count)',
    historic: true
  },
  nClients: { validate: SCHEMA.nClients, config: true, help: 'client processes', historic: true },
  uvThreadpoolSize: {
    validate: int(1, 1024),
    help: 'libuv thread pool of the server (reaches it as UV_THREADPOOL_SIZE)',
    first: () => uvThreadpoolSize(),
    suffix: 'uv',
    env: 'UV_THREADPOOL_SIZE',
    variant: true,
    line: 2,
    label: (v) => `pool ${v}`,
    historic: true
  },
  schedPolicy: {
    validate: rule('rr or none', (v) => (v === 'rr' || v === 'none' ? v : undefined)),
    help: 'how a cluster primary hands out connections: rr or none (NODE_CLUSTER_SCHED_POLICY)',
    first: () => schedPolicy(),
    suffix: 'sp-',
    env: 'NODE_CLUSTER_SCHED_POLICY',
    text: true,
    variant: true,
    historic: true
  },
  readsPerWrite: {
    validate: SCHEMA.readsPerWrite,
    config: true,
    help: 'GETs per POST (inf: reads only)',
    suffix: 'rpw',
    text: true,
    variant: true,
    historic: true
  },
  valueBytes: {
    validate: int(1),
    help: 'bytes of each POST\'s value (its text repeated or cut)',
    first: (config) => Buffer.byteLength(config.value),
    shown: (config) => `the length of value, ${Buffer.byteLength(config.value)}`,
    suffix: 'v',
    row: (cell) => Buffer.byteLength(cell.config.value),
    variant: true,
    historic: true
  },
  // The fs API comparison's (fsapi): each data file's size before the run, requests in flight per client process, and
  // what a GET answers (sorted text, or the file's bytes as read).
  fileBytes: {
    validate: SCHEMA.fileBytes,
    config: true,
    help: 'bytes each data file holds before the server starts (0: the client creates them empty)',
    suffix: 'fb',
    quiet: true,
    variant: true,
    label: (v) => (v >= 1048576 && v % 1048576 === 0 ? `${v / 1048576} MiB files` : v >= 1024 && v % 1024 === 0 ? `${v / 1024} KiB files` : `${v} B files`)
  },
  concurrency: {
    validate: SCHEMA.concurrency,
    config: true,
    help: 'requests in flight (= connections) per client process',
    suffix: 'cc',
    quiet: true,
    variant: true,
    label: (v) => `${v} in flight per client process`
  },
  getBody: {
    validate: SCHEMA.getBody,
    config: true,
    help: 'what a GET answers: sorted (GET /get, the file\'s text sorted) or bytes (GET /file, its bytes as read)',
    suffix: 'gb-',
    quiet: true,
    text: true,
    variant: true
  },
  // Storage latency (storage/): off is a plain folder, a number of µs a FUSE layer that waits so long.
  ioDelay: {
    validate: delayRule,
    help: 'storage latency in µs before every read, fsync and durable write (one in flight): off = a plain folder, ' +
      'a number = the FUSE delay layer (storage/)',
    first: () => 'off',
    suffix: 'd',
    moot: (cell) => cell.storage === 'cold', // the real disk, no layer
    text: true,
    variant: true
  },
  // The layer's latency with 4 or more calls in flight (linear from ioDelay's between): a device's queue, as fio measures it.
  ioDelayQd4: {
    validate: delayRule,
    help: 'the delay layer\'s latency in µs with 4 or more calls in flight, linear from --ioDelay\'s at 1 (off: --ioDelay at every depth)',
    first: () => 'off',
    suffix: 'd4-',
    moot: (cell) => !usesDelayLayer(cell),
    text: true,
    variant: true,
    label: (v) => (v === 'off' ? 'one delay at every depth' : `${v} µs at queue depth 4`)
  },
  ioDepth: {
    validate: int(1, 4096),
    help: 'queue depth of the FUSE delay layer',
    first: () => IO_DEPTH,
    suffix: 'qd',
    moot: (cell) => !usesDelayLayer(cell),
    variant: true
  },
  // Where the data set is read from: cache (a plain folder, kept in the page cache), cold (the real device: the server in a
  // memory cgroup whose limit keeps its cache below the data set, emptied before each round: sweep/cell/cache-state.js),
  // delay (the FUSE layer at --ioDelay). Not given, it follows --ioDelay: cache for off, delay for a number.
  storage: {
    validate: oneOf(...STORAGE),
    help: 'where reads come from: cache (the page cache keeps the files), cold (the real disk: the server in a memory cgroup ' +
      'that keeps its cache below the data set, emptied before each round; root, fio and vmtouch), delay (the FUSE layer at --ioDelay)',
    first: () => [],
    shown: () => 'cache at --ioDelay=off, delay at a number of µs',
    suffix: 'st-',
    row: (cell) => cell.storage || (usesDelayLayer(cell) ? 'delay' : 'cache'),
    text: true,
    variant: true,
    label: (v) => ({ cache: 'page cache', cold: 'real disk, cold', delay: 'delay layer' })[v] ?? v
  },
  cacheShare: {
    validate: int(0, 100),
    help: '--storage=cold: the share of the data set (%) the server\'s memory cgroup leaves room for in its page cache',
    first: () => 0,
    suffix: 'cs',
    moot: (cell) => cell.storage !== 'cold',
    row: (cell) => cell.cacheShare ?? '',
    variant: true,
    label: (v) => `${v}% cached`
  },
  asyncApi: {
    validate: SCHEMA.asyncApi,
    config: true,
    help: 'fs API of the async kinds: callback, promises, promisify, filehandle, handle, stream or read',
    suffix: 'api-',
    moot: (cell) => KINDS[cell.kind].store === 'sync',
    text: true,
    cellKey: 'api'
  },
  framework: {
    validate: SCHEMA.framework,
    config: true,
    help: 'the app on express or on plain node:http (what the framework costs)',
    suffix: 'fw-',
    text: true,
    variant: true
  },
  uvUseIoUring: {
    validate: rule('0 or 1', (v) => (v === '0' || v === '1' ? Number(v) : undefined)),
    help: 'libuv\'s io_uring for the server\'s file I/O, 0 or 1 (UV_USE_IO_URING)',
    first: () => uvUseIoUring(),
    suffix: 'iou',
    env: 'UV_USE_IO_URING',
    variant: true,
    line: 1,
    label: (v) => (v ? 'io_uring' : 'thread pool')
  },
  fsync: {
    validate: SCHEMA.fsync,
    config: true,
    help: 'durability of a PUT: none, each (fdatasync before the answer) or group (one flush for the PUTs that arrived meanwhile; async kinds only)',
    suffix: 'fs-',
    text: true,
    variant: true
  },
  // Whose servers: this tree's ('', no suffix) or those of a commit, by its short sha (sweep/plan/revs.js: a git worktree of it).
  rev: {
    validate: rule('a commit of this checkout: a sha, branch, tag or HEAD~1 (not starting with -)', (v) => (/^(?!-)[\w./~^@{}+-]+$/.test(v) ? v : undefined)),
    help: 'also run the servers of another commit (a git worktree of it, in .rev-cache/, with its own npm ci) beside this tree\'s, ' +
      'interleaved: each cell of this tree against the same cell of REF ("this tree vs REF"); with it, no A/A pair and no storage slice ' +
      'unless --aa or --ioDelay asks',
    first: () => '',
    shown: () => 'none: this tree\'s servers alone',
    suffix: 'rev-',
    row: (cell) => cell.rev || 'tree',
    text: true,
    variant: true,
    label: (v) => (v === 'tree' ? 'this tree' : v)
  },
  // The server's runtime (lib/install/runtime-specs.js): its id (node-v26.10.0, bun-1.4.5, deno-2.9.6) ends a cell id as it is.
  runtime: {
    validate: runtimeSpec,
    help: 'the runtime each cell\'s server runs on (a version not in .node-cache/ is installed there from the npm registry; the client always ' +
      'runs on Node; a kind a runtime cannot run is skipped, saying why)',
    first: () => 'node',
    shown: () => 'the Node running this script',
    suffix: '',
    text: true,
    variant: true,
    label: runtimeLabel
  },
  // Where the processes run (sweep/cell/placement.js) and how HAProxy balances (the -lb kinds).
  cpuset: {
    validate: rule('shared or split', (v) => (v === 'shared' || v === 'split' ? v : undefined)),
    help: 'shared = client and server on every core; split = the server side (with HAProxy) and the client pinned to disjoint cores (taskset)',
    first: () => 'shared',
    suffix: 'cpu-',
    row: null,
    text: true,
    variant: true
  },
  rtt: {
    validate: rule(`an integer number of ms from 0 to ${MAX_RTT_MS}`, (v) => (/^\d+$/.test(String(v)) && Number(v) <= MAX_RTT_MS ? Number(v) : undefined)),
    help: 'ms of round trip added between the client and the server (needs --hosts=netns): netem, or a relay where the kernel has none',
    first: () => 0,
    suffix: 'rtt',
    row: (cell) => cell.rtt ?? 0,
    variant: true
  },
  balance: {
    validate: oneOf(...BALANCE),
    help: 'how HAProxy picks a backend per request in the -lb kinds: roundrobin or leastconn',
    first: () => 'roundrobin',
    suffix: 'lb-',
    moot: (cell) => KINDS[cell.kind].model !== 'lb',
    row: (cell) => cell.balance ?? '',
    text: true,
    variant: true
  }
}

const entries = Object.entries(DIMENSIONS)
const pick = (test, value) => Object.fromEntries(entries.filter(([, d]) => test(d)).map(([name, d]) => [name, value(d, name)]))

/** Each dimension's validator (sweep/plan/lists.js takes a list of them). */
const VALIDATORS = pick(() => true, (d) => d.validate)
/** The dimensions that add a suffix to a cell id, and the suffix. */
const SUFFIXES = pick((d) => d.suffix !== undefined, (d) => d.suffix)
/** The dimensions whose suffix a single value leaves out. */
const QUIET = entries.filter(([, d]) => d.quiet).map(([name]) => name)
/** The dimensions that are moot for some cells. */
const MOOT = pick((d) => d.moot, (d) => d.moot)
/** The dimensions that reach the server in its environment, and the variable. */
const ENV = pick((d) => d.env, (d) => d.env)
/** The dimensions that are config keys (they reach the server as its config). */
const CONFIG_KEYS = entries.filter(([, d]) => d.config).map(([name]) => name)
const columnOf = ([name, d]) => d.column ?? name
/** The columns cells differ by. */
const VARIANTS = entries.filter(([, d]) => d.variant).map(columnOf)

// summary.csv, written by sweep/cell/cell.js and sweep/capacity/run.js, read by report/data/read.js: the
// dimensions' columns after cell, repeat and order, then the figures. `required` columns are in
// every folder since the first; the others may be missing in older ones (read as null).
const HISTORIC = entries.filter(([, d]) => d.historic).map(columnOf)
const LATER = entries.filter(([, d]) => !d.historic).map(columnOf)
const SWEEP_FIGURES = ['oversubscribed', 'valid', 'reason', 'wallTimeMs', 'opsPerSec', 'getMean', 'getP50', 'getP99', 'getMax', 'putMean',
  'putP50', 'putP99', 'putMax', 'errors', 'clientCpuUs', 'serverCpuUs', 'json']
const SWEEP_LATER = ['variant', 'serverRequests', 'eldP50Us', 'eldP99Us', 'meanUtilization', 'workerShares', 'fairness', 'clientCpuPerReqUs',
  'serverCpuPerReqUs', 'clientBound', 'storageOps', 'storageLatencyUs', 'storageCpuPerReqUs', 'v8', 'uv', 'balancerRequests',
  'balancerFairness', 'balancerCpuPerReqUs', 'serverCpus', 'clientCpus', 'hosts', 'rttMethod', 'rttMeasuredUs', 'serverHost', 'clientHosts',
  'shardOverlap', 'residencyBefore', 'residencyAfter', 'deviceBytesPerGet', 'cacheLimitBytes', 'listenMechanism', 'serverPeakRssKiB',
  'serverWindowRssKiB', 'fileRecords']
const CAPACITY_FIGURES = ['valid', 'reason', 'capacity', 'capacityLow', 'capacityHigh', 'limit', 'probes', 'closedOpsPerSec', 'seconds']
const ID = ['cell', 'repeat', 'order']
// The results folder's layout, env.json's `format`: sweep/results/env.js writes RESULTS_FORMAT, report/data/read.js reads
// OLDEST_FORMAT to RESULTS_FORMAT. A folder without it is format 1 (the layout before the field); 2 is 1 with the field;
// 3 names each cell's runtime in a `runtime` column (node-v26.10.0, bun-1.4.5) where 1 and 2 had the Node version in `node`.
const OLDEST_FORMAT = 1
const RESULTS_FORMAT = 3
// profile/profile.json's own layout (--profile: profile/record.js writes it, report/data/profile.js reads it).
const PROFILE_FORMAT = 1
const SUMMARY = {
  sweep: {
    columns: [...ID, ...HISTORIC, ...LATER, ...SWEEP_FIGURES, ...SWEEP_LATER],
    required: [...ID, ...HISTORIC, ...SWEEP_FIGURES],
    variants: [...VARIANTS, 'hosts'],
    load: 'nClients'
  },
  capacity: {
    columns: [...ID, ...HISTORIC, ...LATER, ...CAPACITY_FIGURES, 'oversubscribed', 'variant', 'v8', 'uv', 'serverHost', 'clientHosts', 'listenMechanism',
      'highestPass'],
    required: [...ID, 'kind', 'nServers', 'nClients', ...CAPACITY_FIGURES],
    variants: VARIANTS,
    load: 'nClients'
  }
}
/** Every dimension's column. */
const DIMENSION_COLUMNS = entries.map(columnOf)
/** The dimensions a crossover chart draws a line per value of. */
const LINE_DIMENSIONS = entries.filter(([, d]) => d.line).sort(([, a], [, b]) => a.line - b.line).map(columnOf)
/** The report cells' own keys for dimensions, and the column each holds. */
const CELL_KEYS = Object.fromEntries(entries.filter(([, d]) => d.cellKey).map(([name, d]) => [d.cellKey, name]))
/** The columns of the dimensions that are text. */
const TEXT_COLUMNS = entries.filter(([, d]) => d.text).map(columnOf)

/** Each dimension's default list when its flag is not given (config: the config's value). */
function firstValues (config) {
  return pick(() => true, (d, name) => (d.config ? [config[name]] : [d.first?.(config)].flat()))
}

/** What --help shows as each dimension's default. */
function shownDefaults (config) {
  const shown = (d, name) => {
    if (d.shown) return d.shown(config)
    if (d.config) return config[name]
    return d.env ? `this shell's, ${d.first(config)}` : d.first(config)
  }
  return pick(() => true, shown)
}

/** The dimensions' columns of a cell's summary.csv row (those the run's figures write left out). */
function dimensionRow (cell) {
  const given = entries.filter(([, d]) => d.row !== null)
  return Object.fromEntries(given.map((entry) => [columnOf(entry), entry[1].row ? entry[1].row(cell) : cell[columnOf(entry)]]))
}

/** The server's environment for a cell: each dimension with an env variable that the cell sets. */
function serverEnv (cell) {
  const set = Object.entries(ENV).filter(([name]) => cell[name] !== undefined)
  return Object.fromEntries(set.map(([name, variable]) => [variable, String(cell[name])]))
}

/** A dimension's value in the report's words (its label, else the value). */
function valueLabel (name, value) {
  return DIMENSIONS[name]?.label?.(value) ?? String(value)
}

module.exports = {
  DIMENSIONS, VALIDATORS, SUFFIXES, QUIET, MOOT, ENV, CONFIG_KEYS, SUMMARY, TEXT_COLUMNS, VARIANTS, DIMENSION_COLUMNS, LINE_DIMENSIONS,
  CELL_KEYS, BALANCE, IO_DEPTH, RESULTS_FORMAT, OLDEST_FORMAT, PROFILE_FORMAT,
  usesDelayLayer, delayOrder, firstValues, shownDefaults, dimensionRow, serverEnv, valueLabel
}
