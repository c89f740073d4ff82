'use strict'
// Every way a delayfs mount ends leaves no mount and no daemon: unmount(), SIGTERM, the owner
// SIGKILLed or exiting, a busy mount, the daemon SIGKILLed (then cleanStaleMounts). Skips without FUSE.

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const t = require('tap')
const { checkFuse, mountDelayFs, cleanStaleMounts, delayfsMounts } = require('../../storage')
const { isMounted } = require('../../storage/stale')
const { mountFor, mountpointFor, waitUntil, gone } = require('../fixtures/storage-mount')

const skip = checkFuse() || false
const ROOT = path.join(__dirname, '..', '..')

function spawnNode (t, args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  const out = { stdout: '', stderr: '', child }
  child.stdout.setEncoding('utf8').on('data', (d) => { out.stdout += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { out.stderr += d })
  out.exit = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })))
  t.teardown(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'))
  return out
}

async function startOwner (t, mode) {
  const backing = t.testdir({ f: 'data' })
  const mountpoint = mountpointFor(t)
  const owner = spawnNode(t, [path.join(__dirname, '..', 'fixtures', 'storage-owner.js'), backing, mountpoint, mode])
  t.ok(await waitUntil(() => /ready \d+\n/.test(owner.stdout) || owner.child.exitCode !== null, 10000), owner.stderr)
  const daemonPid = Number(/ready (\d+)/.exec(owner.stdout)[1])
  t.teardown(() => { if (isMounted(mountpoint)) cleanStaleMounts(() => {}) })
  return { owner, mountpoint, daemonPid }
}

t.test('unmount() stops the daemon, removes the mount, returns the final counters, and is idempotent', { skip }, async (t) => {
  const mnt = await mountFor(t, { files: { f: 'data' } })
  t.equal(fs.readFileSync(mnt.file('f'), 'utf8'), 'data')
  const [first, second] = await Promise.all([mnt.unmount(), mnt.unmount()])
  t.match(first, { readBytes: 4, writes: 0, writeUs: 0 })
  t.ok(first.reads >= 1)
  t.equal(second, first)
  t.same(await mnt.unmount(), first)
  t.ok(gone(mnt.pid, mnt.mountpoint), 'no daemon, no mount')
  t.same(await mnt.exited, { code: 0, signal: null })
})

t.test('SIGTERM to the daemon unmounts; the handle still unmounts cleanly after', { skip }, async (t) => {
  const mnt = await mountFor(t, { files: { f: 'data' } })
  process.kill(mnt.pid, 'SIGTERM')
  t.same(await mnt.exited, { code: 0, signal: null })
  t.notOk(isMounted(mnt.mountpoint))
  t.match(await mnt.unmount(), { reads: 0, writes: 0 })
})

t.test('a busy mount (an open file, a cwd inside) still goes away on unmount()', { skip }, async (t) => {
  const mnt = await mountFor(t, { files: { f: 'data', sub: {} } })
  const fd = fs.openSync(mnt.file('f'), 'r')
  const sitter = spawn('sleep', ['30'], { cwd: mnt.file('sub'), stdio: 'ignore' })
  t.teardown(() => sitter.kill('SIGKILL'))
  await mnt.unmount()
  t.ok(gone(mnt.pid, mnt.mountpoint), 'no daemon, no mount')
  t.throws(() => fs.readSync(fd, Buffer.alloc(4), 0, 4, 0), 'the old fd no longer reaches the daemon')
  fs.closeSync(fd)
})

t.test('SIGKILL of the Node process that mounted it: the daemon unmounts and exits within 5 s', { skip }, async (t) => {
  const { owner, mountpoint, daemonPid } = await startOwner(t, 'wait')
  t.ok(isMounted(mountpoint))
  owner.child.kill('SIGKILL')
  t.same(await owner.exit, { code: null, signal: 'SIGKILL' })
  t.ok(await waitUntil(() => gone(daemonPid, mountpoint), 5000), 'no daemon, no mount')
})

t.test('a Node process that exits without unmounting leaves nothing: the exit hook cleans up', { skip }, async (t) => {
  const { owner, mountpoint, daemonPid } = await startOwner(t, 'exit')
  t.same(await owner.exit, { code: 0, signal: null })
  t.notOk(isMounted(mountpoint), 'no mount, right at exit')
  t.ok(await waitUntil(() => gone(daemonPid, mountpoint), 5000), 'and the killed daemon is gone')
})

