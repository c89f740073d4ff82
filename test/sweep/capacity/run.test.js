'use strict'
// ./run_benchmark.sh capacity end to end: bad flags exit 2 naming the flag and make nothing; a
// small run writes capacity.csv (a row per probe), summary.csv (a row per cell and round),
// capacity.json, the latency–load chart and the report, and compare reads two capacity folders.

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { parse } = require('csv-parse/sync')
const { once } = require('node:events')
const { runSweep, startSweep, resultsDir, readSummary, loggedPids, isGone } = require('../../fixtures/sweep-run')
const { PROBE_COLUMNS } = require('../../../sweep/capacity/run')
const { probeSeconds } = require('../../../sweep/capacity/judge')
const { parseSlo } = require('../../../lib/slo')

const SLO = parseSlo('p90:20ms') // 300 requests a probe: a short run

function folders (t) {
  const root = t.testdir({ results: {}, data: {} })
  return { results: path.join(root, 'results'), args: [`--results=${path.join(root, 'results')}`, `--dataPath=${path.join(root, 'data')}`] }
}

t.test('bad input exits 2 with one line naming the flag, and runs nothing', async (t) => {
  const cases = [
    [['--slo=p99:abc'], /--slo.*must be PERCENTILE:LIMIT such as p99:20ms/],
    [['--slo=p101:5ms'], /--slo.*p101 is not a percentile it knows/],
    [['--precision=0'], /--precision.*must be a number above 0/],
    [['--startRate=5000', '--endRate=100'], /--startRate=5000 is above --endRate=100/],
    [['--rates=100,fast'], /--rates.*must be a comma list of rates/],
    [['--window=100'], /--window is for sweep, quick and versions; capacity searches each cell with probes/],
    [['--probe=0'], /--probe/]
  ]
  for (const [flags, message] of cases) {
    const f = folders(t)
    const { code, stderr } = await runSweep(t, ['capacity', ...flags, ...f.args])
    t.equal(code, 2, flags.join(' '))
    t.match(stderr, message)
    t.equal(stderr.trim().split('\n').length, 1, 'one line')
    t.same(fs.readdirSync(f.results), [], 'no results folder')
  }
  const f = folders(t)
  const { code, stderr } = await runSweep(t, ['sweep', '--slo=p99:5ms', ...f.args])
  t.equal(code, 2)
  t.match(stderr, /--slo is for the capacity command/)
})

