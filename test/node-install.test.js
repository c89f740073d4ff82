'use strict'
// The newest LTS from the npm registry into the project's cache (.node-cache/): it runs and says
// its version. It downloads only if the cache lacks it (.ci/run fills it first); when the
// registry cannot be reached the test is skipped with the reason.

const { execFileSync } = require('node:child_process')
const path = require('node:path')
const t = require('tap')
const { ROOT } = require('../lib/config')
const { newestLts } = require('../lib/node-lines')
const { installNode, newestInRegistry } = require('../lib/node-install')
const { probeNode, findCached, CACHE_DIR } = require('../lib/node-versions')
const { KINDS, KIND_NAMES, kindProblem } = require('../lib/kinds')

const LTS = String(newestLts())
let newest = null
let unreachable = false
try {
  newest = newestInRegistry(LTS)
} catch (err) {
  if (!/cannot reach the npm registry/.test(err.message)) throw err // any other failure is a fault
  unreachable = `the npm registry cannot be reached: ${err.message}`
}

t.test(`the newest Node ${LTS} installs into .node-cache and runs the project's code`, { skip: unreachable, timeout: 600000 }, async (t) => {
  t.match(newest, new RegExp(`^v${LTS}\\.\\d+\\.\\d+$`))
  const got = installNode(LTS)
  t.same(got, {
    version: newest, path: path.join(CACHE_DIR, newest, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node'), installed: got.installed
  })
  t.equal(path.dirname(CACHE_DIR), ROOT, 'the cache is inside the project')
  t.match(probeNode(got.path), { node: newest, v8: /^\d+\.\d+/, uv: /^1\.\d+\.\d+$/ })
  t.same(findCached({ type: 'major', version: LTS }), { version: newest, path: got.path })
  const kinds = execFileSync(got.path, ['-p', "require('./lib/kinds').KIND_NAMES.filter((k) => !require('./lib/kinds').kindProblem(k)).length"],
    { cwd: ROOT }).toString().trim()
  t.equal(kinds, String(KIND_NAMES.filter((k) => !kindProblem(k) || KINDS[k].model === 'reuseport').length), 'every kind, reuseport included, can run on it')
  t.same(installNode(LTS), { ...got, installed: false }, 'a second install finds it there')
})
