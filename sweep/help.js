'use strict'
// --help of ./run_benchmark.sh and of each of its commands: the commands from their table
// (sweep/commands.js), and every flag from the validator tables the commands check (sweep/plan/options.js,
// sweep/peak/peak.js, lib/config.js), with each command's own defaults.

const { helpSection, entryHelp } = require('../lib/entry-help')
const { KIND_NAMES } = require('../lib/kinds')
const { DIMENSIONS, shownDefaults } = require('../lib/results/dimensions')
const { HOST_OPTIONS } = require('../lib/machine/ssh')
const { loadConfig } = require('../lib/config')
const { sloFlag } = require('../lib/slo')
const { SWEEP_LISTS, SWEEP_OPTIONS, RUN_DEFAULTS, CELL_TIMEOUT_MS } = require('./plan/options')
const { PEAK_OPTIONS, PEAK_LISTS, PEAK_DEFAULTS, PEAK_NSERVERS } = require('./peak/peak')
const { defaultAa } = require('./plan/aa')
const { COMMANDS, PRESETS } = require('./commands')

/** What each list flag of the grid means (lib/results/dimensions.js). */
const LIST_HELP = {
  ...Object.fromEntries(Object.entries(DIMENSIONS).map(([name, d]) => [name, d.help])),
  node: 'the Node each cell\'s server runs on, as --runtime=node@V for each V: a major (the newest cached, else installed into .node-cache/), ' +
    'a full version (24.21.0), system (the node on PATH) or a path to a binary'
}

