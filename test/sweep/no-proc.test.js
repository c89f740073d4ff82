'use strict'
// The core path without Linux's /proc: setup and a short quick in a mount namespace whose /proc is an empty tmpfs, with
// the platform seam set to darwin (lib/platform.js), then the same quick on Linux against a folder made before the seam
// (test/fixtures/linux-quick-before.json). Needs root and unshare: skipped, saying so, where either is missing.
// Run: node test/sweep/no-proc.test.js

const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { readResults } = require('../../report/data/read')
const { findOnPath } = require('../../lib/find-on-path')
const { LINUX_ONLY, hasProc } = require('../../lib/platform')

const ROOT = path.join(__dirname, '..', '..')
const BEFORE = require('../fixtures/linux-quick-before.json')
const QUICK = ['quick', '--rounds=1', '--maxRounds=1', '--warmOps=200', '--passes=2', '--ioDelay=off', '--maxInterference=1']
// What a run without /proc cannot measure that Linux fills in (summary.csv), each left empty, never 0.
const NOT_MEASURED = ['deviceBytesPerGet', 'listenMechanism', 'serverWindowRssKiB']
// What the folder made before the seam lacks because it came later: --rev's summary.csv column and env.json field, and
// the records a file held at each round's end.
const LATER = { columns: ['rev', 'fileRecords'], field: 'revs' }

const why = !hasProc() ? 'hides /proc with a Linux mount namespace'
  : process.getuid() !== 0 ? 'needs root to mount an empty /proc in a mount namespace'
    : !findOnPath('unshare', process.env.PATH) ? 'needs unshare (util-linux)' : null

