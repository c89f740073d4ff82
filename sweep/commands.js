'use strict'
// The one table of ./run_benchmark.sh's commands, as lib/results/dimensions.js is of the dimensions: data only.
// Each entry says once: its name (README's commands table has a row per name), its usage and line in --help,
// and either the preset of a command that runs cells (its kinds and grid, flags, A/A pair, storage slice,
// rounds and budget) with the runner that measures them (sweep/measures.js), or which functions parse its
// arguments and run it.
// sweep/index.js dispatches from it and sweep/help.js writes --help from it.

const { ConfigError, ASYNC_APIS } = require('../lib/config')
const { KIND_NAMES } = require('../lib/kinds')
const { MAX_INTERFERENCE } = require('../lib/machine/cpu-share')
const { supportedLts, newestLts } = require('../lib/install/node-lines')
const { parseSlo, sloFlag } = require('../lib/slo')
const { MARGIN } = require('../lib/median')
const { LIBUV_DEFAULT_THREADPOOL } = require('../lib/results/environment')
const { runCompare } = require('../report/compare/compare')
const { defaultAa } = require('./plan/aa')
const { planCells } = require('./plan/grid')
const { runPlan, report, parseReportDir } = require('./runner')
const { RUNNERS, parseStorageCheck, runStorageCheck, runThreadpool } = require('./measures')
const peak = require('./peak/peak')
const { parseNodeCommand, runNodeCommand } = require('./node-command')
const { parseHostsCommand, runHostsCommand } = require('./hosts/hosts')
const { parseSetupCommand, runSetup, REQUIREMENTS } = require('./setup')
const { parseThreadpool } = require('./threadpool/probes')
const { parseMachineCommand, runMachineCommand } = require('./machine')
const { parsePredictCommand, runPredictCommand } = require('./predict')

/** A budget in words: 110 s, 10 min, 1 h. */
const duration = (s) => (s % 3600 === 0 ? `${s / 3600} h` : s >= 600 && s % 60 === 0 ? `${s / 60} min` : `${s} s`)

// The interleaved commands keep every cell's server up, warm it up (warmOps per serving process) and
// measure it in windows, round after round (sweep/interleaved/rounds.js); 6 rounds are the fewest whose interval
// reaches 95% (report/stats/intervals.js), and rounds are added until the intervals are narrow or the budget
// (s) is spent. The client's own warm-up is one operation per process after creating the files; idle
// connections between a cell's windows are kept. Flags go before the user's, so the user's win.
const BASE_KINDS = ['sync', 'async', 'sync-cluster', 'async-cluster']
const ROUNDS = { maxInterference: MAX_INTERFERENCE, margin: MARGIN, maxRounds: 100, warmOps: 5000, restartEvery: 0, freshFiles: true, profile: false,
  profileRounds: 5, fairWindows: false }
const INTERLEAVED = { measure: 'rounds', flags: ['--warmup=1', '--keepAliveTimeout=3600000'] }

const POOL_SIZES = [1, 2, 4, 8, 16, 64]
const POOL_EVERYWHERE = [4, 64]
// threadpool's thinning of its own lists (a list the user gives is taken whole): sync at the default pool only (its size is moot
// for it), io_uring for async in one process at the default pool, the sizes beyond 4 and 64 at the slowest storage alone.
function keepPoolCell (c, given) {
  if (c.kind === 'sync' && c.uvThreadpoolSize !== LIBUV_DEFAULT_THREADPOOL) return false
  if (!given.uvUseIoUring && c.uvUseIoUring === 1 && (c.kind !== 'async' || c.uvThreadpoolSize !== LIBUV_DEFAULT_THREADPOOL)) return false
  const slowest = Math.max(...(given.ioDelay ?? [1000]).filter((d) => d !== 'off'))
  return Boolean(given.uvThreadpoolSize) || POOL_EVERYWHERE.includes(c.uvThreadpoolSize) || c.ioDelay === slowest
}

