'use strict'
// The runtime dimension: what a --runtime value may be, how Bun and Deno are found in the cache or installed into it from
// an npm registry (a registry of our own on 127.0.0.1, the real npm), the tarball checked against the registry's integrity,
// and a runtime that cannot be had left out with one line. Run: npx tap test/lib/runtimes.test.js

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { ConfigError } = require('../../lib/config')
const { parseRuntimeSpec, resolveRuntime, runtimeLabel, splitId, cachedRuntimes, runtimeBinaryIn, RUNTIMES } = require('../../lib/install/runtime-specs')
const { installRuntime } = require('../../lib/install/node-install')
const { resolveRuntimes } = require('../../sweep/plan/runtimes')
const { packTarball, fakeRuntimeScript, startRegistry } = require('../fixtures/fake-registry')

const BUN = RUNTIMES.bun.pkg

t.test('a --runtime value is node, bun or deno with an optional @VERSION; anything else is refused with the forms', async (t) => {
  t.same(parseRuntimeSpec('node'), { text: 'node', name: 'node' })
  t.match(parseRuntimeSpec('node@26'), { name: 'node', node: { type: 'major', version: '26' } })
  t.match(parseRuntimeSpec('node@system'), { name: 'node', node: { type: 'system' } })
  t.same(parseRuntimeSpec('bun'), { text: 'bun', name: 'bun', range: '' })
  t.same(parseRuntimeSpec('bun@1.4'), { text: 'bun@1.4', name: 'bun', range: '1.4' })
  t.same(parseRuntimeSpec('deno@2.9.6'), { text: 'deno@2.9.6', name: 'deno', range: '2.9.6' })
  t.same(parseRuntimeSpec('deno@./bin/deno'), { text: 'deno@./bin/deno', name: 'deno', path: path.resolve('bin/deno') })
  for (const bad of ['', 'rust', 'bun@', 'bun@latest', 'Node', 'node@lts', 'deno@2.x', '@1.4', 'bun@1.4.5.6']) {
    t.throws(() => parseRuntimeSpec(bad), { message: /^must be node, bun or deno, each optionally @VERSION/ }, JSON.stringify(bad))
  }
})

t.test('a runtime id names the runtime and its version, in the report\'s words; an older folder\'s node column reads as Node', async (t) => {
  t.same(splitId('bun-1.4.5'), { name: 'bun', version: '1.4.5' })
  t.same(splitId('v24.21.0'), { name: 'node', version: 'v24.21.0' })
  t.equal(runtimeLabel('node-v26.10.0'), 'Node v26.10.0')
  t.equal(runtimeLabel('deno-2.9.6'), 'Deno 2.9.6')
})

t.test('Bun and Deno resolve to the newest cached version in their range, without the registry', async (t) => {
  const cacheDir = t.testdir()
  for (const [name, version] of [['bun', '1.4.4'], ['bun', '1.4.10'], ['bun', '1.3.9'], ['deno', '2.9.6']]) {
    const bin = runtimeBinaryIn(name, path.join(cacheDir, `${name}-${version}`))
    fs.mkdirSync(path.dirname(bin), { recursive: true })
    fs.writeFileSync(bin, fakeRuntimeScript(name, version), { mode: 0o755 })
  }
  fs.mkdirSync(path.join(cacheDir, 'bun-1.5.0')) // a folder without its binary is no version
  t.same(cachedRuntimes('bun', cacheDir).map((r) => r.version), ['1.4.10', '1.4.4', '1.3.9'])
  const install = () => { throw new Error('must not install') }
  t.match(resolveRuntime('bun', { cacheDir, install }), { id: 'bun-1.4.10', version: '1.4.10', source: 'cache', args: [], v8: '', node: 'v26.3.0' })
  t.match(resolveRuntime('bun@1.3', { cacheDir, install }), { id: 'bun-1.3.9' })
  t.match(resolveRuntime('deno@2', { cacheDir, install }), { id: 'deno-2.9.6', args: ['run', '-A'], v8: '15.0-fake' })
  t.throws(() => resolveRuntime('deno@3', { cacheDir }), { constructor: ConfigError, message: /^--runtime deno@3: no Deno 3 in / })
  const notBun = path.join(cacheDir, 'not-bun')
  fs.writeFileSync(notBun, fakeRuntimeScript('deno', '2.9.6'), { mode: 0o755 })
  t.throws(() => resolveRuntime(`bun@${notBun}`, { cacheDir }), /^--runtime bun@.*not-bun: .*not-bun is not a working Bun binary: /)
})

