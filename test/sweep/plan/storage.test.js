'use strict'
// --storage and --cacheShare in a plan (sweep/plan/storage.js, sweep/plan/grid.js): the modes a plan's cells get, the
// data set a cold run writes, and every input that cannot work refused with one line and exit 2 before anything runs.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { planSweep } = require('../../../sweep/commands')
const { delayFlags } = require('../../../sweep/plan/storage')
const { dimensionRow } = require('../../../lib/results/dimensions')
const { cgroupProblem } = require('../../../storage/cgroup-base')
const { vmtouchProblem } = require('../../../storage/cache')
const { fioProblem } = require('../../../storage/device')
const { mountTmpfs } = require('../../fixtures/tmpfs')
const { ROOT } = require('../../../lib/config')

const ids = (plan) => plan.cells.map((c) => `${c.id} ${c.storage} ${c.ioDelay}`)
const coldWhy = cgroupProblem({ trial: false }) || vmtouchProblem() || fioProblem()
const BASE = ['--kinds=sync,async', '--nServers=1', '--nClients=2', '--aa=off']

// The CLI's answer: its exit status and stderr, with nothing left in the results folder.
function cli (t, args, prefix = []) {
  const results = t.testdir()
  const command = [...prefix, process.execPath, path.join(ROOT, 'sweep', 'index.js'), ...args, `--results=${results}`, `--dataPath=${results}/data`]
  const res = spawnSync(command[0], command.slice(1), { encoding: 'utf8', timeout: 30000 })
  return { status: res.status, err: res.stderr, left: fs.readdirSync(results) }
}

t.test('without --storage, cells follow --ioDelay: cache at off, delay at a number, ids as before', async (t) => {
  t.same(ids(planSweep('sweep', [...BASE, '--ioDelay=off,1000'])), [
    'sync-s1-c2-doff cache off', 'sync-s1-c2-d1000 delay 1000', 'async-s1-c2-doff cache off', 'async-s1-c2-d1000 delay 1000'])
  const quick = planSweep('quick', [])
  t.same(quick.cells.map((c) => c.storage), quick.cells.map((c) => (c.ioDelay === 'off' ? 'cache' : 'delay')), 'quick\'s slice is delay')
  t.equal(quick.config.fileBytes, 0, 'no data set written')
})

t.test('--storage=cache,delay: a plain folder and each delay, the delay layer\'s ioDelay only on delay cells', async (t) => {
  t.same(ids(planSweep('sweep', [...BASE, '--storage=cache,delay', '--ioDelay=100'])), [
    'sync-s1-c2-doff-st-cache cache off', 'sync-s1-c2-d100-st-delay delay 100', 'async-s1-c2-doff-st-cache cache off', 'async-s1-c2-d100-st-delay delay 100'])
})

t.test('the device\'s latencies at queue depths 1 and 4 reach the delay cells, their ids and their rows', async (t) => {
  const flags = delayFlags({ qd1: { meanUs: 65.4 }, qd4: { meanUs: 100.6 } })
  t.same(flags, ['--ioDelay=65', '--ioDelayQd4=101'])
  const plan = planSweep('sweep', [...BASE, '--storage=cache,delay', ...flags])
  t.same(plan.cells.map((c) => `${c.id} ${c.ioDelay} ${c.ioDelayQd4}`), ['sync-s1-c2-doff-st-cache off ', 'sync-s1-c2-d65-d4-101-st-delay 65 101',
    'async-s1-c2-doff-st-cache off ', 'async-s1-c2-d65-d4-101-st-delay 65 101'])
  t.match(dimensionRow(plan.cells[1]), { ioDelay: 65, ioDelayQd4: 101, storage: 'delay' })
  t.equal(dimensionRow(plan.cells[0]).ioDelayQd4, '', 'moot for a plain folder')
  t.same(planSweep('sweep', [...BASE, '--ioDelay=65']).cells.map((c) => c.ioDelayQd4), ['off', 'off'], 'not given: the one delay at every depth')
  t.test('storage-check plans them', { skip: coldWhy }, async (t) => {
    const check = planSweep('storage-check', flags)
    t.same(check.cells.filter((c) => c.storage === 'delay').map((c) => [c.ioDelay, c.ioDelayQd4]), [[65, 101], [65, 101], [65, 101], [65, 101]])
  })
})

