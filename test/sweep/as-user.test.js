'use strict'
// The commands as a user (nobody), not root, on this machine: a short quick exits 0; run --profile at 1 ms storage
// profiles the pool threads with perf where kernel.perf_event_paranoid lets a user (2 here: user space only), its
// sampled CPU held against the servers' user time; --storage=cold is refused at once with its one line.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { parse } = require('csv-parse/sync')
const { ROOT } = require('../../lib/config')
const { checkFuse } = require('../../storage/check')
const { AS_NOBODY, plainEnv, asNobodyProblem, openDir } = require('../fixtures/as-user')

const skip = asNobodyProblem() || (checkFuse() && `the delay layer: ${checkFuse()}`) ||
  (!fs.existsSync(path.join(ROOT, 'storage', 'build', 'delayfs')) && 'the delay layer is not built (./run_benchmark.sh setup builds it)')
const paranoid = Number(fs.readFileSync('/proc/sys/kernel/perf_event_paranoid', 'utf8'))

// Runs ./run_benchmark.sh as nobody, its results and data in a folder of the test's.
function asNobody (t, args) {
  const dir = openDir(t.testdir())
  return new Promise((resolve) => {
    const child = spawn(...plainEnv(path.join(ROOT, 'run_benchmark.sh'), [...args, `--results=${dir}/r`, `--dataPath=${dir}/data`]),
      { cwd: ROOT, ...AS_NOBODY, stdio: ['ignore', 'pipe', 'pipe'] })
    let [stdout, stderr] = ['', '']
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('close', (code) => {
      const runs = fs.existsSync(path.join(dir, 'r')) ? fs.readdirSync(path.join(dir, 'r')).map((f) => path.join(dir, 'r', f)) : []
      resolve({ code, stdout, stderr, folder: runs[0], dir })
    })
  })
}

t.test('quick, kept short, exits 0 as a user with valid rows and verdicts', { skip }, async (t) => {
  const res = await asNobody(t, ['quick', '--rounds=1', '--maxRounds=1', '--warmOps=200', '--passes=2', '--maxInterference=1'])
  t.equal(res.code, 0, res.stderr)
  const rows = parse(fs.readFileSync(path.join(res.folder, 'summary.csv')), { columns: true })
  t.ok(rows.length >= 4 && rows.every((r) => r.valid === 'true'), `${rows.length} rows, all valid`)
  const { comparisons } = JSON.parse(fs.readFileSync(path.join(res.folder, 'verdicts.json'), 'utf8'))
  t.ok(comparisons.length > 1 && comparisons.some((c) => c.aa), `${comparisons.length} verdicts, the A/A among them`)
})

t.test('run async --profile at 1 ms storage as a user: perf sees the pool threads, or one line says why not', { skip }, async (t) => {
  const res = await asNobody(t, ['run', 'async', '--profile', '--profileRounds=1', '--ioDelay=1000'])
  t.equal(res.code, 0, res.stderr)
  const said = res.stderr.split('\n').filter((line) => line.startsWith('run: profiles: '))
  t.equal(said.length, 1, `one line on what the profiles see: ${said[0]}`)
  const profile = JSON.parse(fs.readFileSync(path.join(res.folder, 'profile', 'profile.json'), 'utf8'))
  if (paranoid !== 2) return t.match(said[0], /sudo sysctl -w kernel\.perf_event_paranoid=/, `paranoid ${paranoid}: the line names the sysctl`)
  t.match(said[0], /user space only .* sudo sysctl -w kernel\.perf_event_paranoid=1 adds the kernel/)
  t.same([profile.mode, profile.scope], ['perf', 'user'])
  const [round] = profile.cells['async-s1-c5-d1000'].rounds
  t.ok(round.categories.pool > 0, `the pool threads sampled: ${(round.categories.pool / round.requests).toFixed(1)} µs per request`)
  t.same(Object.keys(round.categories).filter((k) => k.startsWith('kernel-') && round.categories[k] > 0), [], 'no kernel sample')
  const ratio = round.sampledUs / round.serverCpuUs
  t.ok(ratio > 0.8 && ratio < 1.2, `sampled / measured user CPU ${ratio.toFixed(2)} (against all CPU, user and system, it was 0.6-0.7)`)
})

t.test('--storage=cold as a user: exit 2 with its one line, nothing written', { skip }, async (t) => {
  const res = await asNobody(t, ['sweep', '--kinds=sync', '--storage=cold', '--nFiles=2048', '--fileBytes=131072'])
  t.equal(res.code, 2, res.stderr)
  t.equal(res.stderr, 'run_benchmark.sh: --storage=cold: it makes a memory cgroup for the server, which needs root: run as root (sudo)\n')
  t.equal(res.stdout, '')
  t.notOk(fs.existsSync(path.join(res.dir, 'data')) || fs.existsSync(path.join(res.dir, 'r')), 'nothing written')
})
