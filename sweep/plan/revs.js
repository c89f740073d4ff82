'use strict'
// The rev dimension of a plan (--rev=REF): a commit whose servers run beside this tree's, from a git worktree of
// it in .rev-cache/<full sha>/ with its own dependencies (npm ci), made once and reused; a REF that cannot be had
// is refused with nothing left behind.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { ROOT, ConfigError } = require('../../lib/config')

// Offline when the npm cache holds the packages; the servers need no dev dependencies.
const NPM_CI = ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--omit=dev']

const git = (args, cwd) => execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim()
const npmCi = (dir) => execFileSync('npm', NPM_CI, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
const lastLine = (err) => err.stderr?.toString().trim().split('\n').pop() || err.message
const say = (line) => process.stderr.write(`${line}\n`)

// Takes a worktree away, whatever state it is in: git's record of it, its folder, and the cache folder if that is empty.
function removeWorktree (root, dir) {
  try {
    git(['worktree', 'remove', '--force', dir], root)
  } catch {
    git(['worktree', 'prune'], root) // its folder gone, or never a worktree: what git holds of folders that are gone
  }
  fs.rmSync(dir, { recursive: true, force: true })
  fs.rmSync(`${dir}.json`, { force: true })
  try {
    fs.rmdirSync(path.dirname(dir))
  } catch {} // other revisions are cached there
}

/**
 * Resolves a --rev value to a commit of the checkout and a worktree of it with its dependencies installed:
 * .rev-cache/<sha>/, reused when an earlier run made it whole (its record, <sha>.json, is written last).
 * @param {string} ref as given: a sha, branch, tag, HEAD~1
 * @param {{ root?: string, cache?: string, install?: (dir: string) => void, notify?: (line: string) => void }} [how]
 *   root: the checkout; install: the dependencies' step (npm ci) in a new worktree
 * @returns {{ ref: string, sha: string, short: string, subject: string, dir: string }}
 * @throws {ConfigError} when root is not a git checkout, REF is no commit of it, or the worktree or its npm ci fails
 *   (after removing what was made)
 */
function prepareRev (ref, { root = ROOT, cache = path.join(root, '.rev-cache'), install = npmCi, notify = say } = {}) {
  const fail = (why) => { throw new ConfigError(`--rev ${ref}: ${why}`) }
  try {
    git(['rev-parse', '--git-dir'], root)
  } catch (err) {
    fail(`${root} is not a git checkout (${lastLine(err)})`)
  }
  let sha
  try {
    sha = git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], root)
  } catch {
    fail(`no commit of ${root} is called so`)
  }
  const rev = { ref, sha, short: git(['rev-parse', '--short', sha], root), subject: git(['log', '-1', '--format=%s', sha], root), dir: path.join(cache, sha) }
  if (fs.existsSync(`${rev.dir}.json`) && fs.existsSync(rev.dir)) return rev
  if (fs.existsSync(rev.dir)) removeWorktree(root, rev.dir) // a run killed while making it
  notify(`--rev ${ref}: ${rev.short} (${rev.subject}) into ${rev.dir}, with npm ci`)
  try {
    fs.mkdirSync(cache, { recursive: true })
    git(['worktree', 'add', '--detach', rev.dir, sha], root)
    // A node_modules in REF's tree (a link to another checkout's) would be emptied by npm ci.
    if (fs.lstatSync(path.join(rev.dir, 'node_modules'), { throwIfNoEntry: false })) throw new Error('its tree holds node_modules')
    install(rev.dir)
  } catch (err) {
    removeWorktree(root, rev.dir)
    fail(`its worktree could not be made (${lastLine(err)}); nothing was kept`)
  }
  fs.writeFileSync(`${rev.dir}.json`, `${JSON.stringify({ ref, sha, subject: rev.subject, madeAt: new Date().toISOString() })}\n`)
  return rev
}

/**
 * Checks that a revision has the server of every kind asked for.
 * @param {{ ref: string, short: string, dir: string }} rev from prepareRev
 * @param {string[]} kinds
 * @throws {ConfigError} naming the first kind it lacks
 */
function checkServers (rev, kinds) {
  const lacking = kinds.find((kind) => !fs.existsSync(path.join(rev.dir, 'servers', `${kind}.js`)))
  if (lacking) throw new ConfigError(`--rev ${rev.ref}: ${rev.short} has no servers/${lacking}.js (older than that kind): leave it out with --kinds`)
}

module.exports = { prepareRev, checkServers, NPM_CI }
