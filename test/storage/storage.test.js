'use strict'
// delayfs through its Node module: the delay is applied where a device would be asked (reads, fsync, durable
// writes) and follows the depth, the depth cap holds, appends from several processes stay whole, errors pass
// through, bad mountpoints are refused. Skips without FUSE.

const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const t = require('tap')
const { checkFuse, mountDelayFs, delayfsMounts, buildDelayFs } = require('../../storage')
const { mountFor, elapsedMs } = require('../fixtures/storage-mount')

const reason = checkFuse()
const skip = reason || false

function readSequentially (file, n) {
  const fd = fs.openSync(file, 'r')
  const buf = Buffer.alloc(64)
  for (let i = 0; i < n; i++) fs.readSync(fd, buf, 0, 64, 0)
  fs.closeSync(fd)
}

t.test('every read waits ioDelay µs: N reads take at least N delays, by the clock and by the counters', { skip }, async (t) => {
  const N = 50
  const slow = await mountFor(t, { ioDelay: 2000, files: { f: 'x'.repeat(64) } })
  const wallMs = await elapsedMs(() => readSequentially(slow.file('f'), N))
  const delayed = await slow.stats()
  t.ok(wallMs >= N * 2, `${N} reads took ${wallMs.toFixed(1)} ms`)
  t.equal(delayed.reads, N)
  t.equal(delayed.readBytes, N * 64)
  t.ok(delayed.readUs / delayed.reads >= 2000, `mean read ${delayed.readUs / delayed.reads} µs`)

  const fast = await mountFor(t, { ioDelay: 0, files: { f: 'x'.repeat(64) } })
  readSequentially(fast.file('f'), N)
  const plain = await fast.stats()
  t.equal(plain.reads, N)
  t.ok(plain.readUs / plain.reads < delayed.readUs / delayed.reads, `mean read without delay ${plain.readUs / plain.reads} µs`)
})

t.test('a read at the end of a file reads no block: it waits for nothing and is not counted, as Bun\'s and Deno\'s last read', { skip }, async (t) => {
  const N = 50
  const slow = await mountFor(t, { ioDelay: 20000, files: { f: 'x'.repeat(64) } })
  const fd = fs.openSync(slow.file('f'), 'r')
  t.teardown(() => fs.closeSync(fd))
  const buf = Buffer.alloc(64)
  let got = -1
  const wallMs = await elapsedMs(() => { for (let i = 0; i < N; i++) got = fs.readSync(fd, buf, 0, 64, 64) })
  t.equal(got, 0, 'end of file')
  t.ok(wallMs < N * 20 / 4, `${N} reads at the end took ${wallMs.toFixed(1)} ms, not ${N} delays of 20 ms`)
  t.same(await slow.stats(), { ...await slow.stats(), reads: 0, readBytes: 0 }, 'no device read counted')
  t.equal(fs.readSync(fd, buf, 0, 64, 0), 64)
  t.equal((await slow.stats()).reads, 1, 'a read of data is one')
})

t.test('a buffered write asks no device: it waits for nothing, and is counted with its bytes', { skip }, async (t) => {
  const mnt = await mountFor(t, { ioDelay: 2000000 })
  const fd = fs.openSync(mnt.file('w'), 'w')
  const wallMs = await elapsedMs(() => { for (let i = 0; i < 5; i++) fs.writeSync(fd, 'abcd') })
  fs.closeSync(fd)
  const counters = await mnt.stats()
  t.match(counters, { writes: 5, writeBytes: 20, delayUs: 0, peakDepth: 0 }, 'no write took the device')
  t.ok(wallMs < 2000, `5 writes took ${wallMs.toFixed(1)} ms, not one delay of 2 s`)
  t.equal(fs.readFileSync(path.join(mnt.backing, 'w'), 'utf8'), 'abcd'.repeat(5))
})