t.test('a small capacity run: a row per probe, a row per cell and round, capacity.json, the chart and the report; compare reads it', async (t) => {
  const f = folders(t)
  const { code, stderr } = await runSweep(t, ['capacity', '--kinds=sync', '--nServers=1', '--nClients=1', '--concurrency=4', '--ioDelay=off',
    '--rounds=2', '--startRate=200', '--endRate=800', '--precision=0.5', '--rates=300', '--slo=p90:20ms', '--seed=7', ...f.args])
  t.equal(code, 0, stderr)
  const dir = resultsDir(f.results)
  const text = fs.readFileSync(path.join(dir, 'capacity.csv'), 'utf8')
  t.same(text.split('\n')[0].split(','), PROBE_COLUMNS, 'capacity.csv columns')
  const probes = parse(text, { columns: true })
  t.same([...new Set(probes.map((p) => p.round))], ['1', '2'])
  const rows = readSummary(dir)
  t.equal(rows.length, 2, 'a row per cell and round')
  for (const row of rows) {
    const some = probes.filter((p) => p.round === String(row.repeat))
    t.same([...new Set(some.map((p) => p.stage))].sort(), ['curve', 'search'], `round ${row.repeat}: the search's probes and the curve's, no confirmation`)
    t.ok(some.some((p) => p.stage === 'curve' && p.rate === '300'), `round ${row.repeat}: the --rates probe`)
  }
  for (const p of probes) {
    t.ok(Number(p.sent) === Math.round(Number(p.rate) * Number(p.seconds)), `${p.rate} req/s × ${p.seconds} s sent`)
    t.equal(Number(p.seconds), probeSeconds(Number(p.rate), 1, SLO), `${p.rate} req/s: long enough for 300 requests`)
    t.ok(Number(p.sendRate) > 0 && Number(p.generatorCpu) > 0 && p.generatorDelayP99Us !== '', 'the generator\'s own figures')
    t.equal(p.cause === '', p.passed === 'true', 'a cause exactly when it did not pass')
    if (p.invalid === 'false') t.equal(Number(p.requests), Number(p.sent) - Number(p.failed), 'judged on every answered request')
    t.match(p.windowsOver, new RegExp(`^\\d+/${p.seconds}$`), 'windows over the target, of all')
    t.equal(p.passed === 'true', p.reason === '', 'a reason exactly when it did not pass')
  }
  for (const row of rows) {
    t.equal(row.valid, 'true', row.reason)
    const passed = probes.filter((p) => p.round === String(row.repeat) && p.passed === 'true' && p.stage !== 'curve').map((p) => Number(p.rate))
    if (row.highestPass !== '') t.equal(Math.max(...passed), Number(row.highestPass), `the highest pass, ${row.highestPass}, is the highest rate that passed`)
    if (row.limit === 'slo') {
      t.ok(Number(row.capacityLow) <= Number(row.capacity) && Number(row.capacity) <= Number(row.capacityHigh),
        `the crossing ${row.capacity} lies between the probes ${row.capacityLow} and ${row.capacityHigh}`)
    }
    t.ok(Number(row.closedOpsPerSec) > 0, 'the closed-loop figure beside it')
    t.ok(['slo', 'endRate', 'generator', 'startRate'].includes(row.limit), row.limit)
  }
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'capacity.json'), 'utf8'))
  t.match(json, { slo: { text: 'p90 ≤ 20 ms', targets: [{ name: 'p90', us: 20000 }] }, minRequests: 300, cores: Number, rounds: 2,
    cells: [{ cell: 'sync-s1-c1-doff', kind: 'sync', nServers: 1, ioDelay: 'off', closedLoop: { estimate: Number, low: Number, high: Number, n: 2 } }] })
  const capacities = rows.map((r) => r.capacity).filter((c) => c !== '')
  if (capacities.length > 0) {
    t.match(json.cells[0].capacity, { estimate: Number, low: Number, high: Number, n: capacities.length }, 'its capacity over the rounds that found one')
  }
  t.ok(fs.existsSync(path.join(dir, 'charts', 'latency-load-plain-folder.svg')), 'the latency–load chart')
  const page = fs.readFileSync(path.join(dir, 'report.html'), 'utf8')
  t.match(page, /<h1>Capacity under p90 ≤ 20 ms<\/h1>/)
  t.match(page, /Capacity per cell/)
  const compared = await runSweep(t, ['compare', dir, dir])
  t.equal(compared.code, 0, compared.stderr)
  t.match(compared.stdout, /\| cell \| capacity req\/s A \| capacity req\/s B \| capacity req\/s B\/A \| closed-loop ops\/s B\/A \|/)
  t.match(compared.stdout, /sync-s1-c1-doff/)
})

t.test('Ctrl-C stops the search in hand, keeps the finished rows and exits 130, leaving no process', async (t) => {
  const f = folders(t)
  const { child, done } = startSweep(t, ['capacity', '--kinds=sync,async', '--nServers=1', '--nClients=1', '--ioDelay=off', '--rounds=3',
    '--slo=p90:20ms', ...f.args])
  let err = ''
  child.stderr.on('data', (d) => { err += d })
  // The first search has ended, with a capacity or without one (a busy machine's generator may fall behind).
  const ended = done.then(() => true)
  while (!/ r1: /.test(err) && !await Promise.race([ended, once(child.stderr, 'data').then(() => false)]));
  child.kill('SIGINT')
  const { code, stderr } = await done
  t.equal(code, 130, stderr)
  const dir = resultsDir(f.results)
  const rows = readSummary(dir)
  t.ok(rows.length >= 1 && rows.length < 6, `${rows.length} finished searches kept`)
  t.match(JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8')), { interrupted: true })
  t.same(loggedPids(dir).filter((pid) => !isGone(pid)), [], 'no process is left')
})
