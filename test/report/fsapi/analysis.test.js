'use strict'
// The fs API table: each idiom against callback and readFileSync, pool trips from the profiled round, and the model of CPU
// per request fitted on the smallest and largest files, predicting the sizes between.

const t = require('tap')
const { fsApiAnalysis, leastSquares } = require('../../../report/fsapi/analysis')
const { fsApiMarkdown } = require('../../../report/fsapi/section')
const { fsApiModelChart } = require('../../../report/fsapi/chart')

const SIZES = [1024, 16384, 262144, 4194304]
// Trips per GET as libuv makes them for fs.readFile (open, fstat, a read per 512 KiB, close); the stream's are its own.
const TRIPS = { callback: (b) => 3 + Math.ceil(b / 524288), stream: (b) => 3 + Math.ceil(b / 65536) }

// A summarised cell as report/stats/cell-stats.js leaves it, its CPU per request given.
function cell (idiom, bytes, cpuUs, ops = 1000, concurrency = 32) {
  const sync = idiom === 'readFileSync'
  const id = `${sync ? 'sync' : 'async'}-fb${bytes}${concurrency === 32 ? '' : `-cc${concurrency}`}${sync ? '' : `-api-${idiom}`}`
  return {
    id, kind: sync ? 'sync' : 'async', api: sync ? '' : idiom, nServers: 1,
    valid: [{ fileBytes: bytes, ioDelay: 'off', nClients: 2, concurrency, runtime: 'node-v20.20.2', serverWindowRssKiB: 51200 + bytes / 1024 }],
    ci: { opsPerSec: { median: ops }, getP99: { median: 1500 } },
    telemetry: { serverCpuPerReqUs: cpuUs }
  }
}

