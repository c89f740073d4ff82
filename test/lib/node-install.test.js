'use strict'
// The newest LTS from the npm registry into the project's cache (.node-cache/): it runs and says
// its version. That part reaches the registry, so it runs only with TEST_REGISTRY=1 (and, asked to,
// is skipped with the reason when the registry cannot be reached); it downloads only if the cache
// lacks the version (.ci/run fills it first). What needs no network runs always.

const { execFileSync } = require('node:child_process')
const path = require('node:path')
const t = require('tap')
const { ROOT } = require('../../lib/config')
const { newestLts, lineStatus } = require('../../lib/install/node-lines')
const { installNode, newestInRegistry } = require('../../lib/install/node-install')
const { probeNode, findCached, CACHE_DIR } = require('../../lib/install/node-versions')
const { KINDS, KIND_NAMES, kindProblem } = require('../../lib/kinds')

const LTS = String(newestLts())

// The newest version of the line in the registry, or why the registry test is skipped.
function fromRegistry () {
  if (process.env.TEST_REGISTRY !== '1') return { skip: 'reaches the npm registry: set TEST_REGISTRY=1' }
  try {
    return { skip: false, newest: newestInRegistry(LTS) }
  } catch (err) {
    if (!/cannot reach the npm registry/.test(err.message)) throw err // any other failure is a fault
    return { skip: `the npm registry cannot be reached: ${err.message}` }
  }
}
const { skip, newest } = fromRegistry()

t.test(`the line installed is the newest LTS, ${LTS}, and the cache it goes to is inside the project`, async (t) => {
  t.match(lineStatus(Number(LTS)), /^(active|maintenance) LTS$/, `Node ${LTS}: ${lineStatus(Number(LTS))}`)
  t.equal(path.dirname(CACHE_DIR), ROOT, 'the cache is inside the project')
  t.equal(path.basename(CACHE_DIR), '.node-cache')
})

t.test(`the newest Node ${LTS} installs into .node-cache and runs the project's code`, { skip, timeout: 600000 }, async (t) => {
  t.match(newest, new RegExp(`^v${LTS}\\.\\d+\\.\\d+$`))
  const got = installNode(LTS)
  t.same(got, {
    version: newest, path: path.join(CACHE_DIR, newest, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node'), installed: got.installed
  })
  t.match(probeNode(got.path), { node: newest, v8: /^\d+\.\d+/, uv: /^1\.\d+\.\d+$/ })
  t.same(findCached({ type: 'major', version: LTS }), { version: newest, path: got.path })
  const kinds = execFileSync(got.path, ['-p', "require('./lib/kinds').KIND_NAMES.filter((k) => !require('./lib/kinds').kindProblem(k)).length"],
    { cwd: ROOT }).toString().trim()
  t.equal(kinds, String(KIND_NAMES.filter((k) => !kindProblem(k) || KINDS[k].model === 'reuseport').length), 'every kind, reuseport included, can run on it')
  t.same(installNode(LTS), { ...got, installed: false }, 'a second install finds it there')
})
