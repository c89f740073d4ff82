'use strict'
// ./run_benchmark.sh predict: the sync/async answer predicted from a profiled folder's fingerprint and profile for this
// machine (its fingerprint measured now) or for the machine of another folder (--on: beside what it measured, with the
// miss); every folder the model cannot read, and every bad argument, is refused with one line and exit 2.
// Run: node test/sweep/predict.test.js

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const t = require('tap')
const { REFERENCE, STATED_ERROR } = require('../../sweep/predict')
const { fingerprintLine } = require('../../lib/machine/fingerprint')

const ROOT = path.join(__dirname, '..', '..')
const run = (...args) => spawnSync(path.join(ROOT, 'run_benchmark.sh'), ['predict', ...args], { encoding: 'utf8', timeout: 60000 })
const ratioOf = (line, word) => Number(new RegExp(`([\\d.]+)x(?: \\[[\\d.-]+\\])? ${word}`).exec(line)?.[1])

t.test('--on: the prediction for that folder\'s machine beside what it measured, the miss their quotient', async (t) => {
  const out = run(REFERENCE, `--on=${REFERENCE}`)
  t.equal(out.status, 0, out.stderr)
  const lines = out.stdout.split('\n')
  for (const label of ['sync vs async, 1 process', 'sync vs async, cluster of 2']) {
    const line = lines.find((l) => l.startsWith(`${label}:`))
    t.ok(line, `a line for ${label}`)
    const predicted = ratioOf(line, 'predicted')
    const measured = Number(/measured there ([\d.]+)x/.exec(line)[1])
    const miss = Number(/missed by ([+-]\d+)%/.exec(line)[1])
    t.ok(Math.abs(miss - (predicted / measured - 1) * 100) <= 1, `${label}: ${miss}% is ${predicted} over ${measured}, less 1`)
  }
  const env = JSON.parse(fs.readFileSync(path.join(REFERENCE, 'env.json'), 'utf8'))
  t.equal(lines.find((l) => l.startsWith('  for:')), `  for:  ${fingerprintLine(env.fingerprint)}`, 'its fingerprint, not one measured now')
  t.equal(lines.filter((l) => / twice as costly \(/.test(l)).length, 5, 'each cost twice as costly')
  t.match(lines.find((l) => l.startsWith('note: wake-ups')), 'no wake-up CPU in the fingerprint of model-2026-11-29-amd-fresh-a (made',
    'a reference made before wake-ups\' CPU was measured: said')
})

t.test('a miss beyond its pair\'s stated error is said so, one within it not', async (t) => {
  // The reference folder's checks (docs/RESULTS.md): its misses on the other folders of its kind, some beyond ±10%; and a
  // folder of the Intel VM whose fingerprint measured wake-ups on one CPU (+45% and +21% on the reference).
  const lines = ['b', 'quick', '1core'].flatMap((on) => run(REFERENCE, `--on=${REFERENCE.replace(/-a$/, `-${on}`)}`).stdout.split('\n'))
  lines.push(...run(path.join(ROOT, 'docs', 'model-2026-11-29-intel-quick'), `--on=${REFERENCE}`).stdout.split('\n'))
  t.match(lines[0], `misses by up to ±${STATED_ERROR.process * 100}% in one process, ±${STATED_ERROR.cluster * 100}% in a cluster of 2`)
  const checked = lines.filter((l) => /missed by/.test(l))
  t.equal(checked.length, 8, 'two pairs on each of four folders')
  for (const line of checked) {
    const stated = line.startsWith('sync vs async, 1 process') ? STATED_ERROR.process : STATED_ERROR.cluster
    const miss = Math.abs(Number(/missed by ([+-]\d+)%/.exec(line)[1])) / 100
    t.equal(line.endsWith(', beyond the stated error'), miss > stated, `${line.split(':')[0]}: missed by ${Math.round(miss * 100)}%, stated ${stated * 100}%`)
  }
  t.ok(checked.some((l) => Math.abs(Number(/missed by ([+-]\d+)%/.exec(l)[1])) > 10 && !l.endsWith('beyond the stated error')),
    'a miss beyond 10% within the stated error')
  t.equal(checked.filter((l) => l.endsWith(', beyond the stated error')).length, 2, 'the one-CPU wake-up\'s two misses beyond it')
})

t.test('without --on: this machine\'s fingerprint, measured now', async (t) => {
  const out = run('--json')
  t.equal(out.status, 0, out.stderr)
  const doc = JSON.parse(out.stdout)
  t.equal(doc.fingerprint.cores, os.availableParallelism())
  t.ok(doc.fingerprint.costs.wakeUpUs.estimate > 0 && doc.fingerprint.costs.wakeUpCpuUs.estimate > 0, 'a wake-up measured, its time and CPU')
  t.equal(doc.wakeUpAt, 'time', 'the reference has no wake-up CPU: wake-ups scaled by their time')
  t.same(doc.predicted.map((p) => p.id), ['process', 'cluster'])
  t.ok(doc.predicted.every((p) => p.ratio > 0 && p.miss === null), 'no miss without a folder that measured it')
})

t.test('wake-ups scaled by their time where there they take twice as long or more: a note says the prediction is high', async (t) => {
  const intel = path.join(ROOT, 'docs', 'model-2026-11-30-intel-2core')
  const high = run(intel, `--on=${REFERENCE}`).stdout
  // 26.5 µs on the AMD VM, 6.75 on the Intel one: 3.9 times
  t.match(high, /^note: wake-ups scaled by their time, .+\. There a wake-up takes 3\.9 times as long: .+ read that prediction as the top of its range$/m)
  t.notMatch(run(REFERENCE, `--on=${intel}`).stdout, /There a wake-up takes/, 'the other way (0.25 times): nothing more said')
})

t.test('a folder whose fingerprint measured its wake-ups on one CPU: a note says so', async (t) => {
  const busy = path.join(t.testdir({}), 'busy')
  fs.cpSync(REFERENCE, busy, { recursive: true })
  const env = JSON.parse(fs.readFileSync(path.join(busy, 'env.json'), 'utf8'))
  env.fingerprint.costs.wakeUpCpuUs = { ...env.fingerprint.costs.wakeUpUs } // all of its time CPU, on 2 cores: on one CPU
  fs.writeFileSync(path.join(busy, 'env.json'), JSON.stringify(env))
  t.match(run(REFERENCE, `--on=${busy}`).stdout, /^note: the fingerprint of busy measured its wake-ups with both threads on one CPU/m)
  t.notMatch(run(REFERENCE, `--on=${REFERENCE}`).stdout, /on one CPU/, 'a fingerprint without a wake-up CPU: nothing said')
})

t.test('a folder the model cannot read, and bad arguments: exit 2 and one line', async (t) => {
  const dir = t.testdir({})
  const copy = (name, skip) => {
    const to = path.join(dir, name)
    fs.cpSync(REFERENCE, to, { recursive: true, filter: (f) => !skip.some((s) => f.endsWith(s)) })
    return to
  }
  const unprofiled = copy('unprofiled', ['profile'])
  const noPrint = copy('no-fingerprint', [])
  const env = JSON.parse(fs.readFileSync(path.join(noPrint, 'env.json'), 'utf8'))
  delete env.fingerprint
  fs.writeFileSync(path.join(noPrint, 'env.json'), JSON.stringify(env))
  const cases = [
    [[dir], /is not a results folder/],
    [[unprofiled, `--on=${REFERENCE}`], /not profiled/],
    [[noPrint, `--on=${REFERENCE}`], /no fingerprint/],
    [[REFERENCE, `--on=${noPrint}`], /has no fingerprint/],
    [[REFERENCE, '--bogus'], /unknown argument "--bogus"/],
    [[REFERENCE, REFERENCE], /one folder to predict from, got 2/]
  ]
  for (const [args, message] of cases) {
    const out = run(...args)
    t.equal(out.status, 2, `${args.join(' ')}: exit 2`)
    t.match(out.stderr, message)
    t.equal(out.stdout, '', 'nothing on stdout')
  }
  // A folder that was not profiled is still one to predict for: what it measured comes from its verdicts.
  const on = run(REFERENCE, `--on=${unprofiled}`)
  t.equal(on.status, 0, on.stderr)
  t.match(on.stdout, /sync vs async, 1 process: [\d.]+x predicted .*measured there [\d.]+x/)
  t.notMatch(on.stdout, /^note: the fingerprints were measured on Node/m, 'one Node: no note')
  // A fingerprint measured on another Node: said, since the JS work's cost then moves with V8 too.
  const otherNode = copy('other-node', [])
  const envOther = JSON.parse(fs.readFileSync(path.join(otherNode, 'env.json'), 'utf8'))
  fs.writeFileSync(path.join(otherNode, 'env.json'), JSON.stringify({ ...envOther, node: 'v26.12.1' }))
  t.match(run(REFERENCE, `--on=${otherNode}`).stdout, `note: the fingerprints were measured on Node ${envOther.node} and v26.12.1`)
  // A folder whose files grew through its run measured other work than one whose rounds each started from them as created: said.
  t.equal(envOther.options.freshFiles, true, 'the reference folder started every round from the files as created')
  t.notMatch(on.stdout, /^note: .* let them grow/m, 'both alike: no note')
  const grown = copy('grown', [])
  fs.writeFileSync(path.join(grown, 'env.json'), JSON.stringify({ ...envOther, options: { ...envOther.options, freshFiles: false } }))
  t.match(run(REFERENCE, `--on=${grown}`).stdout, `note: ${path.basename(REFERENCE)} started every round from the files as created, grown let them grow`)
})
