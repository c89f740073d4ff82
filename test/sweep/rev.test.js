'use strict'
// --rev end to end: in a copy of this checkout whose last commit makes every request burn 2 ms of CPU, quick with
// --rev=HEAD~1 --fail-on=slower decides this tree slower than its parent and exits 1; --rev=HEAD (the same code as two
// cells) is not slower beyond the margin and exits 0. Each run's REF gets its worktree and npm ci (offline from npm's cache when it can).

const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { ROOT } = require('../../lib/config')
const { runSweep, resultsDir } = require('../fixtures/sweep-run')

const SMALL = ['--kinds=sync', '--nServers=1', '--nClients=1', '--rounds=6', '--maxRounds=6', '--budget=5m', '--passes=2', '--window=100',
  '--warmOps=100', '--maxInterference=1', '--seed=7', '--fail-on=slower']
const BURN = 'app.use((req, res, next) => { const end = process.hrtime.bigint() + 2000000n; while (process.hrtime.bigint() < end); next() })\n'

const git = (cwd, ...args) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd }).toString().trim()

// This checkout's files as they are (committed or not, ignored ones left out) in a new repository, then a commit that
// slows every request; its node_modules this one's. Outside this checkout, which t.testdir is not.
function slowedCopy (t) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rev-test-'))
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true })) // its worktrees are inside it
  const files = git(ROOT, 'ls-files', '--cached', '--others', '--exclude-standard').split('\n').filter((f) => fs.existsSync(path.join(ROOT, f)))
  for (const file of files) fs.cpSync(path.join(ROOT, file), path.join(root, file))
  git(root, 'init', '-q')
  git(root, 'add', '.')
  git(root, 'commit', '-q', '-m', 'base')
  const app = path.join(root, 'servers', 'lib', 'app.js')
  const text = fs.readFileSync(app, 'utf8')
  t.ok(text.includes('  app.use(checkFraming)\n'), 'the app has the line the burn goes after')
  fs.writeFileSync(app, text.replace('  app.use(checkFraming)\n', `  app.use(checkFraming)\n  ${BURN}`))
  git(root, 'commit', '-q', '-am', 'slow: 2 ms of CPU per request')
  // After the commits: a worktree's npm ci must not empty this checkout's node_modules through a committed link.
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'))
  return root
}

async function quick (t, root, rev, ...more) {
  const results = path.join(root, `results-${rev}`)
  const run = await runSweep(t, ['quick', ...SMALL, `--rev=${rev}`, `--results=${results}`, `--dataPath=${path.join(root, 'data')}`, ...more], { root })
  const dir = resultsDir(results)
  const [verdict] = JSON.parse(fs.readFileSync(path.join(dir, 'verdicts.json'), 'utf8')).comparisons.filter((c) => c.kind === 'rev' && c.metric === 'opsPerSec')
  return { ...run, verdict, env: JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8')) }
}

t.test('a commit that costs CPU is decided slower than its parent (exit 1), and a commit against itself is not (exit 0)', async (t) => {
  const root = slowedCopy(t)
  const parent = git(root, 'rev-parse', 'HEAD~1')
  const slowed = await quick(t, root, 'HEAD~1')
  t.equal(slowed.code, 1, slowed.stderr)
  t.match(slowed.verdict, { label: `sync, 1 process: this tree vs ${parent.slice(0, 7)}`, verdict: 'slower', a: 'sync-s1-c1' })
  t.ok(slowed.verdict.high < 0.8, `this tree's throughput below 0.8 of its parent's: ${slowed.verdict.estimate} [${slowed.verdict.low}–${slowed.verdict.high}]`)
  t.match(slowed.stderr, /--fail-on=slower: this tree is slower beyond noise and the ±5% margin in 1 of 1 \(its interval at 95%\):\nsync, 1 process/)
  t.match(slowed.env.revs, [{ ref: 'HEAD~1', sha: parent, subject: 'base', dir: path.join(root, '.rev-cache', parent) }])
  t.equal(fs.readFileSync(path.join(root, '.rev-cache', parent, 'servers', 'lib', 'app.js'), 'utf8').includes(BURN), false, 'REF\'s servers are the parent\'s')

  // --quiet: a passing gate's line is shown, on stdout after the verdict lines; the rest of stderr is held back.
  const self = await quick(t, root, 'HEAD', '--quiet')
  t.equal(self.code, 0, self.stderr)
  // Its verdict may still be "slower" within the margin: an interval at 95% leaves out 1 in 1 run of 20 by chance, and a kept
  // process can keep a cost of its own (bench/RESULTS.md), which is why the gate asks for slower beyond the margin too.
  const { estimate, low, high, verdict } = self.verdict
  t.ok(high >= 1 / 1.05 && low <= 1.05, `the same code as two cells, within reach of the ±5% margin: ${estimate} [${low}–${high}] ${verdict}`)
  t.match(self.stdout, /\n--fail-on=slower: passed, nothing slower beyond noise and margin in 1 comparison of this tree and a revision \(its interval at 95%\)/)
  t.notMatch(self.stderr, /rounds \(\d+ disturbed\)|--fail-on/, 'what the run said is held back, the gate\'s line is not on stderr')
})