t.test('the model recovers CPU per request from trips and bytes, and names the cells it misses', async (t) => {
  // Made from known costs: 40 µs a request, 6 µs a pool trip, 300 µs a MiB; the stream's 16 KiB cell costs half as much again.
  const cost = (trips, bytes) => 40 + 6 * trips + 300 * bytes / 1048576
  const cells = []
  const trips = new Map()
  for (const b of SIZES) {
    cells.push(cell('readFileSync', b, cost(0, b)))
    for (const idiom of ['callback', 'stream']) {
      const c = cell(idiom, b, cost(TRIPS[idiom](b), b) * (idiom === 'stream' && b === 16384 ? 1.5 : 1))
      cells.push(c)
      trips.set(c.id, TRIPS[idiom](b))
    }
  }
  // 4 in flight, at 16 KiB only: predicted by the model of its Node and storage.
  const few = cell('callback', 16384, cost(TRIPS.callback(16384), 16384), 1000, 2)
  cells.push(few)
  trips.set(few.id, TRIPS.callback(16384))
  const why = { cells: [...trips].map(([id, n]) => ({ id, waits: { poolTrips: { estimate: n } }, sampled: { estimate: 200 },
    categories: { malloc: { estimate: 10 }, gc: { estimate: 30 }, callbacks: { estimate: 50 } } })) }
  const fsapi = fsApiAnalysis(cells, [], why)
  t.equal(fsapi.models.length, 1, 'one model: one Node, one storage')
  t.match(fsapi.rows.find((r) => r.id === few.id).model, { fitted: false }, '4 in flight: predicted')
  const [m] = fsapi.models
  t.same([m.fixedUs, m.perTripUs, m.perMiBUs].map((v) => Math.round(v * 100) / 100), [40, 6, 300], 'its costs, from the 1 KiB and 4 MiB cells')
  t.same(m.fittedOn, [1024, 4194304])
  t.equal(fsapi.predicted, 7, 'the 16 and 256 KiB cells predicted')
  t.same(fsapi.missed, ['async-fb16384-api-stream'], 'the one cell costing more than its trips and bytes')
  const row = fsapi.rows.find((r) => r.id === 'async-fb262144-api-callback')
  t.ok(Math.abs(row.model.miss) < 1e-9, 'a cell the model holds is predicted exactly')
  t.equal(fsapi.rows.find((r) => r.idiom === 'readFileSync').trips, 0, 'readFileSync makes no pool trip')
  t.same(row.shares, { malloc: 0.05, gc: 0.15, callbacks: 0.25 }, 'the profiled round\'s shares of the sampled CPU')
  const md = fsApiMarkdown(fsapi, { argv: ['fsapi'], cpus: 2, cpuModel: 'AMD EPYC', serverRuntimes: ['node-v20.20.2'], loadAverage: [0.5], startedAt: 'then' })
  const line = md.split('\n').find((l) => l.startsWith('| callback | 256 KiB |'))
  t.equal(line, '| callback | 256 KiB | page cache | 64 | Node v20.20.2 | 1000 | – | – | 139.0 | 139.0 (0%) | – | 1.50 | 50 | 4.0 | 5 / 15 / 25 | – |')
  t.match(md, /!\[CPU per request measured against the model\]\(charts\/fsapi-model\.svg\)/, 'the chart, linked')
  const svg = fsApiModelChart({ title: 'model', env: { cpus: 2, serverRuntimes: ['node-v20.20.2'] }, fsapi })
  const idioms = ['readFileSync', 'callback', 'stream']
  t.same(idioms.filter((idiom) => svg.includes(`>${idiom}<`)), idioms, 'a legend entry per idiom')
  t.match(md, /Node v20\.20\.2, page cache: CPU per request ≈ 40\.0 µs \+ 6\.00 µs per pool trip \+ 300 µs per MiB read \(fitted on /)
  t.match(md, /\(fitted on the 1 KiB and 4 MiB files, 6 cells\)/)
})

t.test('an idiom is judged against callback and against readFileSync the right way round', async (t) => {
  const cells = [cell('readFileSync', 1024, 50), cell('callback', 1024, 80), cell('stream', 1024, 120), cell('readFileSync', 4194304, 900)]
  const verdicts = [
    { kind: 'store', metric: 'opsPerSec', a: 'sync-fb1024', b: 'async-fb1024-api-stream', estimate: 2, low: 1.6, high: 2.5, verdict: 'faster' },
    { kind: 'api', metric: 'opsPerSec', a: 'async-fb1024-api-stream', b: 'async-fb1024-api-callback', estimate: 0.8, low: 0.75, high: 0.86, verdict: 'slower' }
  ]
  const fsapi = fsApiAnalysis(cells, verdicts, null)
  const stream = fsapi.rows.find((r) => r.idiom === 'stream')
  t.match(stream.vsSync.ops, { estimate: 0.5, low: 0.4, high: 0.625, verdict: 'slower' }, 'sync 2x faster: the stream 0.5x, slower')
  t.match(stream.vsCallback.ops, { estimate: 0.8, verdict: 'slower' })
  t.equal(stream.trips, null, 'no profiled round: trips not counted, not zero')
  const md = fsApiMarkdown(fsapi, { argv: ['fsapi'], cpus: 2, cpuModel: 'AMD EPYC', serverRuntimes: ['node-v20.20.2'], loadAverage: [0.5], startedAt: 'then' })
  t.match(md, /\| stream \| 1 KiB \| page cache \| 64 \| Node v20\.20\.2 \| 1000 \| 0\.80x \[0\.75-0\.86\] slower \| 0\.50x \[0\.40-0\.63\] slower \|/)
  t.match(md, /slower than callback \|$/m)
  t.match(md, /Pool trips were not counted for every cell/)
  t.match(md, /2 cores \(AMD EPYC\)/)
})

t.test('a folder that varies neither the API nor the size has no fs API table', async (t) => {
  t.equal(fsApiAnalysis([cell('callback', 1024, 1), cell('stream', 1024, 1)], [], null), null)
  t.equal(fsApiAnalysis([cell('callback', 1024, 1), cell('callback', 16384, 1)], [], null), null)
})

t.test('leastSquares solves an exact system and refuses a singular one', async (t) => {
  t.same(leastSquares([[1, 0], [1, 1], [1, 2]], [1, 3, 5]).map((v) => Math.round(v * 1e9) / 1e9), [1, 2])
  t.equal(leastSquares([[1, 2], [2, 4]], [1, 2]), null)
})
