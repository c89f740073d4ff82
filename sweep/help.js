'use strict'
// --help of ./run_benchmark.sh and of each of its commands: the commands in words, and every flag
// from the validator tables the commands check (sweep/grid.js, sweep/peak.js, lib/config.js),
// with the command's own defaults.

const { helpSection, entryHelp } = require('../lib/help')
const { SWEEP_LISTS, SWEEP_OPTIONS, RUN_DEFAULTS, CELL_TIMEOUT_MS, PRESETS, KIND_NAMES } = require('./grid')
const { DIMENSIONS, shownDefaults } = require('../lib/dimensions')
const { PEAK_OPTIONS, PEAK_LISTS, PEAK_DEFAULTS, PEAK_NSERVERS } = require('./peak')
const { defaultAa } = require('./aa')
const { HOST_OPTIONS } = require('../lib/ssh')
const { loadConfig } = require('../lib/config')

const COMMANDS = {
  quick: ['quick', 'the headline answer within a budget of 110 s: sync, async and their 2-worker clusters at a\n' +
    '                 plain folder, sync and async at 1 ms storage (when FUSE works), and the A/A pair; 2 client\n' +
    '                 processes x 2 connections; at least 6 rounds, more until every interval is within the margin'],
  sweep: ['sweep', 'the full grid: all kinds, nServers 1,2,4, nClients 1,2,4,8, plus the A/A copy; at least 6\n' +
    '                 rounds, more until every interval is within the margin or the budget (30 min) is spent'],
  versions: ['versions', 'the version table: sync and async in one process, nClients 4, on the system node and\n' +
    '                 every supported LTS line (missing ones are installed), within a budget of 10 min;\n' +
    '                 writes versions.md beside the report'],
  capacity: ['capacity', 'the highest rate each server holds with its latency under --slo (default p99:20ms),\n' +
    '                 open loop: the 4 base kinds at a plain folder and 1 ms storage, a search per cell on a\n' +
    '                 fresh server every round (6 rounds, within a budget of 10 min); the latency-load curves'],
  run: ['run KIND', `one cell of KIND with config.json's values; KIND: ${KIND_NAMES.slice(0, 3).join(', ')},\n` +
    `                 ${KIND_NAMES.slice(3).join(', ')}`],
  peak: ['peak', 'saturation throughput of each kind (nServers 1,2,4 for the multi-process kinds), GET-only\n' +
    '                 and POST-only, driven by autocannon'],
  report: ['report DIR', 'render DIR/report.html and DIR/charts/*.svg again from a results folder'],
  compare: ['compare A B', 'two results folders: environment differences, then per shared cell the ratio B/A\n' +
    '                 of ops/s, GET p99 and PUT p99 with intervals, changes beyond noise marked; Markdown on\n' +
    '                 stdout, an HTML page to --html=FILE (default B/compare-<A>.html)'],
  node: ['node install|list', 'install official Node binaries from the npm registry into\n' +
    '                 .node-cache/ (24, 26, 24.21.0, or lts for the newest LTS line), printing each binary\'s path;\n' +
    '                 or list the Node versions in .node-cache/ and the system node, with their release lines'],
  hosts: ['hosts check|clean', 'check: reach the hosts named by --serverHost and --clientHosts over ssh and print, for\n' +
    '                 each, its Node, checkout commit, cores, free memory and clock offset; exit 2 naming the first\n' +
    '                 that fails (every command that runs cells checks its hosts so first); clean: end what a run that\n' +
    '                 is gone left on them: processes and data folders the project named cbench-remote-, and relays']
}

/** What each list flag of the grid means (lib/dimensions.js). */
const LIST_HELP = Object.fromEntries(Object.entries(DIMENSIONS).map(([name, d]) => [name, d.help]))