const FILE_SIZES = [1024, 16384, 262144, 4194304]
const sizeLabel = (b) => (b >= 1048576 ? `${b / 1048576} MiB` : `${b / 1024} KiB`)
// fsapi's thinning of its own lists (a list the user gives is taken whole): every size at 64 in flight on the page cache; 4 in flight
// at 16 KiB only (where a request's fixed costs weigh most); 1 ms storage at 16 KiB and 4 MiB; the newest LTS at 64 in flight on the
// page cache at 16 KiB and 4 MiB.
function keepFsApiCell (c, given) {
  const newer = c.runtime !== `node-${process.version}`
  const size = given.fileBytes || c.fileBytes === 16384
  const edge = given.fileBytes || [16384, 4194304].includes(c.fileBytes)
  if (c.concurrency !== 32 && !given.concurrency && !(size && c.ioDelay === 'off' && !newer)) return false
  if (c.ioDelay !== 'off' && !given.ioDelay && !(edge && !newer)) return false
  return !newer || given.runtime || (edge && c.ioDelay === 'off' && c.concurrency === 32)
}

const PRESETS = {
  quick: { ...INTERLEAVED, lists: { kinds: BASE_KINDS, nServers: [2], nClients: [2] }, flags: [...INTERLEAVED.flags, '--concurrency=2'],
    // The A/A pair is the cheapest cell's; the FUSE slice: sync and async in one process, plain folder and 1 ms storage.
    aa: () => ({ kind: 'sync', nServers: 1, nClients: 2 }), slice: { kinds: ['sync', 'async'], nServers: [1], nClients: [2], ioDelay: ['off', 1000] },
    rounds: { ...ROUNDS, rounds: 6, budget: 110, window: 300, passes: 8, fairWindows: true } },
  sweep: { ...INTERLEAVED, lists: { kinds: KIND_NAMES, nServers: [1, 2, 4], nClients: [1, 2, 4, 8] }, aa: defaultAa,
    rounds: { ...ROUNDS, rounds: 6, budget: 1800, window: 200, passes: 5 } },
  // The version table: each store in one process on the system Node and every supported LTS line.
  versions: { ...INTERLEAVED, lists: { kinds: ['sync', 'async'], nServers: [1], nClients: [4] }, aa: () => null,
    runtime: () => ['node@system', ...supportedLts().map((v) => `node@${v}`)], rounds: { ...ROUNDS, rounds: 8, budget: 600, window: 200, passes: 6 } },
  // The runtime table, on the same engine: sync, async, their 2-worker clusters and a sync pool (libuv's 4 threads) on the newest Node LTS,
  // Bun and Deno (the newest in .node-cache/, else the registry's), at a plain folder and 1 ms storage (when FUSE works).
  runtimes: { ...INTERLEAVED, lists: { kinds: [...BASE_KINDS, 'sync-pool'], nServers: [2], nClients: [2] }, flags: [...INTERLEAVED.flags, '--concurrency=2'],
    aa: () => null, runtime: () => [`node@${newestLts()}`, 'bun', 'deno'], slice: { ioDelay: ['off', 1000] },
    rounds: { ...ROUNDS, rounds: 6, budget: 900, window: 200, passes: 6 } },
  // Each of the 4 base kinds at a plain folder and 1 ms storage on a fresh server per round (sweep/capacity/),
  // 2 client processes x 16 connections in the open loop.
  capacity: { measure: 'capacity', lists: { kinds: BASE_KINDS, nServers: [2], nClients: [2] }, flags: ['--warmup=1000', '--concurrency=16'],
    aa: () => null, slice: { ioDelay: ['off', 1000] },
    rounds: { rounds: 6, budget: 600, slo: parseSlo('p99:20ms'), precision: 0.05, startRate: 100, endRate: 20000, probe: 1, rates: [] } },
  run: { measure: 'sequence', lists: {}, flags: [], aa: () => null, rounds: { rounds: 1, profile: false, profileRounds: 5 } },
  // libuv's pool size: async in one process and in a cluster of 2 (sync, which hands the pool nothing, as the reference) at each
  // size, on 1 core (split: the client on the other) and on both (shared), 1 ms storage and a plain folder, io_uring beside the
  // pool; 2 x 48 connections, 1.5 x the largest pool, since a request spends part of its time on the event loop, not in a pool
  // call; a request may wait 60 s, not 10, as the 40 servers warm up at once (sync's 96 queued requests then wait seconds behind
  // each other on a shared core). Thinned so that its budget decides the sizes at 1 ms, where the pool is what holds a server
  // up (keep): at the plain folder 4 and 64 alone; sync and io_uring (async, 1 process) at libuv's default, 4. With 100 µs
  // storage beside 1 ms as well (60 cells, 2026-11-28) the 1 ms cells got 7 to 8 rounds in the budget and their sizes 8 and 16
  // against 4 came out undecided in 7 of 8 on either VM kind (docs/RESULTS.md). One profiled round gives the model its calls per
  // request and the wake-ups.
  threadpool: { ...INTERLEAVED,
    lists: { kinds: ['sync', 'async', 'async-cluster'], nServers: [2], nClients: [2], uvThreadpoolSize: POOL_SIZES, cpuset: ['split', 'shared'],
      uvUseIoUring: [0, 1] },
    flags: [...INTERLEAVED.flags, '--concurrency=48', '--timeout=60000'], aa: () => null, slice: { ioDelay: ['off', 1000] }, keep: keepPoolCell,
    rounds: { ...ROUNDS, rounds: 6, budget: 660, window: 480, passes: 3, warmOps: 1000, profile: true, profileRounds: 1, fairWindows: true } },
  // Which fs API a file server should use (docs/fsapi.md): readFileSync (the sync kind) and each async idiom in one process, GETs only,
  // each answering the file's bytes as read (GET /file), files of 1 KiB to 4 MiB (below and above readFile's 512 KiB chunk), 4 and
  // 64 requests in flight (2 client processes x 2 or 32: one request per core's client, and a full libuv pool's queue many times
  // over), the page cache and 1 ms storage, the system Node and the newest LTS. Thinned to fit its budget (keepFsApiCell); the
  // budget leaves about 4 minutes of 25 to the profiled round (its servers' start and warm-up). A request may wait 5 minutes, and a
  // server waits as long for a request on a new connection: the 73 cells warm up at once, and a server busy with 64 reads of 4 MiB at
  // 1 ms reached a new connection's first request after its headersTimeout (10 s, counted from the accept): 408 (2026-11-29).
  fsapi: { ...INTERLEAVED,
    lists: { kinds: ['sync', 'async'], nServers: [1], nClients: [2], asyncApi: ASYNC_APIS, fileBytes: FILE_SIZES, concurrency: [32, 2], getBody: ['bytes'] },
    flags: [...INTERLEAVED.flags, '--readsPerWrite=inf', '--nFiles=16', '--timeout=300000', '--headersTimeout=300000',
      '--requestTimeout=300000'], slice: { ioDelay: ['off', 1000] },
    aa: () => ({ kind: 'async', nServers: 1, nClients: 2, fileBytes: 16384, concurrency: 32 }), keep: keepFsApiCell,
    runtime: () => ['node@system', `node@${newestLts()}`],
    rounds: { ...ROUNDS, rounds: 6, budget: 1200, window: 300, passes: 3, warmOps: 400, profile: true, profileRounds: 1 } },
  // The delay layer checked against the real disk: sync and async in one process and in a cluster of 2, on a cold cache and on the
  // delay layer at the device's latencies at queue depths 1 and 4 (its entry in COMMANDS measures the device first), all interleaved.
  'storage-check': { ...INTERLEAVED, lists: { kinds: BASE_KINDS, nServers: [2], nClients: [2], storage: ['cold', 'delay'] },
    flags: [...INTERLEAVED.flags, '--concurrency=2'], aa: () => null, rounds: { ...ROUNDS, rounds: 6, budget: 480, window: 200, passes: 6 } }
}
for (const [command, preset] of Object.entries(PRESETS)) preset.command = command

