'use strict'
// lib/machine/fingerprint.js: the machine and its costs, each a median of 15 batches with its interval, in an order any
// machine keeps (one system call costs less than a pool round trip, which makes one, and less than a thread wake-up or a
// loopback HTTP round trip, which make several); the kernel's mitigations; the one line; ./run_benchmark.sh machine.

const t = require('tap')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { measureFingerprint, fingerprintLine, mitigations, oneCpu } = require('../../lib/machine/fingerprint')
const { parseMachineCommand } = require('../../sweep/machine')

const ROOT = path.join(__dirname, '..', '..')

t.test('the costs: each a median of 15 batches inside its interval, in the order every machine keeps', async (t) => {
  const fp = await measureFingerprint()
  t.equal(fp.cores, os.availableParallelism())
  t.equal(fp.cpuModel, os.cpus()[0].model.trim())
  t.equal(fp.kernel, `${os.type()} ${os.release()}`)
  t.same(Object.keys(fp.costs), ['poolTripUs', 'wakeUpUs', 'wakeUpCpuUs', 'systemCallUs', 'jsWorkUs', 'httpRoundTripUs'])
  for (const [name, c] of Object.entries(fp.costs)) {
    const said = `${name}: ${c.estimate.toFixed(2)} µs in [${c.low.toFixed(2)}, ${c.high.toFixed(2)}]`
    t.ok(c.n === 15 && c.low > 0 && c.low <= c.estimate && c.estimate <= c.high, said)
  }
  const { poolTripUs: pool, wakeUpUs: wake, wakeUpCpuUs: wakeCpu, systemCallUs: call, jsWorkUs: js, httpRoundTripUs: rt } = fp.costs
  // A system call timed on a busy machine (a neighbour, or the tests beside this one) waits for its CPU now and then, and
  // a hand-off there is a context switch (2.6 µs here, against 3.3 for a system call so timed): the order is the fastest
  // batch's of system calls, which a neighbour cannot slow.
  t.ok(call.low < pool.estimate, `a system call (${call.low.toFixed(2)} µs) costs less than a pool trip (${pool.estimate.toFixed(1)})`)
  t.ok(call.low < wakeCpu.estimate, `and less than a wake-up's CPU (${wakeCpu.estimate.toFixed(2)}): it makes several`)
  t.ok(call.low < rt.estimate, `and less than an HTTP round trip (${rt.estimate.toFixed(1)})`)
  t.ok(js.estimate > 10 * call.low, `200,000 steps of JS (${js.estimate.toFixed(0)} µs) are many system calls`)
  // A hand-off's CPU: one thread runs at a time, so at most its time and a little (the two overlap as one wakes the other)
  t.ok(wakeCpu.estimate <= 1.25 * wake.estimate, `a wake-up's CPU (${wakeCpu.estimate.toFixed(2)} µs) within its time (${wake.estimate.toFixed(2)})`)
})

t.test('hand-offs on one CPU: their batches\' CPU nearly all their time', async (t) => {
  const batches = (pairs) => ({ wakeUpUs: pairs.map(([time]) => time), wakeUpCpuUs: pairs.map(([, cpu]) => cpu) })
  t.equal(oneCpu(batches([[3.3, 3.2], [3.5, 3.3], [7, 5.4]])), true, 'two of three batches at 94-97%: one CPU')
  t.equal(oneCpu(batches([[7.2, 5.6], [3.5, 3.3], [7, 5.4]])), false, 'two of three at 77-78%: across CPUs')
  t.equal(oneCpu(batches([[10, 9], [10, 9.2]])), true, 'at 90% and 92%: one CPU')
  t.equal(oneCpu(batches([[10, 8.8], [10, 8.9]])), false, 'at 88% and 89%: across CPUs')
})

