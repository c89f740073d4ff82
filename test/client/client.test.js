'use strict'
// `node client` against the four real servers: the CSV and JSON add up, the figures are ordered,
// the merged rows are exact combinations of the process rows, and every write is verified.

const t = require('tap')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { parse } = require('csv-parse/sync')
const { KINDS, startServer } = require('../fixtures/server')
const { runClient } = require('../fixtures/client')
const workload = require('../../lib/workload')

const CONFIG = { nOperations: 301, nClients: 2, readsPerWrite: 3, nFiles: 7, warmup: 20, concurrency: 2 }
const FLAGS = Object.entries(CONFIG).map(([key, value]) => `--${key}=${value}`)

// PUTs process p makes, measured and in warm-up.
function putsOf (p) {
  const count = (n, opAt) => Array.from({ length: n }, (_, i) => opAt(i, CONFIG, p)).filter((op) => op.type === 'PUT').length
  return {
    measured: count(workload.operationCount(CONFIG, p), workload.operationAt),
    warmup: count(workload.warmupCount(CONFIG, p), workload.warmupOperationAt)
  }
}

function checkRun (t, { code, stdout, stderr, report }) {
  t.equal(code, 0, 'exit 0')
  t.match(stderr, /client: OK\n$/)
  const rows = parse(stdout, { columns: true, cast: (v, ctx) => ctx.header || ctx.column === 'PUT/GET' ? v : Number(v) })
  t.same(rows.map((r) => r['PUT/GET']), ['PUT process 1', 'GET process 1', 'PUT process 2', 'GET process 2', 'PUT all', 'GET all'])
  for (const r of rows) {
    const s = `${r['PUT/GET']}: `
    t.ok(r.Min <= r.p50 && r.p50 <= r.p90 && r.p90 <= r.p99 && r.p99 <= r['p99.9'] && r['p99.9'] <= r.Max, `${s}min <= p50 <= p90 <= p99 <= p99.9 <= max`)
    t.ok(r.Min <= r.Mean && r.Mean <= r.Max, `${s}min <= mean <= max`)
    t.ok(Math.abs(r['101% of Mean'] - r.Mean * 1.01) < 0.01, `${s}101% of mean`)
    t.equal(r.Errors, 0)
  }
  for (const [k, type] of [[0, 'PUT'], [1, 'GET']]) {
    const [p1, p2, all] = [rows[k], rows[k + 2], rows[k + 4]]
    t.equal(all.Count, p1.Count + p2.Count, `${type}: counts add up`)
    t.equal(all.Min, Math.min(p1.Min, p2.Min), `${type}: merged min`)
    t.equal(all.Max, Math.max(p1.Max, p2.Max), `${type}: merged max`)
    const weighted = (p1.Mean * p1.Count + p2.Mean * p2.Count) / all.Count
    t.ok(Math.abs(all.Mean - weighted) < 0.01, `${type}: merged mean ${all.Mean} is the weighted mean ${weighted}`)
  }
  t.equal(rows[4].Count + rows[5].Count, CONFIG.nOperations, 'all operations counted')
  t.equal(rows[0].Count, putsOf(1).measured, 'process 1 made the PUTs of the workload')
  t.equal(rows[2].Count, putsOf(2).measured, 'process 2 made the PUTs of the workload')

  t.match(report, {
    tool: 'client', mode: 'closed', ok: true, errorCount: 0, targetRate: null, achievedRate: null, rateShortfall: false,
    operations: { planned: CONFIG.nOperations, completed: CONFIG.nOperations, failed: 0 },
    env: { node: process.version, cpus: Number, cpuModel: String, platform: String, release: String, totalMemBytes: Number, uvThreadpoolSize: Number },
    processes: [{ index: 1, pid: Number, cpuUs: { user: Number, system: Number } }, { index: 2 }],
    latency: { GET: { count: rows[5].Count, min: rows[5].Min, max: rows[5].Max, p99: rows[5].p99 } }
  })
  t.ok(report.throughput > 0 && report.wallTimeMs > 0)
  const puts = putsOf(1).measured + putsOf(1).warmup + putsOf(2).measured + putsOf(2).warmup
  t.match(report.verification, { checked: true, ok: true, records: puts, acknowledged: puts, lost: 0, duplicated: 0, torn: 0, unknown: 0 })
  return rows
}

for (const kind of KINDS) {
  t.test(`against the ${kind} server the CSV and JSON add up and every write is there`, async (t) => {
    const dataPath = t.testdir()
    const server = await startServer(t, kind, { dataPath })
    const args = [`--serverPort=${server.port}`, `--dataPath=${dataPath}`, ...FLAGS]
    checkRun(t, await runClient(t, dataPath, args))
    if (kind !== 'sync') return
    const again = await runClient(t, dataPath, args)
    checkRun(t, again)
    const lines = fs.readdirSync(dataPath).filter((f) => f.startsWith('file-'))
      .reduce((n, f) => n + fs.readFileSync(path.join(dataPath, f), 'utf8').split('\n').length - 1, 0)
    t.equal(lines, 2 * again.report.verification.records, 'a second run verifies only its own records')
  })
}

t.test('--out writes the CSV to a file, --verify=false skips verification', async (t) => {
  const dataPath = t.testdir()
  const server = await startServer(t, 'async', { dataPath })
  const out = path.join(dataPath, 'out.csv')
  const run = await runClient(t, dataPath, [`--serverPort=${server.port}`, '--dataPath=/nonexistent', '--verify=false', `--out=${out}`, '--nOperations=20'])
  t.equal(run.code, 0)
  t.equal(run.stdout, '')
  t.match(fs.readFileSync(out, 'utf8'), /^PUT\/GET,Min,Mean,101% of Mean,Max,/)
  t.same(run.report.verification, { checked: false, reason: 'skipped (--verify=false)' })
  t.match(run.stderr, /verification: skipped/)
})

t.test('bad flags and an unreadable data folder exit 2 with one line, before any load', async (t) => {
  const dir = t.testdir()
  for (const [flag, message] of [
    ['--nClients=0', /nClients must be an integer from 1 to 256, got "0"/],
    ['--bogus=1', /unknown flag --bogus/],
    ['--getBody=raw', /getBody must be one of sorted, bytes, got "raw"/],
    ['--out=/nonexistent/x.csv', /--out must be in a writable folder/],
    ['--dataPath=/nonexistent', /dataPath \/nonexistent is not a readable folder .*--verify=false/]
  ]) {
    const run = await runClient(t, dir, ['--serverPort=1', flag])
    t.equal(run.code, 2, flag)
    t.match(run.stderr, message)
    t.equal(run.stderr.split('\n').length, 2, 'one line')
    t.equal(run.stdout, '')
  }
})

t.test('a server that is not there: the client says so in one line and exits 1, before any load', async (t) => {
  const dir = t.testdir()
  const port = await new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
  const run = await runClient(t, dir, [`--serverPort=${port}`, `--dataPath=${dir}`])
  t.equal(run.code, 1)
  // The refusal itself, not the probe's 3 s connect timeout, is the reason it gives.
  t.equal(run.stderr, `client: cannot reach the server at 127.0.0.1:${port}: ECONNREFUSED\n`, 'one line naming the refusal')
  t.equal(run.stdout, '', 'no CSV')
  t.equal(run.report, null, 'no JSON: it stopped before the run')
  // It gives up at once (0.2 s here, Node's start included): the bound, fifty times that, only catches a client
  // that retries a refused connection instead of saying so.
  t.ok(run.ms < 10000, `done in ${run.ms} ms`)
})
