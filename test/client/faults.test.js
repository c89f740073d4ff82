'use strict'
// `node client` against servers that misbehave on purpose: every failure is counted by kind,
// never timed, the run finishes and exits 1, and writes acknowledged but dropped are lost.

const t = require('tap')
const { startBadServer } = require('../fixtures/bad-server')
const { runClient } = require('../fixtures/client')

const FLAGS = ['--nClients=2', '--readsPerWrite=2', '--nFiles=5']

async function run (t, misbehave, flags) {
  const dataPath = t.testdir()
  const server = await startBadServer(t, { dataPath, misbehave })
  const result = await runClient(t, dataPath, [`--serverPort=${server.port}`, `--dataPath=${dataPath}`, ...FLAGS, ...flags])
  t.equal(result.code, 1, 'exit 1')
  t.match(result.stderr, /client: FAILED\n$/)
  return { ...result, counts: server.counts }
}

t.test('a server that answers some requests with 500: each is counted as http-500, never timed', async (t) => {
  const { report, counts } = await run(t, (req, n) => n % 7 === 0 ? 'error' : undefined, ['--nOperations=300', '--warmup=20'])
  t.ok(counts.error > 30)
  t.same(Object.keys({ ...report.errors.GET, ...report.errors.PUT }), ['http-500'])
  t.equal(report.errorCount + report.warmup.failed, counts.error, 'every 500 counted once')
  t.equal(report.operations.completed + report.operations.failed, 300, 'the loop went on after each failure')
  t.equal(report.latency.GET.count + report.latency.PUT.count, 300 - report.errorCount, 'failures are not timed')
  t.equal(report.latency.PUT.errors, report.errors.PUT['http-500'])
  t.match(report.verification, { ok: true, lost: 0, unknown: 0 }, 'a failed PUT is neither lost nor unknown')
  t.equal(report.ok, false)
})

t.test('a server that never answers: every request times out and the client still finishes', async (t) => {
  const { report, counts } = await run(t, () => 'hang', ['--nOperations=6', '--warmup=0', '--timeout=300'])
  t.equal(counts.hang, 6, 'each request was sent once: no retries')
  t.same(report.errors, { GET: { timeout: 4 }, PUT: { timeout: 2 } })
  t.equal(report.operations.completed, 0)
  // Each process waits out three requests one after another, each for the 300 ms asked for: about 0.9 s.
  // At least that on any machine; at most 15 s, far above a busy machine's 0.9 s and half of what three of
  // the default 10 s timeouts would take, so that it fails only if --timeout was not what timed them out.
  t.ok(report.wallTimeMs >= 3 * 300 * 0.9 && report.wallTimeMs < 15000, `took ${report.wallTimeMs} ms: three timeouts of 300 ms per process`)
})

t.test('a server that closes connections: each is counted as ECONNRESET and the client reconnects', async (t) => {
  // Warm-up (5 creations + 2 x 5 operations) is spared, so every file exists and no GET meets a 404.
  const { report, counts } = await run(t, (req, n) => n > 15 && n % 2 === 0 ? 'close' : undefined, ['--nOperations=200', '--warmup=5'])
  t.equal(report.warmup.failed, 0)
  t.equal(report.errorCount, counts.close)
  t.equal(report.errors.GET.ECONNRESET + report.errors.PUT.ECONNRESET, counts.close)
  t.equal(report.operations.completed, 200 - counts.close)
})

t.test('a POST answered with anything but `success` is a bad-body failure, never an acknowledgement', async (t) => {
  // Every second POST after warm-up, counted among POSTs: the processes' interleaving cannot change how many.
  let posts = 0
  const { report, counts } = await run(t, (req, n) => req.method === 'POST' && n > 15 && ++posts % 2 === 0 ? 'wrong' : undefined,
    ['--nOperations=200', '--warmup=5'])
  t.ok(counts.wrong > 10, `${counts.wrong} wrong answers`)
  t.same(report.errors, { GET: {}, PUT: { 'bad-body': counts.wrong } })
  t.match(report.verification, { ok: true, lost: 0, unknown: 0 }, 'written but not acknowledged: neither lost nor unknown')
  t.equal(report.verification.records - report.verification.acknowledged, counts.wrong)
})

t.test('a server that acknowledges writes but drops some: exactly those are reported lost', async (t) => {
  // Warm-up (5 creations + 2 x 10 operations) comes first and is kept, so no GET meets a 404.
  // Every third measured POST, counted apart: how the two processes interleave does not matter.
  let posts = 0
  const { report, counts, stderr } = await run(t, (req, n) => req.method === 'POST' && n > 25 && ++posts % 3 === 0 ? 'drop' : undefined,
    ['--nOperations=300', '--warmup=10'])
  t.equal(counts.drop, 33, 'a third of the 100 measured POSTs')
  t.equal(report.errorCount, 0, 'the server answered every request with success')
  t.match(report.verification, { checked: true, ok: false, lost: counts.drop, duplicated: 0, torn: 0, unknown: 0 })
  t.match(stderr, new RegExp(`${counts.drop} lost`))
})
