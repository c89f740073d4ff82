'use strict'
// --help of every entry point: exit 0, a usage line, every key of the tables it checks with its
// default and meaning; and the help tables cannot drift from the validator tables.

const t = require('tap')
const { execFile } = require('node:child_process')
const path = require('node:path')
const { SCHEMA, ROOT } = require('../../lib/config')
const { CONFIG_HELP, helpSection } = require('../../lib/entry-help')
const { SWEEP_LISTS, SWEEP_OPTIONS } = require('../../sweep/plan/options')
const { PEAK_LISTS, PEAK_OPTIONS } = require('../../sweep/peak/peak')
const { LIST_HELP, OPTION_HELP } = require('../../sweep/help')
const { KIND_NAMES } = require('../../lib/kinds')

const CONFIG = Object.keys(SCHEMA)
const SWEEP = [...Object.keys(SWEEP_LISTS), ...Object.keys(SWEEP_OPTIONS), ...CONFIG]
const PEAK = [...Object.keys(PEAK_LISTS), ...Object.keys(PEAK_OPTIONS), ...CONFIG]

// Each entry point with --help, and the keys its text must hold.
const ENTRIES = [
  [['client'], ['out', 'json', ...CONFIG]],
  ...KIND_NAMES.map((kind) => [[`servers/${kind}.js`], CONFIG]),
  [['run_benchmark.sh'], [...SWEEP, ...PEAK]],
  [['run_benchmark.sh', 'sweep'], SWEEP],
  [['run_benchmark.sh', 'quick'], SWEEP],
  [['run_benchmark.sh', 'versions'], SWEEP],
  [['run_benchmark.sh', 'run'], SWEEP],
  [['run_benchmark.sh', 'run', 'sync'], SWEEP],
  [['run_benchmark.sh', 'peak'], PEAK],
  [['run_benchmark.sh', 'report'], []],
  [['run_benchmark.sh', 'node'], []],
  [['report'], []],
  [['bench/client.js'], ['connections', 'requests', 'seconds', 'rounds']],
  [['bench/index.js'], ['out', 'only']],
  [['bench/memory.js'], ['small', 'large', 'connections']],
  [['bench/server.js'], ['seconds', 'rounds', 'connections']],
  [['bench/store.js'], ['ms']],
  [['bench/fsync.js'], ['rounds', 'ms', 'inFlight']],
  [['bench/profile-overhead.js'], ['seconds', 'repeats', 'hz']],
  [['bench/ssh-hosts.js'], []],
  [['bench/quick.js'], []],
  [['bench/capacity-check.js'], []],
  [['bench/slowloris.js'], []],
  [['bench/warmup.js'], []],
  [['bench/file-growth.js'], []],
  [['bench/window-noise.js'], []],
  [['bench/idle-gap.js'], ['burst', 'reps']],
  [['bench/steadiness.js'], ['seconds', 'slice']],
  [['bench/process-offset.js'], []],
  [['bench/soak.js'], []],
  [['bench/minimal-server.js'], []],
  [['bench/minimal-express.js'], []]
]

function run ([entry, ...rest]) {
  const file = path.join(ROOT, entry)
  const [command, args] = entry.endsWith('.sh') ? [file, [...rest, '--help']] : [process.execPath, [file, ...rest, '--help']]
  return new Promise((resolve) => {
    // 60 s: on a loaded, shared 2-core machine four at once took over 20 s.
    execFile(command, args, { timeout: 60000 }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr }))
  })
}

t.test('every entry point answers --help with exit 0, a usage line, and each key with its default', async (t) => {
  const outputs = []
  for (let k = 0; k < ENTRIES.length; k += 4) outputs.push(...await Promise.all(ENTRIES.slice(k, k + 4).map(([argv]) => run(argv))))
  for (const [k, [argv, keys]] of ENTRIES.entries()) {
    const name = argv.join(' ')
    const { code, stdout, stderr } = outputs[k]
    t.same({ code, stderr }, { code: 0, stderr: '' }, `${name} --help: exit 0, nothing on stderr`)
    t.match(stdout, new RegExp(`^Usage: (node )?(\\./)?${argv[0].replace('.', '\\.')}`), `${name}: a usage line first`)
    const missing = keys.filter((key) => !new RegExp(`^ {2}--${key} \\(default: [^)\\n]+.*\\n {6}\\S`, 'm').test(stdout))
    t.same(missing, [], `${name}: every key with its default and a line of meaning`)
  }
})

t.test('the help tables hold exactly the keys of the validator tables', async (t) => {
  t.same(Object.keys(CONFIG_HELP).sort(), Object.keys(SCHEMA).sort(), 'config keys (lib/config.js SCHEMA)')
  t.same(Object.keys(LIST_HELP).sort(), Object.keys(SWEEP_LISTS).sort(), 'grid flags (sweep/plan/grid.js SWEEP_LISTS)')
  t.same(Object.keys(OPTION_HELP).sort(), [...new Set([...Object.keys(SWEEP_OPTIONS), ...Object.keys(PEAK_OPTIONS)])].sort(), 'run and peak flags')
})

t.test('a key without help, or help without a key, is refused rather than left out', async (t) => {
  const validators = { a: (v) => v, b: (v) => v }
  t.throws(() => helpSection('T', validators, { a: 'x' }, { a: 1, b: 2 }), /no help or default for b; help for no key -/)
  t.throws(() => helpSection('T', validators, { a: 'x', b: 'y', c: 'z' }, { a: 1, b: 2 }), /help for no key c/)
  t.throws(() => helpSection('T', validators, { a: 'x', b: 'y' }, { a: 1 }), /no help or default for b/)
})

t.test('a section shows what each validator takes, from the phrase it refuses with', async (t) => {
  const text = helpSection('Things', { n: SCHEMA.nClients, s: SCHEMA.serverStats, free: (v) => v },
    { n: 'how many', s: 'stats', free: 'anything' }, { n: 5, s: 'auto', free: '' })
  t.equal(text, 'Things\n' +
    '  --n (default: 5)\n      how many; takes an integer from 1 to 256\n' +
    '  --s (default: auto)\n      stats; takes auto, true or false\n' +
    '  --free (default: "")\n      anything\n')
})
