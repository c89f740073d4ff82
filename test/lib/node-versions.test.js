'use strict'
// Which binary a --node value names: major and full versions from the cache (installed into it
// when missing, through npm), system, a path, and bad values; the install's staging and checks.
// The registry is one of our own here (test/fixtures/fake-registry.js); test/lib/node-install.test.js uses npm's.

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { ConfigError } = require('../../lib/config')
const { parseNodeSpec, resolveNode, cachedNodes, probeNode, systemNode, binaryIn } = require('../../lib/install/node-versions')
const { installNode } = require('../../lib/install/node-install')
const { fakeNode, fakeCache } = require('../fixtures/fake-node')
const { packTarball, startRegistry } = require('../fixtures/fake-registry')

t.test('a --node value is a major, a full version, system or a path; anything else is refused', async (t) => {
  t.same(parseNodeSpec('24'), { text: '24', type: 'major', version: '24' })
  t.same(parseNodeSpec('24.21.0'), { text: '24.21.0', type: 'full', version: 'v24.21.0' })
  t.same(parseNodeSpec('v26.10.0'), { text: 'v26.10.0', type: 'full', version: 'v26.10.0' })
  t.same(parseNodeSpec('system'), { text: 'system', type: 'system' })
  t.same(parseNodeSpec('./bin/node'), { text: './bin/node', type: 'path', path: path.resolve('bin/node') })
  // A validator throws a ValueError, which lib/config.js completes with the flag and the value.
  const phrase = (text) => { try { parseNodeSpec(text) } catch (why) { return why.message } }
  for (const bad of ['', 'lts', 'node', '24.1', 'v24', '24.x', '1234', 'latest']) {
    t.equal(phrase(bad), 'must be a major version (24), a full version (24.21.0), system, or a path to a node binary', JSON.stringify(bad))
  }
})

t.test('a major resolves to the newest cached version of that line, a full version to itself, without npm', async (t) => {
  const cacheDir = fakeCache(t.testdir(), ['v98.0.1', 'v98.10.0', 'v98.9.5', 'v99.1.0'])
  fs.mkdirSync(path.join(cacheDir, '.stage-abc')) // a stage left behind is not a version
  fs.mkdirSync(path.join(cacheDir, 'v97.0.0')) // nor a folder without a binary
  t.same(cachedNodes(cacheDir).map((n) => n.version), ['v99.1.0', 'v98.10.0', 'v98.9.5', 'v98.0.1'])
  const install = () => { throw new Error('must not install') }
  t.match(resolveNode('98', { cacheDir, install }),
    { spec: '98', source: 'cache', node: 'v98.10.0', v8: '98.10.0-v8', uv: '1.99.0', path: binaryIn(path.join(cacheDir, 'v98.10.0')) })
  t.match(resolveNode('98.9.5', { cacheDir, install }), { source: 'cache', node: 'v98.9.5' })
  t.match(resolveNode('v99.1.0', { cacheDir, install }), { node: 'v99.1.0' })
  t.throws(() => resolveNode('97', { cacheDir }), { constructor: ConfigError, message: `--node 97: Node 97 is not in ${cacheDir}` })
})

t.test('system is the node on PATH and a path is that binary, each with its versions', async (t) => {
  const dir = t.testdir()
  const bin = fakeNode(path.join(dir, 'a', 'node'), 'v96.3.1', { v8: '9.6', uv: '1.60.0' })
  t.equal(systemNode(`${path.join(dir, 'nowhere')}:${path.join(dir, 'a')}`), bin)
  t.equal(systemNode(path.join(dir, 'nowhere')), null)
  t.same(resolveNode('system', { envPath: path.join(dir, 'a') }), { spec: 'system', source: 'system', path: bin, node: 'v96.3.1', v8: '9.6', uv: '1.60.0' })
  t.match(resolveNode(bin), { spec: bin, source: 'path', node: 'v96.3.1' })
  t.match(probeNode(process.execPath), { node: process.version, v8: process.versions.v8, uv: process.versions.uv })
  t.throws(() => resolveNode('system', { envPath: path.join(dir, 'nowhere') }), /^--node system: there is no node on PATH$/)
  fs.writeFileSync(path.join(dir, 'not-node'), '#!/bin/sh\necho hello\n', { mode: 0o755 })
  t.throws(() => resolveNode(path.join(dir, 'not-node')), /^--node .*not-node: .*not-node is not a working node binary: /)
  t.throws(() => resolveNode(path.join(dir, 'missing')), /missing is not a working node binary: ENOENT/)
  t.throws(() => resolveNode('x.y', { flag: '--clientNode' }), /^--clientNode x\.y: must be a major version .*, got "x\.y"$/)
})