/** What each option of the commands that run cells means (sweep/grid.js SWEEP_OPTIONS, sweep/peak.js PEAK_OPTIONS). */
const OPTION_HELP = {
  rounds: 'sweep, quick, versions: the fewest clean rounds (each measures every cell in interleaved windows); ' +
    'capacity: rounds of searches, each cell on a fresh server in each; run, peak: runs of each cell',
  repeats: 'the old name of --rounds: refused, with a pointer to --rounds',
  maxRounds: 'the most clean rounds',
  budget: 'seconds (or 90s, 2m, 1h) the servers, warm-up and rounds may take: no round is started that would overrun it',
  margin: 'a ratio within ±margin of 1 (its whole interval) is "the same"; ' +
    'rounds are added until every headline interval\'s high/low is under 1 + margin (then it has a verdict)',
  maxInterference: 'a pass in which other processes and steal took more than this share of the machine\'s CPU is dropped and run again',
  window: 'operations of a cell per window (over its client processes; rounded up to a multiple of nClients)',
  passes: 'clean passes per round; a pass gives every cell one window, in a new shuffled order',
  warmOps: 'operations each serving process gets before the first round (the JIT\'s warm-up), not measured',
  restartEvery: 'start every server afresh (and warm it up again) every N rounds: new processes and memory layouts; 0 = once for the whole run',
  slo: 'capacity: the latency target, PERCENTILE:LIMIT (p50, p90, p99, p999; us, ms or s), ' +
    'a comma list all of which must hold in every 1 s window, GET and PUT alike',
  precision: 'capacity: the search bisects until the failing rate is within this share above the passing one',
  startRate: 'capacity: requests/s of the first probe (the rate doubles from there until one fails)',
  endRate: 'capacity: the highest rate probed; a cell that passes there is reported at it',
  probe: 'capacity: seconds of a probe (1 s windows); the confirming probe is 3 times as long',
  rates: 'capacity: rates (requests/s, comma list) probed in every round besides the search, for a full latency-load curve',
  seed: 'seed of the shuffle',
  results: 'parent folder of the results folder',
  readyTimeout: 'ms a server gets to print its ready line',
  keepData: 'keep each cell\'s data folder (else removed once the client verified it)',
  cellTimeout: 'ms one client run (run) or one window (sweep, quick, versions) may take',
  aa: 'the A/A pair, KIND:nServers:nClients: that configuration\'s cell and its copy B, which must come out the same: the verdicts\' calibration; off = none',
  connections: 'autocannon\'s connections',
  duration: 'seconds of each autocannon run',
  pipelining: 'requests in flight per connection',
  clientNode: 'the one Node every client runs on, as for --node',
  hosts: 'local = client and server on this host\'s loopback; netns = the server side in a network namespace of its own, joined by a veth pair (root)',
  serverHost: 'run every server on this host over ssh, [user@]host[:port]; its data folder and verification are there, ' +
    'the client reaches it at that address (no --ioDelay, --hosts=netns or --cpuset=split with it)',
  clientHosts: 'run the client processes on these hosts over ssh, a comma list of [user@]host[:port] (process k on the ' +
    'k-th, in turn); each host\'s figures are in the row, the cell\'s histograms are theirs added',
  ssh: 'options for every ssh command, e.g. "-i KEY -o StrictHostKeyChecking=accept-new"',
  remoteDir: 'the project\'s checkout on the other hosts'
}

// The commands that run no cell: their usage and what they write.
const BARE = {
  report: {
    usage: 'report DIR',
    about: 'Writes DIR/report.html, DIR/cells.csv and DIR/charts/*.svg; prints the report\'s path. Exit status: 0, 1 a failure, 2 bad arguments.'
  },
  compare: {
    usage: 'compare A B [--html=FILE]',
    about: 'Exit status: 0, 2 a folder that is not a results folder, two folders that share no cell, or bad arguments.'
  },
  node: {
    usage: 'node install VERSION... | node list',
    about: 'Binaries go to .node-cache/ (git-ignored). Exit status: 0, 2 a version that cannot be had or bad arguments.'
  },
  hosts: {
    usage: 'hosts check|clean --serverHost=HOST --clientHosts=HOST,... [--ssh="..."] [--remoteDir=DIR]',
    about: 'Each host needs OpenSSH\'s sshd, Node and this project\'s checkout at the same commit. ssh runs with BatchMode\n' +
      '(it never prompts): keys from --ssh or ~/.ssh/config. Run clean only while no run uses the hosts.\n' +
      'Exit status: 0 every host passed (or was cleaned), 2 bad arguments or a host that failed.'
  }
}
const HOST_DEFAULTS = { serverHost: 'this host', clientHosts: 'this host', ssh: 'none', remoteDir: 'this checkout\'s path' }
const RUNS_ABOUT = 'Any config key passes through to every cell (servers get a free port unless --serverPort is given).\n' +
  'Writes results/<UTC time>-<command>/: env.json, summary.csv, cells.csv, cells/, charts/, report.html, and prints\n' +
  'the report\'s path. Exit status: 0 all runs valid, 1 some invalid or no report, 2 bad flag, 130 interrupted\n' +
  '(Ctrl-C stops the current cell and keeps the finished ones).'

const list = (values) => values.join(',')
const only = (help, validators) => Object.fromEntries(Object.entries(help).filter(([key]) => Object.hasOwn(validators, key)))
// A default that differs per command: "sweep 3, quick 2, run 1".
const perCommand = (commands, value) => {
  const values = commands.map((c) => String(value(c)))
  return values.every((v) => v === values[0]) ? values[0] : commands.map((c, k) => `${c} ${values[k]}`).join(', ')
}

