'use strict'
// sweep/plan/revs.js: --rev=REF resolved in a checkout, its worktree made once (with its dependencies' step) and
// reused, a REF that cannot be had refused with nothing left behind; and quick planned with --rev.

const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { ConfigError, ROOT } = require('../../../lib/config')
const { prepareRev, checkServers } = require('../../../sweep/plan/revs')

const git = (cwd, ...args) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd }).toString().trim()

// A folder outside any checkout (t.testdir's are inside this one).
function outside (t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-test-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

// A checkout of two commits: the first has servers/sync.js only, the second adds servers/async.js.
function twoCommits (t) {
  const root = outside(t)
  fs.mkdirSync(path.join(root, 'servers'))
  fs.writeFileSync(path.join(root, 'servers', 'sync.js'), '// first\n')
  git(root, 'init', '-q')
  git(root, 'add', '.')
  git(root, 'commit', '-q', '-m', 'first')
  fs.writeFileSync(path.join(root, 'servers', 'async.js'), '// second\n')
  git(root, 'add', '.')
  git(root, 'commit', '-q', '-m', 'second')
  return root
}
const worktrees = (root) => git(root, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).length

t.test('REF is resolved to its commit, its worktree made once in the cache with its dependencies, then reused', async (t) => {
  const root = twoCommits(t)
  const installed = []
  const how = { root, install: (dir) => installed.push(dir), notify: () => {} }
  const rev = prepareRev('HEAD~1', how)
  const sha = git(root, 'rev-parse', 'HEAD~1')
  t.same(rev, { ref: 'HEAD~1', sha, short: git(root, 'rev-parse', '--short', sha), subject: 'first', dir: path.join(root, '.rev-cache', sha) })
  t.same(installed, [rev.dir], 'the dependencies installed in the new worktree')
  t.equal(fs.readFileSync(path.join(rev.dir, 'servers', 'sync.js'), 'utf8'), '// first\n', 'the worktree holds REF\'s files')
  t.notOk(fs.existsSync(path.join(rev.dir, 'servers', 'async.js')), 'and not the later commit\'s')
  t.equal(git(rev.dir, 'rev-parse', 'HEAD'), sha, 'checked out at REF')
  t.match(JSON.parse(fs.readFileSync(`${rev.dir}.json`, 'utf8')), { ref: 'HEAD~1', sha, subject: 'first' }, 'its record, written last')
  t.same(prepareRev(sha, how), { ...rev, ref: sha }, 'the same commit by another name')
  t.same(installed, [rev.dir], 'reused: no second worktree, no second install')
  t.equal(worktrees(root), 2, 'the checkout and one worktree')
})

t.test('a worktree a killed run left without its record is made again', async (t) => {
  const root = twoCommits(t)
  const rev = prepareRev('HEAD', { root, install: () => {}, notify: () => {} })
  fs.rmSync(`${rev.dir}.json`)
  const installed = []
  t.same(prepareRev('HEAD', { root, install: (dir) => installed.push(dir), notify: () => {} }), rev)
  t.same(installed, [rev.dir], 'made and installed again')
  t.equal(worktrees(root), 2)
})

t.test('a REF that is no commit, a folder that is no checkout and a failing install are refused, leaving nothing', async (t) => {
  const root = twoCommits(t)
  const how = { root, install: () => t.fail('nothing to install'), notify: () => {} }
  t.throws(() => prepareRev('no-such-branch', how), new ConfigError(`--rev no-such-branch: no commit of ${root} is called so`))
  t.throws(() => prepareRev('HEAD:servers', how), { constructor: ConfigError, message: /no commit/ }, 'a tree is not a commit')
  const plain = outside(t)
  t.throws(() => prepareRev('HEAD', { ...how, root: plain }), { constructor: ConfigError, message: `--rev HEAD: ${plain} is not a git checkout` })
  const failing = { root, install: () => { throw Object.assign(new Error('npm ci'), { stderr: 'npm ERR! network\nnpm ERR! offline' }) }, notify: () => {} }
  t.throws(() => prepareRev('HEAD~1', failing), { constructor: ConfigError, message: /^--rev HEAD~1: its worktree could not be made \(npm ERR! offline\)/ })
  t.notOk(fs.existsSync(path.join(root, '.rev-cache')), 'no cache folder left')
  t.equal(worktrees(root), 1, 'no worktree left in git\'s list')
  t.equal(git(root, 'status', '--porcelain'), '', 'the checkout unchanged')
})

t.test('a REF whose tree holds node_modules (a link to another checkout\'s) is refused before npm ci could empty it', async (t) => {
  const root = twoCommits(t)
  const other = outside(t)
  fs.writeFileSync(path.join(other, 'kept'), '')
  fs.symlinkSync(other, path.join(root, 'node_modules'))
  git(root, 'add', 'node_modules')
  git(root, 'commit', '-q', '-m', 'a link')
  t.throws(() => prepareRev('HEAD', { root, install: () => t.fail('no install'), notify: () => {} }),
    { constructor: ConfigError, message: /its worktree could not be made \(its tree holds node_modules\); nothing was kept/ })
  t.same(fs.readdirSync(other), ['kept'], 'the other folder untouched')
  t.equal(worktrees(root), 1)
})

t.test('a revision without the server of a kind asked for is refused, naming it', async (t) => {
  const root = twoCommits(t)
  const rev = prepareRev('HEAD~1', { root, install: () => {}, notify: () => {} })
  t.doesNotThrow(() => checkServers(rev, ['sync']))
  t.throws(() => checkServers(rev, ['sync', 'async']), new ConfigError(`--rev HEAD~1: ${rev.short} has no servers/async.js (older than that kind): ` +
    'leave it out with --kinds'))
})

t.test('quick with --rev: the four kinds of this tree and of REF at a plain folder, REF\'s from its worktree, no A/A pair', async (t) => {
  const rev = { ref: 'main', sha: 'a'.repeat(40), short: '1a2b3c4', subject: 'a commit', dir: ROOT }
  const revs = require('../../../sweep/plan/revs')
  const { planSweep } = t.mockRequire('../../../sweep/commands', { '../../../sweep/plan/revs': { ...revs, prepareRev: () => rev } })
  const plan = planSweep('quick', ['--rev=main', '--fail-on=slower'])
  const ids = ['sync-s1-c2', 'async-s1-c2', 'sync-cluster-s2-c2', 'async-cluster-s2-c2']
  t.same(plan.cells.map((c) => c.id).sort(), [...ids, ...ids.map((id) => `${id}-rev-1a2b3c4`)].sort())
  t.same(plan.cells.filter((c) => c.revDir).map((c) => c.id).sort(), ids.map((id) => `${id}-rev-1a2b3c4`).sort(), 'REF\'s cells know its worktree')
  t.same(plan.cells.filter((c) => c.revDir).map((c) => c.revDir), Array(4).fill(ROOT))
  t.equal(plan.options.aa, null, 'no A/A pair')
  t.same(plan.envExtra.revs, [rev], 'the revision for env.json')
  t.match(plan.notes, [/--rev: this tree against each revision, without the A\/A pair \(--aa adds it\) or the storage slice/])
  const asked = planSweep('quick', ['--rev=main', '--aa=sync:1:2', '--ioDelay=off,1000', '--kinds=sync'])
  t.same(asked.cells.map((c) => c.id).sort(), ['sync-s1-c2-d1000', 'sync-s1-c2-d1000-rev-1a2b3c4', 'sync-s1-c2-doff', 'sync-s1-c2-doff-B',
    'sync-s1-c2-doff-rev-1a2b3c4'], 'the A/A pair and the storage latencies when asked')
})

t.test('--fail-on needs --rev, and --rev an interleaved command on this host', async (t) => {
  const { planSweep } = require('../../../sweep/commands')
  t.throws(() => planSweep('quick', ['--fail-on=slower']), new ConfigError('--fail-on=slower judges this tree against --rev=REF: give --rev too'))
  t.throws(() => planSweep('quick', ['--fail-on=faster']), { constructor: ConfigError, message: /--fail-on must be slower/ })
  t.throws(() => planSweep('capacity', ['--rev=HEAD']), { constructor: ConfigError, message: /--rev is for the commands of interleaved rounds.*capacity/ })
  t.throws(() => planSweep('quick', ['--rev=-x']), { constructor: ConfigError, message: /--rev must be a commit of this checkout/ })
})
