'use strict'
// `node client` against a server in the historic style (test/fixtures/historic-server.js: chunked
// answers, no telemetry, dies on a URL without a query): it runs to the end and leaves the server
// up; told to ask for telemetry, it kills it and says so once; an overwriting server fails verification.

const t = require('tap')
const http = require('node:http')
const { parse } = require('csv-parse/sync')
const { startHistoricServer } = require('../fixtures/historic-server')
const { runClient } = require('../fixtures/client')

const FLAGS = ['--nOperations=300', '--nClients=2', '--concurrency=2', '--readsPerWrite=3', '--nFiles=5', '--warmup=10']

const get = (port) => new Promise((resolve, reject) => {
  http.get({ host: '127.0.0.1', port, path: '/get?key=file-0', agent: false }, (res) => {
    res.resume()
    res.on('end', () => resolve({ status: res.statusCode, chunked: res.headers['transfer-encoding'] === 'chunked' }))
  }).on('error', reject)
})

t.test('a historic-style server is measured to the end: exit 0, a full CSV, every write verified, and it is still up', async (t) => {
  const dataPath = t.testdir()
  const server = await startHistoricServer(t, dataPath)
  const { code, stdout, stderr, report } = await runClient(t, dataPath, [`--serverPort=${server.port}`, `--dataPath=${dataPath}`, ...FLAGS])
  t.equal(code, 0, stderr)
  const rows = parse(stdout, { columns: true })
  t.same(rows.map((r) => r['PUT/GET']), ['PUT process 1', 'GET process 1', 'PUT process 2', 'GET process 2', 'PUT all', 'GET all'])
  t.equal(Number(rows[4].Count) + Number(rows[5].Count), 300, 'every operation succeeded and was timed')
  t.match(report, { ok: true, errorCount: 0, reconnects: 0, serverStats: null, verification: { checked: true, ok: true, lost: 0 } })
  t.same(report.problems, ['server stats: not asked: its warm-up answers did not carry an X-Bench-Stats field (--serverStats=true asks anyway)'])
  t.equal(server.exited, null, 'the server was not killed')
  t.same(await get(server.port), { status: 200, chunked: true }, 'and it still answers, chunked')
})

t.test('without --dataPath its files are not looked for in the project\'s own folder: the run passes and says so', async (t) => {
  const dataPath = t.testdir()
  const server = await startHistoricServer(t, dataPath)
  const { code, stderr, report } = await runClient(t, dataPath, [`--serverPort=${server.port}`, ...FLAGS])
  t.equal(code, 0, stderr)
  t.match(report.verification, {
    checked: false,
    reason: /^not done: the server did not announce itself as one of this project's, and dataPath is this project's own folder .*--dataPath=ITS_DATA_FOLDER/
  })
  t.match(stderr, /\n {2}verification: not done: /)
})

t.test('--serverStats=true against it: the server dies at the reset, and the client tells that once as the cause', async (t) => {
  const dataPath = t.testdir()
  const server = await startHistoricServer(t, dataPath)
  const { code, stderr, report } = await runClient(t, dataPath, [`--serverPort=${server.port}`, `--dataPath=${dataPath}`, '--serverStats=true', ...FLAGS])
  t.equal(code, 1)
  t.not(server.exited, null, 'the reset killed it')
  t.match(server.stderr, /TypeError/)
  t.equal(report.operations.completed, 0)
  // A connection still open when it died may be reset (or broken, EPIPE) under a request sent on it
  // before the client saw it close; the others are refused.
  const errors = { ...report.errors.GET }
  for (const [kind, n] of Object.entries(report.errors.PUT)) errors[kind] = (errors[kind] || 0) + n
  const gone = ['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].reduce((sum, kind) => sum + (errors[kind] || 0), 0)
  t.ok(errors.ECONNREFUSED > 0 && gone === 300, `every measured operation found it gone: ${JSON.stringify(errors)}`)
  t.equal(report.problems.length, 1, 'one line, not one per failure nor a telemetry failure besides')
  t.match(report.problems[0],
    new RegExp(`^server: 127\\.0\\.0\\.1:${server.port} went away during the run .*after a POST to its telemetry reset that it did not answer`))
  t.equal(stderr.split('went away').length - 1, 1, 'told once on stderr')
})

t.test('a server that dies mid-run: the client says once that it went away, as the cause of the failures', async (t) => {
  const dataPath = t.testdir()
  const server = await startHistoricServer(t, dataPath, { dieAfter: 100 })
  const { code, stderr, report } = await runClient(t, dataPath, [`--serverPort=${server.port}`, `--dataPath=${dataPath}`, ...FLAGS])
  t.equal(code, 1)
  t.same(server.exited, { code: 1, signal: null })
  t.ok(report.errorCount > 100, `${report.errorCount} operations failed`)
  t.same(report.problems, [`server: 127.0.0.1:${server.port} went away during the run (it refuses connections now): ` +
    'the failed operations are its absence, not its speed'], 'one line: no telemetry line besides')
  t.equal(stderr.split('went away').length - 1, 1, 'told once on stderr')
})

t.test('a server that overwrites instead of appending shows as failed verification, not as speed', async (t) => {
  const dataPath = t.testdir()
  const server = await startHistoricServer(t, dataPath, { overwrite: true })
  const { code, stdout, stderr, report } = await runClient(t, dataPath, [`--serverPort=${server.port}`, `--dataPath=${dataPath}`, ...FLAGS])
  t.equal(code, 1)
  t.equal(report.errorCount, 0, 'every request was answered success')
  t.equal(parse(stdout, { columns: true }).length, 6, 'the CSV is still written')
  const v = report.verification
  t.match(v, { checked: true, ok: false, duplicated: 0, torn: 0, unknown: 0 })
  t.equal(v.records, 5, 'one record left per file')
  t.equal(v.lost, v.acknowledged - 5, 'every other acknowledged write is lost')
  t.match(stderr, new RegExp(`verification: 5 records in 5 files, ${v.acknowledged} acknowledged: ${v.lost} lost`))
  t.match(stderr, /client: FAILED\n$/)
})