// Runs ./run_benchmark.sh ARGS, hidden: in a mount namespace with an empty /proc, as if on macOS, with a registry that
// answers nothing (setup's Bun and Deno say they cannot be had, at once).
function bench (args, { hidden }) {
  const env = { ...process.env }
  let cmd = [path.join(ROOT, 'run_benchmark.sh'), ...args]
  if (hidden) {
    Object.assign(env, { BENCH_PLATFORM: 'darwin', npm_config_registry: 'http://127.0.0.1:9/', npm_config_fetch_retries: '0' })
    cmd = ['unshare', '-m', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs none /proc && exec "$@"', 'sh', ...cmd]
  }
  return spawnSync(cmd[0], cmd.slice(1), { cwd: ROOT, env, encoding: 'utf8', timeout: 180000 })
}

const count = (text, part) => text.split(part).length - 1
const has = (v) => v !== null && v !== undefined && v !== ''
const filledOf = (results) => Object.fromEntries(results.rows.map((r) => [r.cell, results.columns.filter((c) => has(r[c]))]))

t.test('without /proc, as on macOS: setup exits 0 and names what needs Linux in one line, with no Linux package advice', { skip: why }, async (t) => {
  const res = bench(['setup'], { hidden: true })
  t.equal(res.status, 0, res.stderr)
  t.match(res.stdout, /^system +macOS \(darwin\)/m)
  t.equal(count(res.stdout, 'these need Linux'), 1)
  t.match(res.stdout, /^linux .*storage latency \(the FUSE delay layer\).*the -lb kinds.*--hosts=netns/m)
  t.notMatch(res.stdout + res.stderr, /apt-get|dnf |pacman|apk |fuse3|linux-perf|user-mode-linux/, 'no Linux package named')
  t.match(res.stdout, /^note +--runtime=bun .*cannot be installed/m, 'Bun: the darwin package cannot be had without a registry')
})

t.test('without /proc, as on macOS: quick exits 0 with verdicts, a report, one line per lost capability, no zero for "not measured"',
  { skip: why }, async (t) => {
    const results = fs.mkdtempSync(path.join(os.tmpdir(), 'no-proc-'))
    t.teardown(() => fs.rmSync(results, { recursive: true, force: true }))
    const res = bench([...QUICK, `--results=${results}`], { hidden: true })
    t.equal(res.status, 0, res.stderr)
    t.match(res.stdout, /^sync vs async, 1 process: /m, 'a verdict line')
    t.match(res.stdout, /^A\/A: sync, 1 process: /m)
    // --ioDelay=off asks for no storage cells: interference (blind here: os.cpus() has no times) and port sharing are lost.
    t.equal(count(res.stderr, LINUX_ONLY.blind), 1, 'interference named once')
    t.equal(count(res.stderr, LINUX_ONLY.ports), 1, 'port sharing named once')
    t.equal(count(res.stderr, 'not Linux (darwin): '), 2, 'nothing else named')
    t.notMatch(res.stderr, /ENOENT|Error/, 'nothing read /proc and failed')

    const [folder] = fs.readdirSync(results)
    const dir = path.join(results, folder)
    const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8')
    t.match(html, 'What others took of the CPU was not measured here')
    t.match(html, LINUX_ONLY.ports.replace(/'/g, '&#39;'), 'the environment notes say what was lost')
    const read = readResults(dir)
    t.equal(read.env.platform, 'darwin')
    t.equal(read.env.fingerprint.mitigations, null, 'no mitigations read off Linux')
    t.same(read.rows.map((r) => r.cell).sort(), Object.keys(BEFORE.filled).sort(), 'the same cells as on Linux')
    t.ok(read.rows.every((r) => r.valid && r.opsPerSec > 0 && r.serverCpuUs > 0), 'every cell measured; the servers\' CPU from their telemetry')
    const filled = filledOf(read)
    for (const [cell, columns] of Object.entries(BEFORE.filled)) {
      t.same(columns.filter((c) => !filled[cell].includes(c)), NOT_MEASURED, `${cell}: only what cannot be measured here is empty`)
      t.same(filled[cell].filter((c) => !columns.includes(c)), LATER.columns, `${cell}: nothing filled that Linux leaves empty`)
    }
    t.ok(read.passes.length > 0 && read.passes.every((p) => p.kept && [p.own, p.other, p.steal, p.iowait, p.interference, p.runnable]
      .every((x) => x === null)), 'each pass kept, its interference not measured (empty, not 0)')
  })

t.test('as on macOS, what needs Linux is refused with its line and exit 2, before anything runs', async (t) => {
  const env = { ...process.env, BENCH_PLATFORM: 'darwin' }
  const asked = {
    '--ioDelay=1000': LINUX_ONLY.storage,
    '--storage=cold': LINUX_ONLY.storage,
    '--profile': LINUX_ONLY.profile,
    '--kinds=sync-lb': LINUX_ONLY.lb,
    '--hosts=netns': LINUX_ONLY.netns,
    '--cpuset=split': LINUX_ONLY.cpuset
  }
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'refused-'))
  t.teardown(() => fs.rmSync(results, { recursive: true, force: true }))
  for (const [flag, line] of Object.entries(asked)) {
    const res = spawnSync(path.join(ROOT, 'run_benchmark.sh'), ['quick', flag, `--results=${results}`], { cwd: ROOT, env, encoding: 'utf8' })
    t.equal(res.status, 2, flag)
    t.match(res.stderr, line, `${flag}: its line`)
  }
  t.same(fs.readdirSync(results), [], 'no results folder')
})

t.test('on Linux, quick writes the columns, figures and env.json fields it wrote before the seam', { skip: why }, async (t) => {
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'linux-quick-'))
  t.teardown(() => fs.rmSync(results, { recursive: true, force: true }))
  const res = bench([...QUICK, `--results=${results}`], { hidden: false })
  t.equal(res.status, 0, res.stderr)
  t.notMatch(res.stderr, /not Linux|no \/proc here/)
  const dir = path.join(results, fs.readdirSync(results)[0])
  const read = readResults(dir)
  const before = (list) => list.filter((c) => !LATER.columns.includes(c))
  t.same(before(read.columns), BEFORE.columns, 'summary.csv\'s columns')
  t.same(Object.fromEntries(Object.entries(filledOf(read)).map(([cell, list]) => [cell, before(list)])), BEFORE.filled, 'each cell\'s filled columns')
  t.same(Object.keys(read.passes[0]), BEFORE.passColumns, 'passes.csv\'s columns')
  t.same(BEFORE.passColumns.filter((c) => read.passes.every((p) => has(p[c]))), BEFORE.passFilled, 'every pass\'s interference measured')
  const fields = Object.keys(JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8')))
  t.same(fields.filter((f) => f !== LATER.field), BEFORE.envKeys, 'env.json\'s fields')
  t.equal(read.env.platform, 'linux')
})