t.test('a runtime not in the cache is installed from the registry, its tarball checked against the registry\'s integrity', async (t) => {
  const root = t.testdir({ cache: {}, npm: {} })
  process.env.npm_config_cache = path.join(root, 'npm') // this test's own npm cache
  t.teardown(() => { delete process.env.npm_config_cache })
  const tarball = (version) => packTarball(path.join(root, `bun-${version}.tgz`),
    { 'package.json': JSON.stringify({ name: BUN, version }), 'bin/bun': fakeRuntimeScript('bun', version) })
  const evil = packTarball(path.join(root, 'evil.tgz'),
    { 'package.json': JSON.stringify({ name: BUN, version: '1.6.0' }), 'bin/bun': '#!/bin/sh\necho evil\n' })
  const registry = await startRegistry(t, root, {
    [BUN]: {
      '1.4.4': { tarball: tarball('1.4.4') },
      '1.4.5': { tarball: tarball('1.4.5') },
      '1.5.0': { tarball: tarball('1.5.0'), integrity: 'sha512-AAAA' },
      // A tampered 1.6.0 whose metadata npm reads vouches for it: only the project's own SHA-512 can refuse it.
      '1.6.0': { tarball: tarball('1.6.0'), served: evil }
    }
  })
  const cacheDir = path.join(root, 'cache')
  const lines = []
  const install = (name, range, how) => installRuntime(name, range, { ...how, registry })
  const got = resolveRuntime('bun@1.4', { cacheDir, install, notify: (l) => lines.push(l) })
  t.match(got, { id: 'bun-1.4.5', source: 'installed' })
  t.equal(got.path, runtimeBinaryIn('bun', path.join(cacheDir, 'bun-1.4.5')))
  t.match(lines, [/^--runtime bun@1\.4: not in .*; installing it from the npm registry$/, /^installing @oven\/bun-linux-\w+@1\.4\.5 into /])
  t.same(fs.readdirSync(cacheDir), ['bun-1.4.5'], 'no stage and no tarball left')
  t.same(installRuntime('bun', '1.4', { cacheDir, registry }), { version: '1.4.5', path: got.path, installed: false }, 'a second time it is there')
  // 1.5.0's packument says another digest than its tarball has, to npm too: npm refuses it, and nothing is kept.
  t.throws(() => installRuntime('bun', '1.5', { cacheDir, registry }), /EINTEGRITY/)
  t.same(fs.readdirSync(cacheDir), ['bun-1.4.5'])
  t.throws(() => installRuntime('bun', '1.6', { cacheDir, registry }), /^oven-bun-linux-\w+-1\.6\.0\.tgz does not match the registry's integrity \(sha512-/,
    'npm took the tampered tarball; the project\'s own hash did not')
  t.same(fs.readdirSync(cacheDir), ['bun-1.4.5'])
  t.throws(() => installRuntime('bun', '2', { cacheDir, registry }), /^the npm registry has no @oven\/bun-linux-\w+@2 \((E404|ETARGET)\)$/)
})

t.test('a Bun or Deno that cannot be had is left out with one line; a Node that cannot, or nothing left, is an error', async (t) => {
  const cacheDir = t.testdir()
  const lines = []
  const offline = () => { throw new Error('cannot reach the npm registry (ECONNREFUSED) for @oven/bun-linux-x64@*') }
  const got = resolveRuntimes(['node', 'bun', 'node'], { cacheDir, install: offline, notify: (l) => lines.push(l) })
  t.same(got.map((r) => r.id), [`node-${process.version}`])
  t.match(lines.filter((l) => /skipped/.test(l)), [/^skipped --runtime bun: Bun cannot be had: cannot reach the npm registry \(ECONNREFUSED\)/],
    'one line says it is skipped, and why')
  t.match(lines.at(-1), /^--runtime node is the same as node /)
  t.throws(() => resolveRuntimes(['deno'], { cacheDir, install: offline, notify: () => {} }),
    { constructor: ConfigError, message: /^--runtime deno: Deno cannot be had/ })
  t.throws(() => resolveRuntimes(['node@97'], { cacheDir, install: offline, notify: () => {} }), /^--runtime node@97: Node 97 cannot be had/)
})