t.test('SIGKILL of the daemon leaves a dead mount that cleanStaleMounts removes with one line, sparing live ones', { skip }, async (t) => {
  const dir = t.testdir({ live: { f: 'live' }, dead: { f: 'dead' } })
  const live = await mountFor(t, { backing: path.join(dir, 'live') })
  const dead = await mountFor(t, { backing: path.join(dir, 'dead') })
  process.kill(dead.pid, 'SIGKILL')
  t.same(await dead.exited, { code: null, signal: 'SIGKILL' })
  t.ok(isMounted(dead.mountpoint), 'the dead mount stays')
  t.throws(() => fs.readFileSync(dead.file('f')), { code: 'ENOTCONN' })
  const lines = []
  const cleaned = cleanStaleMounts((line) => lines.push(line))
  t.same(cleaned.filter((m) => m.mountpoint === dead.mountpoint),
    [{ mountpoint: dead.mountpoint, backing: dead.backing, ownerPid: process.pid, daemonPid: dead.pid }])
  t.same(lines.filter((l) => l.includes(dead.mountpoint)),
    [`unmounted a stale delayfs mount at ${dead.mountpoint} left by an earlier run (its daemon pid ${dead.pid} is gone)`])
  t.notOk(isMounted(dead.mountpoint))
  t.notOk(cleaned.some((m) => m.mountpoint === live.mountpoint), 'the live mount is not touched')
  t.equal(fs.readFileSync(live.file('f'), 'utf8'), 'live')
  t.ok(delayfsMounts().some((m) => m.mountpoint === live.mountpoint && m.daemonPid === live.pid))
  t.equal(await dead.unmount(), null, 'the handle of the killed daemon has no counters and unmounts quietly')
})

t.test('mountDelayFs reports a daemon that dies before mounting with its last stderr line', { skip }, async (t) => {
  const backing = t.testdir({})
  const mountpoint = mountpointFor(t)
  await t.rejects(mountDelayFs({ backing, mountpoint, ioDelay: 0, ioDepth: 20000, log: () => {} }),
    { message: `delayfs exited before mounting ${mountpoint} (exit code 2): delayfs: --depth must be <= 10000, got 20000` })
  t.notOk(isMounted(mountpoint))
})

t.test('a daemon that does not stop on SIGTERM is killed and its mount lazily removed', { skip }, async (t) => {
  const mountpoint = mountpointFor(t)
  const log = []
  const handle = await mountDelayFs({ backing: t.testdir({}), mountpoint, ioDelay: 0, log: (l) => log.push(l), stopTimeoutMs: 300 })
  t.teardown(() => handle.unmount())
  process.kill(handle.pid, 'SIGSTOP')
  t.equal(await handle.unmount(), null, 'no counters from a killed daemon')
  t.same(await handle.exited, { code: null, signal: 'SIGKILL' })
  t.same(log, [`delayfs ${mountpoint}: pid ${handle.pid} still running 300 ms after SIGTERM; sending SIGKILL`])
  t.ok(gone(handle.pid, mountpoint), 'no daemon, no mount')
})

t.test('the CLI mounts, prints the ready line, and on SIGTERM unmounts and prints the counters', { skip }, async (t) => {
  const backing = t.testdir({ f: 'data' })
  const mountpoint = mountpointFor(t)
  const cli = spawnNode(t, [path.join(ROOT, 'storage', 'index.js'), `--backing=${backing}`, `--mountpoint=${mountpoint}`, '--ioDelay=0'])
  t.ok(await waitUntil(() => cli.stdout.includes('\n') || cli.child.exitCode !== null, 10000), cli.stderr)
  const [, pid] = /^mounted \S+ pid=(\d+) ioDelay=0 ioDepth=64\n$/.exec(cli.stdout)
  t.equal(fs.readFileSync(path.join(mountpoint, 'f'), 'utf8'), 'data')
  cli.child.kill('SIGTERM')
  t.same(await cli.exit, { code: 0, signal: null })
  t.match(JSON.parse(cli.stdout.split('\n')[1]), { readBytes: 4, writes: 0 })
  t.ok(gone(Number(pid), mountpoint))
})

t.test('the CLI answers --help with 0 and a bad flag with 2 naming it', async (t) => {
  const cli = path.join(ROOT, 'storage', 'index.js')
  const help = spawnNode(t, [cli, '--help'])
  t.same(await help.exit, { code: 0, signal: null })
  t.match(help.stdout, /^usage: node storage\/cli.js --backing=DIR/)
  const bad = spawnNode(t, [cli, '--backing=/tmp', '--mountpoint=/tmp/x', '--ioDepth=0'])
  t.same(await bad.exit, { code: 2, signal: null })
  t.match(bad.stderr, /^storage: --ioDepth must be an integer >= 1, got 0\n/)
  const unknown = spawnNode(t, [cli, '--iodelay=5'])
  t.same(await unknown.exit, { code: 2, signal: null })
  t.match(unknown.stderr, /unknown or malformed flag --iodelay=5/)
})