function gridDefaults (commands) {
  const fallback = shownDefaults(loadConfig([]).config)
  const value = (key) => (c) => {
    if (c === 'run' && key === 'kinds') return 'the KIND given'
    if (key === 'node' && PRESETS[c].node) return list(PRESETS[c].node())
    const preset = PRESETS[c].lists[key] ?? (key === 'ioDelay' && !PRESETS[c].slice?.kinds ? PRESETS[c].slice?.ioDelay : undefined)
    return preset === undefined ? String(fallback[key]) : key === 'kinds' && preset.length === KIND_NAMES.length ? 'all' : list(preset)
  }
  return Object.fromEntries(Object.keys(SWEEP_LISTS).map((key) => [key, perCommand(commands, value(key))]))
}

function optionDefaults (commands) {
  const aa = defaultAa()
  return {
    ...PEAK_DEFAULTS,
    rounds: perCommand(commands, (c) => c === 'peak' ? PEAK_DEFAULTS.rounds : PRESETS[c].rounds.rounds),
    repeats: '–',
    ...Object.fromEntries(['maxRounds', 'budget', 'margin', 'maxInterference', 'window', 'passes', 'warmOps', 'restartEvery'].map((key) =>
      [key, perCommand(commands.filter((c) => c !== 'run' && c !== 'peak' && PRESETS[c].rounds[key] !== undefined), (c) => PRESETS[c].rounds[key])])),
    ...capacityDefaults(),
    seed: 'random, recorded in env.json',
    results: 'results/',
    ...RUN_DEFAULTS,
    cellTimeout: CELL_TIMEOUT_MS,
    clientNode: 'the Node running this script',
    ...HOST_DEFAULTS,
    aa: perCommand(commands, (c) => c === 'sweep' ? `${aa.kind}:${aa.nServers}:${aa.nClients} (async-cluster:min(2,cores):4)`
      : c === 'quick' ? 'sync:1:2' : 'off')
  }
}

function capacityDefaults () {
  const { slo, precision, startRate, endRate, probe } = PRESETS.capacity.rounds
  return { slo: slo.map((t) => `${t.name}:${t.us / 1000}ms`).join(','), precision, startRate, endRate, probe, rates: 'none' }
}

function sections (command) {
  const cells = command === null ? ['sweep', 'quick', 'versions', 'capacity', 'run'] : [command]
  const out = []
  if (command !== 'peak' && !Object.hasOwn(BARE, command)) {
    const of = command === null ? ' of sweep, quick, versions, capacity and run' : ''
    out.push(helpSection(`Grid flags${of} (comma-separated lists; each value checked as the key it stands for)`, SWEEP_LISTS, LIST_HELP, gridDefaults(cells)))
    out.push(helpSection(`Run flags${of}`, SWEEP_OPTIONS, only(OPTION_HELP, SWEEP_OPTIONS), optionDefaults(cells)))
  }
  if (command === null || command === 'hosts') {
    out.push(helpSection('Hosts flags (hosts check and clean)', HOST_OPTIONS, only(OPTION_HELP, HOST_OPTIONS), HOST_DEFAULTS))
  }
  if (command === null || command === 'peak') {
    const defaults = { kinds: 'all', nServers: list(PEAK_NSERVERS), node: 'the Node running this script' }
    out.push(helpSection('Peak flags (kinds, nServers and node: comma-separated lists)', { ...PEAK_LISTS, ...PEAK_OPTIONS },
      { ...only(LIST_HELP, PEAK_LISTS), ...only(OPTION_HELP, PEAK_OPTIONS) }, { ...defaults, ...optionDefaults(['peak']) }))
  }
  return out
}

/**
 * The --help text of ./run_benchmark.sh, or of one of its commands.
 * @param {string|null} command sweep, quick, versions, capacity, run, peak, report, compare, node, hosts, or null for all
 * @returns {string}
 */
function sweepHelp (command) {
  const commands = command === null ? Object.values(COMMANDS) : [COMMANDS[command]]
  const bare = Object.hasOwn(BARE, command)
  const usage = command === null ? 'COMMAND [--KEY=VALUE ...]   (./run_benchmark.sh COMMAND --help: that command alone)'
    : bare ? BARE[command].usage : `${COMMANDS[command][0]} [--KEY=VALUE ...]`
  const about = `Commands\n${commands.map(([name, text]) => `  ${name.padEnd(13)}  ${text}`).join('\n')}\n\n` +
    (bare ? BARE[command].about : RUNS_ABOUT)
  return entryHelp({ usage: `./run_benchmark.sh ${usage}`, about, sections: sections(command), config: !bare })
}

module.exports = { sweepHelp, LIST_HELP, OPTION_HELP }