t.test('fsync, fdatasync and each write on an O_DSYNC or O_SYNC file wait the delay, as a device\'s flush', { skip }, async (t) => {
  const mnt = await mountFor(t, { ioDelay: 100000 })
  const { O_WRONLY, O_CREAT, O_DSYNC, O_SYNC } = fs.constants
  const fd = fs.openSync(mnt.file('w'), 'w')
  fs.writeSync(fd, 'ab')
  const syncMs = await elapsedMs(() => fs.fsyncSync(fd))
  const dataSyncMs = await elapsedMs(() => fs.fdatasyncSync(fd))
  fs.closeSync(fd)
  t.ok(syncMs >= 100 && dataSyncMs >= 100, `fsync ${syncMs.toFixed(1)} ms, fdatasync ${dataSyncMs.toFixed(1)} ms`)
  t.match(await mnt.stats(), { writes: 1, syncs: 2, delayUs: 200000 })
  for (const [name, flag] of [['dsync', O_DSYNC], ['sync', O_SYNC]]) {
    const durable = fs.openSync(mnt.file(name), O_WRONLY | O_CREAT | flag)
    const writeMs = await elapsedMs(() => fs.writeSync(durable, name))
    fs.closeSync(durable)
    t.ok(writeMs >= 100, `a write on an O_${name.toUpperCase()} file took ${writeMs.toFixed(1)} ms`)
    t.equal(fs.readFileSync(path.join(mnt.backing, name), 'utf8'), name)
  }
  t.match(await mnt.stats(), { writes: 3, syncs: 2, delayUs: 400000 }, 'one delay per durable write, no flush besides')
})

const files = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}`, `file ${i}\n`]))
const readAll = (mnt) => Promise.all(Object.keys(files).map((name) => fs.promises.readFile(mnt.file(name), 'utf8')))

// Overlap is asserted by the daemon's peak of ops in service, not by wall time: under load the
// opens and stats around each read can take as long as the reads.
t.test('with ioDepth 8, concurrent reads are served at once', { skip }, async (t) => {
  const mnt = await mountFor(t, { ioDelay: 50000, ioDepth: 8, files })
  const wallMs = await elapsedMs(async () => t.same(await readAll(mnt), Object.values(files)))
  const counters = await mnt.stats()
  t.ok(counters.reads >= 8)
  t.ok(counters.peakDepth >= 2 && counters.peakDepth <= 8, `peakDepth ${counters.peakDepth}`)
  t.ok(counters.readUs >= counters.reads * 50000, 'each read was delayed')
  t.equal(counters.delayUs, counters.reads * 50000, 'no QD4 latency given: the one delay at every depth')
  t.comment(`8 reads of 50 ms took ${wallMs.toFixed(1)} ms (libuv's pool has 4 threads)`)
})

// The documented rule: ioDelay with one call in service, ioDelayQd4 with 4 or more, linear between.
const delayAt = (depth, qd1, qd4) => (depth <= 1 ? qd1 : depth >= 4 ? qd4 : qd1 + Math.trunc((qd4 - qd1) * (depth - 1) / 3))

t.test('with a QD4 latency each read waits the latency of the depth it finds: QD1 alone, more with others in flight', { skip }, async (t) => {
  const [qd1, qd4] = [2000, 60000]
  const mnt = await mountFor(t, { ioDelay: qd1, ioDelayQd4: qd4, ioDepth: 8, files })
  readSequentially(mnt.file('f0'), 10)
  const alone = await mnt.stats()
  t.match(alone, { reads: 10, delayUs: 10 * qd1, peakDepth: 1 }, 'one at a time: the QD1 latency each')
  t.same(await readAll(mnt), Object.values(files))
  const all = await mnt.stats()
  const [reads, delayUs] = [all.reads - alone.reads, all.delayUs - alone.delayUs]
  t.ok(all.peakDepth >= 2, `peakDepth ${all.peakDepth}`)
  t.ok(delayUs >= (reads - 1) * qd1 + delayAt(all.peakDepth, qd1, qd4),
    `${reads} concurrent reads were given ${delayUs} µs: the read that found depth ${all.peakDepth} waited ${delayAt(all.peakDepth, qd1, qd4)}`)
  t.ok(all.readUs - alone.readUs >= delayUs, 'and waited it')
})

