'use strict'
// A full disk (a 256 KiB tmpfs as dataPath) under `node client`, on all four servers: PUTs get
// 507, GETs keep working, no acknowledged write is lost, no record is torn, the log says it in a
// few lines, and PUTs succeed again when space returns, without a restart.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { KINDS, startServer, stopChild, request } = require('../fixtures/server')
const { runClient } = require('../fixtures/client')
const { mountTmpfs, fillDisk } = require('../fixtures/tmpfs')
const { KINDS: KINDS_TABLE } = require('../../lib/kinds')

// 12 free pages: 10 files take a page each at warm-up, the rest fills within the measured PUTs.
const FREE = 12 * 4096
// Larger than a page: it cannot fit in what is left of a file's last page.
const BIG = `${'x'.repeat(5000)}\n`
const CLIENT = ['--nOperations=2000', '--readsPerWrite=1', '--nClients=2', '--nFiles=10', '--warmup=20']

const snapshot = (dir) => Object.fromEntries(fs.readdirSync(dir).sort().map((f) => [f, fs.readFileSync(path.join(dir, f))]))

for (const kind of KINDS) {
  const cluster = KINDS_TABLE[kind].model !== 'single' // cluster or reuseport processes, or pool threads, appending to shared files
  t.test(`${kind}: a full disk answers 507, loses nothing, tears nothing, and logs a few lines`, async (t) => {
    const disk = mountTmpfs(t)
    if (!disk) return
    const ballast = fillDisk(disk, FREE)
    const startedAt = Date.now()
    const srv = await startServer(t, kind, { dataPath: disk })
    const { code, report } = await runClient(t, t.testdir(), [`--serverPort=${srv.port}`, `--dataPath=${disk}`, ...CLIENT])
    t.equal(code, 1, 'exit 1: some operations failed')
    t.equal(report.warmup.failed, 0, 'the warm-up fitted')
    t.same(Object.keys(report.errors.PUT), ['http-507'], 'every failed PUT is a 507')
    t.ok(report.errors.PUT['http-507'] > 50, `${report.errors.PUT['http-507']} PUTs answered 507`)
    t.same(report.errors.GET, {}, 'GETs keep working')
    const v = report.verification
    t.match(v, { lost: 0, duplicated: 0, torn: 0, unknown: 0 }, 'nothing acknowledged lost, nothing torn')
    t.equal(v.bytes, v.expectedBytes, 'every byte accounted for')
    if (cluster) t.ok(v.blank <= 10, `at most one blanked partial record per file (${v.blank})`)
    else t.equal(v.blank, 0, 'one process: partial records are truncated away, never blanked')

    const before = snapshot(disk)
    const refused = await request(srv, { method: 'POST', path: '/put?key=file-0', body: BIG })
    t.equal(refused.status, 507)
    t.equal(refused.body, 'insufficient storage\n', 'no path, no fs message')
    if (!cluster) t.same(snapshot(disk), before, 'a failed PUT leaves the data folder byte-identical')

    fs.rmSync(ballast)
    const again = await request(srv, { method: 'POST', path: '/put?key=file-0', body: 'space is back\n' })
    t.equal(again.status, 200, 'space back: PUTs succeed without a restart')
    t.match(fs.readFileSync(path.join(disk, 'file-0'), 'utf8'), /\nspace is back\n$/)

    await stopChild(srv)
    const lines = srv.stderr.split('\n').filter(Boolean)
    // Fewer than 5; one more per 10 s only if a very loaded machine makes the run that long.
    const bound = Math.max(4, 2 + Math.ceil((Date.now() - startedAt) / 10000))
    t.ok(lines.length <= bound, `${lines.length} log lines (at most ${bound}):\n${srv.stderr}`)
    t.match(lines[0], /PUT failed: disk full \(ENOSPC\)/)
    t.notMatch(srv.stderr, /\n\s+at /, 'no stack trace')
    const told = lines.slice(1).map((l) => Number(/PUT ENOSPC: (\d+) more failure/.exec(l)?.[1] ?? 0))
    t.equal(1 + told.reduce((a, b) => a + b, 0), report.errors.PUT['http-507'] + 1, 'the counts add up to every 507')
  })
}