/** What each option of the commands that run cells means (sweep/plan/grid.js SWEEP_OPTIONS, sweep/peak/peak.js PEAK_OPTIONS). */
const OPTION_HELP = {
  rounds: 'sweep, quick, versions: the fewest clean rounds of each phase (each measures every cell of the phase in interleaved windows); ' +
    'capacity: rounds of searches, each cell on a fresh server in each; run, peak: runs of each cell',
  repeats: 'the old name of --rounds: refused, with a pointer to --rounds',
  maxRounds: 'the most clean rounds (of each phase: the page cache, then storage that waits)',
  budget: 'seconds (or 90s, 2m, 1h) the servers, warm-up and rounds may take: no round is started that would overrun it',
  margin: 'a ratio within ±margin of 1 (its whole interval) is "the same"; ' +
    'rounds are added until every headline interval\'s high/low is under 1 + margin (then it has a verdict)',
  maxInterference: 'a pass in which other processes and steal took more than this share of the machine\'s CPU is dropped and run again',
  window: 'operations of a cell per window (over its client processes; rounded up to a multiple of nClients)',
  fairWindows: 'after the first round, a cell whose windows took longer than the median cell\'s gets windows of fewer operations, ' +
    'as long as the median\'s, so every cell has a like share of the time (quick: true)',
  passes: 'clean passes per round; a pass gives every cell one window, in a new shuffled order',
  warmOps: 'operations each serving process gets before the first round (the JIT\'s warm-up), not measured',
  profile: 'after the verdict rounds, --profileRounds rounds more whose passes are profiled but 2, 6, 10 ...: perf on every CPU where it works (every ' +
    'thread of the servers and the kernel; a user: this run\'s processes, as kernel.perf_event_paranoid allows, said in one line), ' +
    'V8 in every serving process; writes profile/ and the report\'s Why section (no verdict includes them); ' +
    'run: after its runs, each cell profiled and unprofiled on fresh servers in each such round',
  profileRounds: 'how many profiled rounds --profile adds (for each phase: the page cache, then storage that waits)',
  restartEvery: 'start the servers of the cells a phase still measures afresh (new processes, warmed up again) every N of its rounds; 0 = once for the run',
  freshFiles: 'start every round from the files as created (emptied in place, created again): each round the same operations on files ' +
    'of the same sizes, whatever the budget or machine; false: the files grow through the run (a PUT appends, a GET sorts the whole file)',
  slo: 'capacity: the latency target, PERCENTILE:LIMIT (p50, p90, p99, p999; us, ms or s), ' +
    'a comma list all of which must hold in every 1 s window, GET and PUT alike',
  precision: 'capacity: the search bisects until the failing rate is within this share above the passing one',
  startRate: 'capacity: requests/s of the first probe (the rate doubles from there until one fails)',
  endRate: 'capacity: the highest rate probed; a cell that passes there is reported at it',
  probe: 'capacity: seconds of a probe (1 s windows), longer at a low rate until it has the requests --slo needs',
  rates: 'capacity: rates (requests/s, comma list) probed in every round besides the search, for a full latency-load curve',
  seed: 'seed of the shuffle',
  results: 'parent folder of the results folder',
  readyTimeout: 'ms a server gets to print its ready line',
  keepData: 'keep each cell\'s data folder (else removed once the client verified it)',
  quiet: 'print only the verdict lines (answer.txt, then --fail-on\'s) on stdout; what the run says on stderr is shown only if it fails',
  cellTimeout: 'ms one client run (run) or one window (sweep, quick, versions) may take',
  aa: 'the A/A pair, KIND:nServers:nClients: that configuration\'s cell and its copy B, which must come out the same: the verdicts\' calibration; ' +
    'off = none (with --rev: none unless given)',
  'fail-on': 'slower (with --rev, sweep, quick, versions, runtimes): exit 1 when a "this tree vs REF" throughput verdict is slower beyond noise',
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

const HOST_DEFAULTS = { serverHost: 'this host', clientHosts: 'this host', ssh: 'none', remoteDir: 'this checkout\'s path' }
const RUNS_ABOUT = 'Any config key passes through to every cell (servers get a free port unless --serverPort is given).\n' +
  'Writes results/<UTC time>-<command>/: env.json, summary.csv, cells.csv, cells/, charts/, report.html, and prints\n' +
  'the report\'s path. Exit status: 0 all runs valid, 1 some invalid or no report, or with --fail-on=slower (and --rev=REF)\n' +
  'this tree slower than REF beyond noise (a "this tree vs REF" interval below 1; the same, faster and undecided pass),\n' +
  '2 bad flag (also a REF that is no commit here, or whose worktree or npm ci failed: nothing is kept), 130 interrupted\n' +
  '(Ctrl-C stops the current cell and keeps the finished ones).'

const list = (values) => values.join(',')
const only = (help, validators) => Object.fromEntries(Object.entries(help).filter(([key]) => Object.hasOwn(validators, key)))
// A default that differs per command: "sweep 3, quick 2, run 1".
// One that only one command differs in: "1,2,4 (storage-check 2)".
const perCommand = (commands, value) => {
  const values = commands.map((c) => String(value(c)))
  if (values.every((v) => v === values[0])) return values[0]
  const odd = values.findIndex((v) => values.filter((w) => w === v).length === 1)
  if (commands.length > 2 && odd >= 0 && values.filter((v, k) => k !== odd).every((v, _, rest) => v === rest[0])) {
    return `${values[odd === 0 ? 1 : 0]} (${commands[odd]} ${values[odd]})`
  }
  return commands.map((c, k) => `${c} ${values[k]}`).join(', ')
}

function gridDefaults (commands) {
  const fallback = shownDefaults(loadConfig([]).config)
  const value = (key) => (c) => {
    if (c === 'run' && key === 'kinds') return 'the KIND given'
    if (key === 'runtime' && PRESETS[c].runtime) return list(PRESETS[c].runtime())
    if (key === 'node') return 'as --runtime'
    const preset = PRESETS[c].lists[key] ?? (key === 'ioDelay' && !PRESETS[c].slice?.kinds ? PRESETS[c].slice?.ioDelay : undefined)
    return preset === undefined ? String(fallback[key]) : key === 'kinds' && preset.length === KIND_NAMES.length ? 'all' : list(preset)
  }
  return Object.fromEntries(Object.keys(SWEEP_LISTS).map((key) => [key, perCommand(commands, value(key))]))
}

const INTERLEAVED_KEYS = ['maxRounds', 'budget', 'margin', 'maxInterference', 'window', 'fairWindows',
  'passes', 'warmOps', 'restartEvery', 'freshFiles', 'profile', 'profileRounds']

function optionDefaults (commands) {
  const aa = defaultAa()
  return {
    ...PEAK_DEFAULTS,
    rounds: perCommand(commands, (c) => c === 'peak' ? PEAK_DEFAULTS.rounds : PRESETS[c].rounds.rounds),
    repeats: '–',
    ...Object.fromEntries(INTERLEAVED_KEYS.map((key) =>
      [key, perCommand(commands.filter((c) => c !== 'peak' && PRESETS[c].rounds[key] !== undefined), (c) => PRESETS[c].rounds[key])])),
    ...capacityDefaults(),
    seed: 'random, recorded in env.json',
    results: 'results/',
    ...RUN_DEFAULTS,
    cellTimeout: CELL_TIMEOUT_MS,
    clientNode: 'the Node running this script',
    'fail-on': 'none',
    ...HOST_DEFAULTS,
    aa: perCommand(commands, (c) => c === 'sweep' ? `${aa.kind}:${aa.nServers}:${aa.nClients} (async-cluster:min(2,cores):4)`
      : c === 'quick' ? 'sync:1:2' : 'off')
  }
}

function capacityDefaults () {
  const { slo, precision, startRate, endRate, probe } = PRESETS.capacity.rounds
  return { slo: sloFlag(slo), precision, startRate, endRate, probe, rates: 'none' }
}

function sections (command) {
  const cells = command === null ? Object.keys(PRESETS) : [command]
  const out = []
  if (command === null || COMMANDS[command].preset) {
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

// A command's line in the list of commands, wrapped under its name.
function commandLine ({ name, line }) {
  const words = line.split(' ')
  const rows = ['']
  for (const word of words) {
    if (rows[rows.length - 1].length + word.length > 96) rows.push('')
    rows[rows.length - 1] += `${rows[rows.length - 1] ? ' ' : ''}${word}`
  }
  return `  ${name.padEnd(17)}  ${rows.join(`\n${' '.repeat(21)}`)}`
}

/**
 * The --help text of ./run_benchmark.sh, or of one of its commands.
 * @param {string|null} command a name in sweep/commands.js COMMANDS, or null for all
 * @returns {string}
 */
function sweepHelp (command) {
  const entry = COMMANDS[command]
  const listed = command === null ? Object.values(COMMANDS) : [entry]
  const withConfig = command === null || Boolean(entry.preset || entry.config)
  const usage = command === null ? 'COMMAND [--KEY=VALUE ...]   (./run_benchmark.sh COMMAND --help: that command alone)'
    : entry.about ? entry.usage ?? entry.name : `${entry.name} [--KEY=VALUE ...]`
  const about = `Commands\n${listed.map(commandLine).join('\n')}\n\n${entry?.about ?? RUNS_ABOUT}`
  return entryHelp({ usage: `./run_benchmark.sh ${usage}`, about, sections: sections(command), config: withConfig })
}

module.exports = { sweepHelp, LIST_HELP, OPTION_HELP }