// The entry of a command that runs cells: planned from its preset, measured by its preset's runner.
const cells = (command, entry) => ({
  name: command,
  preset: PRESETS[command],
  parse: (rest) => ({ plan: planCells(PRESETS[command], rest), runner: RUNNERS[PRESETS[command].measure] }),
  run: ({ plan, runner }) => runPlan(plan, runner),
  ...entry
})
const { quick: Q, sweep: S, versions: V, runtimes: R, capacity: C } = Object.fromEntries(Object.entries(PRESETS).map(([k, p]) => [k, p.rounds]))

/** The commands, in the order --help and README list them. */
const COMMANDS = {
  setup: {
    name: 'setup',
    usage: 'setup [--check] [--strict]',
    line: 'install the system packages the optional parts need (FUSE and a compiler for storage latency, HAProxy, iproute2, fio, vmtouch, perf, ' +
      'Chromium, OpenSSH, User-mode Linux) as root, named as this distribution names them, then build the delay layer; --check: only say what is ' +
      'present and what is missing',
    about: `Packages (Debian's names): ${REQUIREMENTS.flatMap((need) => need.packages.map((p) => p.names.debian)).join(' ')}.\n` +
      'The distribution comes from /etc/os-release (Debian, Ubuntu, Fedora/RHEL, Arch, Alpine: apt-get, dnf, pacman, apk). Only the\n' +
      'missing packages are installed, one requirement at a time: a package that cannot be had loses only its capability, said in\n' +
      'one line. Not root, or no package manager: installs nothing and prints the command to run. Also runs before npm ci as\n' +
      'node sweep/setup.js [--check]. Exit status: 0 what quick needs is there (the delay layer\'s packages; the rest is listed),\n' +
      '1 it is not; --check: 1 while anything is missing; --strict (CI): 1 while any package is missing after the installs; 2 bad arguments.',
    parse: parseSetupCommand,
    run: runSetup
  },
  quick: cells('quick', {
    line: `the headline answer within a budget of ${duration(Q.budget)}: sync, async and their 2-worker clusters at a plain folder, sync and ` +
      `async at 1 ms storage (when FUSE works), and the A/A pair; 2 client processes x 2 connections; at least ${Q.rounds} rounds, ` +
      'more until every interval is within the margin; --rev=REF: this tree against commit REF instead (the four kinds, plain folder), ' +
      '--fail-on=slower: a gate for CI'
  }),
  sweep: cells('sweep', {
    line: `the full grid: all kinds, nServers ${PRESETS.sweep.lists.nServers}, nClients ${PRESETS.sweep.lists.nClients}, ` +
      `plus the A/A copy; at least ${S.rounds} rounds, more until every interval is within the margin or the budget (${duration(S.budget)}) is spent`
  }),
  versions: cells('versions', {
    line: `the version table: sync and async in one process, nClients ${PRESETS.versions.lists.nClients}, on the system node and every supported ` +
      `LTS line (missing ones are installed); at least ${V.rounds} rounds within a budget of ${duration(V.budget)}; writes versions.md beside the report`
  }),
  runtimes: cells('runtimes', {
    line: `the runtime table: ${PRESETS.runtimes.lists.kinds.join(', ')} (clusters of ${PRESETS.runtimes.lists.nServers}; the pool: libuv's 4 threads) on ` +
      'the newest Node LTS, Bun and Deno (installed into .node-cache/ when missing; one that cannot be had is skipped), at a plain folder and ' +
      `1 ms storage (when FUSE works), interleaved; at least ${R.rounds} rounds within a budget of ${duration(R.budget)}; writes runtimes.md beside the report`
  }),
  capacity: cells('capacity', {
    line: `the highest rate each server holds with its latency under --slo (default ${sloFlag(C.slo)}), open loop: the ` +
      `${BASE_KINDS.length} base kinds at a plain folder and 1 ms storage, a search per cell on a fresh server every round (${C.rounds} rounds, ` +
      `within a budget of ${duration(C.budget)}); the latency-load curves`
  }),
  run: cells('run', {
    name: 'run KIND',
    line: `one cell of KIND with config.json's values; KIND: ${KIND_NAMES.join(', ')}`,
    parse: (rest) => {
      if (rest[0] === undefined || rest[0].startsWith('--')) throw new ConfigError(`run needs a KIND: ${KIND_NAMES.join(', ')}`)
      return { plan: planCells(PRESETS.run, rest.slice(1), rest[0]), runner: RUNNERS.sequence }
    }
  }),
  threadpool: cells('threadpool', {
    line: `how big libuv's pool should be for a file server: async in one process and in a cluster of 2 at pool sizes ${POOL_SIZES.join(', ')} ` +
      `(${POOL_EVERYWHERE.join(', ')} only, but at 1 ms), sync as the reference, io_uring beside the pool where libuv uses it, on 1 core and ` +
      'on 2 (--cpuset split, shared), at 1 ms storage (when FUSE works) and a plain folder; interleaved within ' +
      `${duration(PRESETS.threadpool.rounds.budget)} and one profiled round; each size against 4, and a model of what the pool, the ` +
      'cores and the event loop allow beside each measurement; writes threadpool.md beside the report',
    parse: (rest) => parseThreadpool(PRESETS.threadpool, rest),
    run: runThreadpool
  }),
  fsapi: cells('fsapi', {
    line: `which fs API a file server should use: readFileSync (sync) and each async idiom (${ASYNC_APIS.join(', ')}) in one process, ` +
      `GETs answering the files' bytes, files of ${FILE_SIZES.map(sizeLabel).join(', ')}, 4 and 64 requests in flight, the page cache and ` +
      '1 ms storage (when FUSE works), the system Node and the newest LTS (thinned to fit); interleaved within ' +
      `${duration(PRESETS.fsapi.rounds.budget)} and one profiled round that counts each cell's pool trips; each idiom against callback ` +
      'readFile and against readFileSync, a model of CPU per request from pool trips and bytes beside each measurement; writes fsapi.md ' +
      'beside the report'
  }),
  'storage-check': cells('storage-check', {
    line: 'the FUSE delay layer checked against the real disk: sync and async in one process and in a cluster of 2 on a cold cache ' +
      '(--storage=cold), and on the delay layer at the read latencies fio measures on the device first (queue depths 1 and 4), interleaved ' +
      `(at least ${PRESETS['storage-check'].rounds.rounds} rounds, within ${duration(PRESETS['storage-check'].rounds.budget)}); ` +
      'the report and storage.md give delay/real with its interval and say whether they agree',
    parse: (rest) => parseStorageCheck(PRESETS['storage-check'], rest),
    run: (parsed) => runStorageCheck(PRESETS['storage-check'], parsed)
  }),
  peak: {
    name: 'peak',
    line: `saturation throughput of each kind (nServers ${peak.PEAK_NSERVERS} for the multi-process kinds), GET-only and POST-only, driven by autocannon`,
    config: true,
    parse: (rest) => ({ plan: peak.planPeak(rest), runner: RUNNERS.peak }),
    run: ({ plan, runner }) => runPlan(plan, runner)
  },
  report: {
    name: 'report DIR',
    line: 'render DIR/report.html and DIR/charts/*.svg again from a results folder',
    about: 'Writes DIR/report.html, DIR/cells.csv and DIR/charts/*.svg; prints the report\'s path and its verdict lines. ' +
      'Exit status: 0, 1 a failure, 2 bad arguments.',
    parse: parseReportDir,
    run: report
  },
  compare: {
    name: 'compare A B',
    usage: 'compare A B [--html=FILE] [--fail-on=slower [--watch=CELL|COMPARISON ...]]',
    line: 'two results folders: a change of machine first (with both fingerprints\' costs side by side), environment differences, then ' +
      'per shared cell the ratio B/A of ops/s, GET p99 and PUT p99 with intervals, ' +
      'changes beyond noise marked; Markdown on stdout, an HTML page to --html=FILE (default B/compare-<A>.html); --fail-on=slower: a gate ' +
      'for CI on every shared cell, or on the cells and comparisons named by --watch (one each)',
    about: 'Exit status: 0; 1 with --fail-on=slower, a watched figure or comparison slower in B beyond noise (the reason on stderr);\n' +
      '2 a folder that is not a results folder, two folders that share no cell, or bad arguments; 3 with --fail-on=slower,\n' +
      'A and B made on different machines (CPU model, cores or platform): code is not judged across machines.',
    parse: (rest) => rest, // report/compare/compare.js checks its own arguments
    run: runCompare
  },
  node: {
    name: 'node install|list',
    usage: 'node install VERSION... | node list',
    line: 'install official Node binaries, Bun and Deno from the npm registry into .node-cache/ (24, 26, 24.21.0, lts for the newest LTS ' +
      'line, bun, deno, bun@1.4, deno@2.9.6), each tarball checked against the registry\'s integrity, printing each binary\'s path; or list ' +
      'the Node versions in .node-cache/ and the system node, with their release lines, then Bun and Deno',
    about: 'Binaries go to .node-cache/ (git-ignored). Exit status: 0, 2 a version that cannot be had or bad arguments.',
    parse: parseNodeCommand,
    run: runNodeCommand
  },
  machine: {
    name: 'machine',
    usage: 'machine [--json]',
    line: 'this machine\'s fingerprint in under a second: CPU model, cores, kernel and its mitigations, and the costs the answer depends on ' +
      '(a libuv pool round trip, a thread wake-up, a system call, a fixed piece of JS work, a loopback HTTP round trip), each a median ' +
      'with its interval; every measuring command records it in env.json and prints its line as it starts; --json: the record',
    about: 'Exit status: 0, 2 bad arguments.',
    parse: parseMachineCommand,
    run: runMachineCommand
  },
  predict: {
    name: 'predict',
    usage: 'predict [FROM] [--on=FOLDER] [--json]',
    line: 'the sync vs async answer on the page cache (1 process, a cluster of 2) predicted for this machine from its fingerprint, or for ' +
      'the machine that made FOLDER (beside what FOLDER measured, and how far the prediction missed), from the profile and fingerprint of ' +
      'FROM (a quick --profile folder; default the README\'s); then what would move it: each cost twice as high',
    about: 'The model: docs/REFERENCE.md, "Predicting the answer on another machine". Exit status: 0, 2 bad arguments or a folder\n' +
      'the model cannot read (not a results folder, no fingerprint, FROM not profiled).',
    parse: parsePredictCommand,
    run: runPredictCommand
  },
  hosts: {
    name: 'hosts check|clean',
    usage: 'hosts check|clean --serverHost=HOST --clientHosts=HOST,... [--ssh="..."] [--remoteDir=DIR]',
    line: 'check: reach the hosts named by --serverHost and --clientHosts over ssh and print, for each, its Node, checkout commit, cores, ' +
      'free memory and clock offset; exit 2 naming the first that fails (every command that runs cells checks its hosts so first); ' +
      'clean: end what a run that is gone left on them: processes and data folders the project named cbench-remote-, and relays',
    about: 'Each host needs OpenSSH\'s sshd, Node and this project\'s checkout at the same commit. ssh runs with BatchMode\n' +
      '(it never prompts): keys from --ssh or ~/.ssh/config. Run clean only while no run uses the hosts.\n' +
      'Exit status: 0 every host passed (or was cleaned), 2 bad arguments or a host that failed.',
    parse: parseHostsCommand,
    run: runHostsCommand
  }
}

/**
 * Plans a command that runs cells, as its entry does (for tests and bench/).
 * @param {'sweep'|'quick'|'versions'|'capacity'|'run'} command
 * @param {string[]} argv the flags
 * @param {string} [runKind] run's KIND
 * @returns {object} the plan (sweep/plan/grid.js planCells)
 */
function planSweep (command, argv, runKind) {
  return planCells(PRESETS[command], argv, runKind)
}

module.exports = { COMMANDS, PRESETS, planSweep, duration, keepFsApiCell }