t.test('a version not in the cache is installed there, with one line saying so; a second time it is found', async (t) => {
  const root = t.testdir({ cache: {}, npm: {} })
  const registry = await nodeRegistry(t, root, { 'v98.0.1': 'v98.0.1', 'v98.2.0': 'v98.2.0', 'v99.1.0': 'v99.1.0' })
  const cacheDir = path.join(root, 'cache')
  const lines = []
  const install = (range, how) => installNode(range, { ...how, registry })
  const got = resolveNode('98', { cacheDir, install, notify: (l) => lines.push(l) })
  t.match(got, { source: 'installed', node: 'v98.2.0', path: binaryIn(path.join(cacheDir, 'v98.2.0')) })
  t.equal(lines.length, 2)
  t.match(lines[0], /^--node 98: Node 98 is not in .*; installing it from the npm registry$/)
  t.match(lines[1], /^installing node-\w+-\w+@98\.2\.0 into .*v98\.2\.0$/)
  t.same(fs.readdirSync(cacheDir), ['v98.2.0'], 'no stage is left')
  t.match(resolveNode('98', { cacheDir, install: () => { throw new Error('must not install') } }), { source: 'cache', node: 'v98.2.0' })
  t.same(installNode('98', { cacheDir, registry }), { version: 'v98.2.0', path: got.path, installed: false }, 'install says it is there already')
})

t.test('a version that cannot be had names it, and leaves the cache as it was', async (t) => {
  const root = t.testdir({ cache: {}, npm: {} })
  const registry = await nodeRegistry(t, root, { 'v99.1.0': 'v99.0.0' })
  const cacheDir = path.join(root, 'cache')
  const install = (range, how) => installNode(range, { ...how, registry })
  const quiet = () => {}
  t.throws(() => resolveNode('95', { cacheDir, install, notify: quiet }),
    { constructor: ConfigError, message: /^--node 95: Node 95 cannot be had: the npm registry has no node-\w+-\w+@95 \((E404|ETARGET)\)$/ })
  t.throws(() => resolveNode('99.1.0', { cacheDir, install, notify: quiet }),
    /^--node 99\.1\.0: Node v99\.1\.0 cannot be had: the installed binary reports v99\.0\.0, not v99\.1\.0$/)
  t.same(fs.readdirSync(cacheDir), [])
})

// A registry (test/fixtures/fake-registry.js) of node-<os>-<arch> packages: version → the version its binary reports.
async function nodeRegistry (t, root, reports) {
  process.env.npm_config_cache = path.join(root, 'npm') // this test's own npm cache
  t.teardown(() => { delete process.env.npm_config_cache })
  const pkg = `node-${process.platform}-${process.arch}`
  const script = (version) => fs.readFileSync(fakeNode(path.join(root, 'bin', version), version), 'utf8')
  const versions = Object.fromEntries(Object.entries(reports).map(([version, says]) => [version.slice(1), {
    tarball: packTarball(path.join(root, `${version}.tgz`),
      { 'package.json': JSON.stringify({ name: pkg, version: version.slice(1) }), 'bin/node': script(says) })
  }]))
  return startRegistry(t, root, { [pkg]: versions })
}