t.test('with ioDepth 1, concurrent reads are served one after another', { skip }, async (t) => {
  const mnt = await mountFor(t, { ioDelay: 20000, ioDepth: 1, files })
  const wallMs = await elapsedMs(async () => t.same(await readAll(mnt), Object.values(files)))
  const counters = await mnt.stats()
  t.ok(wallMs >= 8 * 20, `8 reads took ${wallMs.toFixed(1)} ms`)
  t.equal(counters.peakDepth, 1)
  t.ok(counters.waitUs > 0, 'some reads queued for the one slot')
})

function runAppender (file, id, mode) {
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'fixtures', 'storage-appender.js'), file, id, '500', mode],
    { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d) => { stderr += d })
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })))
}

t.test('appends from 4 processes through the mount leave every record exactly once and whole', { skip }, async (t) => {
  const mnt = await mountFor(t, { ioDelay: 100, ioDepth: 4 })
  const ids = ['a', 'b', 'c', 'd']
  const results = await Promise.all(ids.map((id, i) => runAppender(mnt.file('log'), id, i % 2 ? 'append' : 'fd')))
  t.same(results, ids.map(() => ({ code: 0, stderr: '' })))
  const lines = fs.readFileSync(path.join(mnt.backing, 'log'), 'utf8').split('\n')
  t.equal(lines.pop(), '', 'ends with a newline')
  const seen = new Set()
  const bad = lines.filter((line) => {
    const m = /^([a-d]):(\d+):(x*)$/.exec(line)
    if (!m || m[3].length !== (Number(m[2]) * 37) % 3000 || seen.has(`${m[1]}:${m[2]}`)) return true
    seen.add(`${m[1]}:${m[2]}`)
    return false
  })
  t.same(bad, [], 'no torn or repeated record')
  t.equal(seen.size, 2000, 'every record is there')
  t.ok((await mnt.stats()).writes >= 2000)
})

t.test('errors pass through: ELOOP on a symlink with O_NOFOLLOW, EISDIR, ENOENT', { skip }, async (t) => {
  const mnt = await mountFor(t, { files: { target: 'data', link: t.fixture('symlink', 'target'), sub: {} } })
  const { O_RDONLY, O_NOFOLLOW } = fs.constants
  t.ok(fs.lstatSync(mnt.file('link')).isSymbolicLink(), 'a symlink shows as a symlink')
  t.equal(fs.readFileSync(mnt.file('link'), 'utf8'), 'data', 'and is followed without O_NOFOLLOW')
  t.throws(() => fs.openSync(mnt.file('link'), O_RDONLY | O_NOFOLLOW), { code: 'ELOOP' })
  t.throws(() => fs.readFileSync(mnt.file('sub')), { code: 'EISDIR' })
  t.throws(() => fs.openSync(mnt.file('missing'), O_RDONLY | O_NOFOLLOW), { code: 'ENOENT' })
  t.same(fs.readdirSync(mnt.mountpoint).sort(), ['link', 'sub', 'target'])
})