t.test('mitigations: the kernel\'s word for each vulnerability; null where there is no such folder', async (t) => {
  const dir = t.testdir({ spectre_v2: 'Mitigation: Retpolines\n', mds: 'Not affected\n', l1tf: 'Vulnerable\n' })
  t.same(mitigations(dir), { l1tf: 'Vulnerable', mds: 'Not affected', spectre_v2: 'Mitigation: Retpolines' })
  t.equal(mitigations(path.join(dir, 'none')), null)
})

t.test('the line: the machine, its mitigations counted, then each cost with its interval', async (t) => {
  const c = (estimate, low, high) => ({ estimate, low, high, n: 15, confidence: 0.96 })
  const fp = {
    cpuModel: 'AMD EPYC',
    cores: 2,
    kernel: 'Linux 6.1.0',
    mitigations: { a: 'Mitigation: x', b: 'Not affected', c: 'Vulnerable', d: 'Mitigation: y' },
    costs: {
      poolTripUs: c(31.24, 29.5, 33.01),
      wakeUpUs: c(9.5, 9.01, 10.2),
      wakeUpCpuUs: c(7.25, 7.1, 7.5),
      systemCallUs: c(0.612, 0.6, 0.64),
      jsWorkUs: c(1234.4, 1200, 1300),
      httpRoundTripUs: c(98.6, 95.1, 101.7)
    }
  }
  t.equal(fingerprintLine(fp), 'machine: AMD EPYC, 2 cores, Linux 6.1.0, mitigations: 2 on, 1 vulnerable; pool trip 31.2 µs [29.5-33.0], ' +
    'wake-up 9.50 µs [9.01-10.20], wake-up CPU 7.25 µs [7.10-7.50], system call 0.61 µs [0.60-0.64], JS work 1,234 µs [1,200-1,300], ' +
    'HTTP round trip 98.6 µs [95.1-101.7]')
  const busy = { ...fp, costs: { ...fp.costs, wakeUpCpuUs: c(9.2, 9.0, 9.4) } } // 97% of its time: on one CPU
  t.match(fingerprintLine(busy), /HTTP round trip 98\.6 µs \[95\.1-101\.7\]; its wake-ups ran on one CPU \(a busy machine: measure at rest\)$/)
  t.notMatch(fingerprintLine({ ...busy, cores: 1 }), /one CPU/, 'one core: nothing to say')
  t.equal(fingerprintLine({ ...fp, mitigations: null, costs: { poolTripUs: fp.costs.poolTripUs } }),
    'machine: AMD EPYC, 2 cores, Linux 6.1.0; pool trip 31.2 µs [29.5-33.0]', 'no mitigations folder: none said')
})

t.test('./run_benchmark.sh machine: the line, --json the record; anything else exits 2 naming it', async (t) => {
  const run = (...args) => spawnSync(path.join(ROOT, 'run_benchmark.sh'), ['machine', ...args], { cwd: ROOT, encoding: 'utf8' })
  const line = run()
  t.equal(line.status, 0, line.stderr)
  // (on a busy machine, as when other tests run beside this one, its wake-ups may run on one CPU: a clause says so)
  t.match(line.stdout, new RegExp('^machine: .+, \\d+ cores, .+; pool trip [\\d.]+ µs \\[[\\d.]+-[\\d.]+\\], wake-up .+, HTTP round trip ' +
    '[\\d.,]+ µs \\[[\\d.,-]+\\](; its wake-ups ran on one CPU \\(a busy machine: measure at rest\\))?\\n$'))
  const json = run('--json')
  t.match(JSON.parse(json.stdout), { cores: os.availableParallelism(), costs: { systemCallUs: { n: 15 } } })
  t.same(parseMachineCommand([]), { json: false })
  t.throws(() => parseMachineCommand(['--jsn']), /^machine: unknown argument "--jsn"; use machine \[--json\]$/)
  const bad = run('--jsn')
  t.equal(bad.status, 2)
  t.match(bad.stderr, /machine: unknown argument "--jsn"/)
})