t.test('--storage and --ioDelay or --cacheShare that cannot go together: one line each', async (t) => {
  const refused = (argv, message) => t.throws(() => planSweep('sweep', [...BASE, ...argv]), { message }, argv.join(' '))
  refused(['--storage=delay'], '--storage=delay is the FUSE layer at --ioDelay: give --ioDelay=µs too')
  refused(['--storage=cache', '--ioDelay=off,300'], '--ioDelay=off,300 is the FUSE layer\'s latency: add delay to --storage')
  refused(['--cacheShare=50'], '--cacheShare is the share of a cold data set the cache may keep: give --storage=cold too')
  refused(['--storage=cache', '--cacheShare=50'], '--cacheShare is the share of a cold data set the cache may keep: add cold to --storage')
  refused(['--storage=warm'], '--storage must be one of cache, cold, delay, got "warm"')
  refused(['--storage=cold', '--cacheShare=101'], '--cacheShare must be an integer from 0 to 100, got "101"')
  t.throws(() => planSweep('capacity', ['--fileBytes=4096']),
    { message: '--fileBytes: capacity empties the data files before every probe, so its files start empty' })
  for (const [command, kind] of [['run', 'sync'], ['capacity']]) {
    t.throws(() => planSweep(command, ['--storage=cold'], kind),
      { message: '--storage=cold is measured in interleaved rounds, each begun with the cache emptied: use sweep, quick or storage-check' }, command)
  }
})

t.test('cold: every cell reads the same 512 MiB data set unless the flags size it; too small a one is refused', { skip: coldWhy }, async (t) => {
  const plan = planSweep('sweep', [...BASE, '--storage=cache,cold', '--cacheShare=0,50'])
  t.same(plan.cells.map((c) => `${c.id} ${c.cacheShare}`), ['sync-s1-c2-st-cache ', 'sync-s1-c2-st-cold-cs0 0', 'sync-s1-c2-st-cold-cs50 50',
    'async-s1-c2-st-cache ', 'async-s1-c2-st-cold-cs0 0', 'async-s1-c2-st-cold-cs50 50'], 'cacheShare moot for the cache cells')
  t.same(plan.cells.map((c) => c.config.nFiles * c.config.fileBytes), plan.cells.map(() => 512 * 1048576))
  t.equal(planSweep('sweep', [...BASE, '--storage=cold', '--nFiles=20000']).config.nFiles, 20000, 'a flag given wins')
  t.throws(() => planSweep('sweep', [...BASE, '--storage=cold', '--fileBytes=4096']), {
    message: '--storage=cold: the data set (--nFiles=32768 × --fileBytes=4096, 128 MiB) must be at least 256 MiB, well above the 32 MiB of cache ' +
      'the server\'s cgroup may keep'
  })
})

t.test('the CLI: --storage=cold where it cannot work exits 2 with one line, and runs nothing', async (t) => {
  const bad = cli(t, ['sweep', '--storage=hot'])
  t.equal(bad.status, 2)
  t.equal(bad.err, 'run_benchmark.sh: --storage must be one of cache, cold, delay, got "hot"\n')
  t.same(bad.left, [], 'no results folder')
  t.test('on tmpfs', { skip: coldWhy }, async (t) => {
    const dir = mountTmpfs(t, 1 << 20)
    if (!dir) return
    const res = spawnSync(process.execPath, [path.join(ROOT, 'sweep', 'index.js'), 'sweep', ...BASE, '--storage=cold', `--dataPath=${dir}/data`,
      `--results=${t.testdir()}`], { encoding: 'utf8', timeout: 30000 })
    t.equal(res.status, 2)
    t.equal(res.stderr, `run_benchmark.sh: --storage=cold: the data folder ${dir} is on tmpfs (${dir}), which is memory: no device to read from; ` +
      'give --dataPath on a disk\n')
    t.same(fs.readdirSync(dir), [], 'nothing made there')
  })
  // env -i: without tap's NODE_OPTIONS, whose loaders write where another user may not
  const NOBODY = ['/usr/bin/env', '-i', `PATH=${process.env.PATH}`, '/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']
  const readable = () => spawnSync(NOBODY[0], [...NOBODY.slice(1), 'test', '-r', path.join(ROOT, 'sweep', 'index.js')]).status === 0
  const notRoot = process.getuid() !== 0 ? 'runs as root to drop to another user'
    : !fs.existsSync('/usr/bin/setpriv') ? 'no setpriv'
        : !readable() && `another user (uid 65534) cannot read this checkout (${ROOT})`
  t.test('not root', { skip: notRoot }, async (t) => {
    const res = cli(t, ['sweep', ...BASE, '--storage=cold'], NOBODY)
    t.equal(res.status, 2)
    t.equal(res.err, 'run_benchmark.sh: --storage=cold: it makes a memory cgroup for the server, which needs root: run as root (sudo)\n')
  })
})