t.test('file operations pass through to the backing folder', { skip }, async (t) => {
  const mnt = await mountFor(t, { files: { a: 'abc' } })
  const backing = (name) => path.join(mnt.backing, name)
  fs.mkdirSync(mnt.file('d'))
  fs.renameSync(mnt.file('a'), mnt.file('d/b'))
  t.equal(fs.readFileSync(backing('d/b'), 'utf8'), 'abc')
  fs.truncateSync(mnt.file('d/b'), 1)
  fs.chmodSync(mnt.file('d/b'), 0o600)
  fs.utimesSync(mnt.file('d/b'), 1000, 2000)
  const st = fs.statSync(backing('d/b'))
  t.match(st, { size: 1, mode: 0o100600, mtimeMs: 2000000 })
  fs.symlinkSync('d/b', mnt.file('s'))
  t.equal(fs.readlinkSync(backing('s')), 'd/b')
  t.equal(fs.readFileSync(mnt.file('s'), 'utf8'), 'a')
  fs.writeFileSync(mnt.file('new'), 'fresh', { flag: 'wx' })
  t.throws(() => fs.writeFileSync(mnt.file('new'), 'again', { flag: 'wx' }), { code: 'EEXIST' })
  const fd = fs.openSync(mnt.file('new'), 'r+')
  fs.fsyncSync(fd)
  fs.ftruncateSync(fd, 2)
  t.equal(fs.fstatSync(fd).size, 2)
  fs.closeSync(fd)
  t.equal(fs.readFileSync(backing('new'), 'utf8'), 'fr')
  fs.unlinkSync(mnt.file('d/b'))
  fs.rmdirSync(mnt.file('d'))
  t.same(fs.readdirSync(mnt.backing).sort(), ['new', 's'])
  t.ok(fs.statfsSync(mnt.mountpoint).blocks > 0)
})

t.test('a mountpoint that is not empty or already mounted is refused and nothing is mounted', { skip }, async (t) => {
  const dir = t.testdir({ backing: {}, full: { keep: 'me' }, mnt: {} })
  const at = (name) => path.join(dir, name)
  await t.rejects(mountDelayFs({ backing: at('backing'), mountpoint: at('full'), ioDelay: 0 }),
    { message: `mountpoint ${at('full')} is not empty (1 entries): the mount would hide them` })
  t.notOk(delayfsMounts().some((m) => m.mountpoint === at('full')))
  const mnt = await mountFor(t, { backing: at('backing') })
  await t.rejects(mountDelayFs({ backing: at('backing'), mountpoint: mnt.mountpoint, ioDelay: 0 }),
    { message: new RegExp(`^mountpoint ${mnt.mountpoint} is already a mount point \\(fuse\\.delayfs from delayfs:`) })
  t.equal(delayfsMounts().filter((m) => m.mountpoint === mnt.mountpoint).length, 1, 'still one mount there')
  await t.rejects(mountDelayFs({ backing: at('nope'), mountpoint: at('mnt'), ioDelay: 0 }),
    { message: `backing folder ${at('nope')} does not exist or is not a folder` })
  await t.rejects(mountDelayFs({ backing: at('backing'), mountpoint: at('mnt'), ioDelay: 1.5 }), TypeError)
  await t.rejects(mountDelayFs({ backing: at('backing'), mountpoint: at('mnt'), ioDelay: 0, ioDepth: 0 }), TypeError)
  t.notOk(delayfsMounts().some((m) => m.mountpoint === at('mnt')))
})

t.test('the daemon refuses bad arguments with exit 2 naming them', { skip }, async (t) => {
  const bin = buildDelayFs()
  const res = spawnSync(bin, ['/tmp', '/tmp', '--depth=0'], { encoding: 'utf8' })
  t.equal(res.status, 2)
  t.match(res.stderr, /--depth must be an integer >= 1, got '0'/)
  t.match(spawnSync(bin, ['/tmp'], { encoding: 'utf8' }).stderr, /BACKING and MOUNTPOINT are required/)
  t.match(spawnSync(bin, ['/tmp', '/tmp', '--delay-qd4-us=-1'], { encoding: 'utf8' }).stderr, /--delay-qd4-us must be an integer >= 0, got '-1'/)
})

t.test('checkFuse names fusermount3 when it is not on the PATH', async (t) => {
  const bin = t.testdir({ 'pkg-config': '' })
  t.match(checkFuse({ PATH: bin }), /^(fusermount3 is not on the PATH|\/dev\/fuse ).*run_benchmark.sh setup, or apt-get install -y fuse3/)
  if (!reason) t.equal(checkFuse(process.env), null)
})
