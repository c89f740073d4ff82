'use strict'
// A server with a known cost (test/fixtures/burn-server.js: 300 µs of CPU per request in burnFixedCost)
// profiled as --profile profiles a cell's window: the cost is found in that function within ±15%,
// in one process and in a cluster of 2, from perf's stacks (where perf works) and from V8's alone (its
// wall-time weights scaled to each main thread's CPU: profile/attribute.js fromCpuprofile).

const t = require('tap')
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { profileEnv, ON } = require('../../lib/serving/profiler')
const { resetServerStats, readServerStats } = require('../../client/server-stats')
const { perfProblem, startPerf, perfScript } = require('../../profile/perf')
const { roundFigures } = require('../../profile/round')
const { inclusiveUs } = require('../../profile/attribute')
const { sampleMachine, interferenceBetween, processTable, processTree, MAX_INTERFERENCE: MAX } = require('../../lib/machine/cpu-share')

const BURN_US = 300
const PERF_STEAL = 0.02 // the most of the machine's time stolen by the hypervisor in a window whose perf figures are judged
const REQUESTS = 3000 // ~900 of V8's samples in burnFixedCost, ~750 of perf's: ±4% of sampling error
const noPerf = perfProblem()

async function startBurn (t, model, spool) {
  const child = spawn(process.execPath, ['--max-inlined-bytecode-size=0', path.join(__dirname, '..', 'fixtures', 'burn-server.js'), model, String(BURN_US)],
    { env: { ...process.env, ...profileEnv(spool, process.env) }, cwd: spool, stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => child.kill())
  let out = ''
  for await (const chunk of child.stdout) {
    out += chunk
    const m = /port (\d+)/.exec(out)
    if (m) return { child, port: Number(m[1]) }
  }
  throw new Error('the burn server ended before it listened')
}

// The serving processes' main threads: CPU and time waiting for a core, in ns (/proc/PID/schedstat).
function mainThreads (root) {
  let cpu = 0
  let wait = 0
  for (const pid of processTree(processTable(), root)) {
    try {
      const [run, queued] = fs.readFileSync(`/proc/${pid}/schedstat`, 'latin1').split(' ').map(Number)
      cpu += run
      wait += queued
    } catch {} // it ended while we looked
  }
  return { cpu, wait }
}

// One request at a time: the serving process never waits for a core while it burns.
// Resolves with the CPU time (µs) the calls of burnFixedCost took, as the server measured it.
async function load (port, n) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  let cpuUs = 0
  for (let k = 0; k < n; k++) {
    const body = await new Promise((resolve, reject) => http.get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      let text = ''
      res.on('data', (chunk) => { text += chunk })
      res.on('end', () => resolve(text))
    }).on('error', reject))
    cpuUs += Number(body.split(' ')[0]) / 1000
  }
  agent.destroy()
  return cpuUs
}

// One profiled window of REQUESTS requests: V8's profiler in every process, or perf on every CPU. Each
// is checked alone: V8's stacks count only where perf is not, and V8's sampler thread, CPU of the
// process that burnFixedCost's measure includes, would be missing from perf's count of that function.
async function profiledWindow (t, { child, port, spool, dir, withPerf }) {
  const client = { serverHostname: '127.0.0.1', serverPort: port, timeout: 10000 }
  fs.writeFileSync(path.join(spool, ON), withPerf ? 'waits' : 'v8')
  const data = path.join(dir, 'perf.data')
  // More samples than --profile's rate, for a short test; a period of 1.29 ms, off the 1 ms grid of the kernel's timers.
  const perf = withPerf ? await startPerf({ file: data, logFd: 'ignore', frequency: 777 }) : null
  await perf?.enable()
  t.equal(await resetServerStats(client), null, 'the window began')
  const before = sampleMachine()
  const threadsBefore = mainThreads(child.pid)
  const startNs = process.hrtime.bigint()
  const started = performance.now()
  const tookUs = await load(port, REQUESTS)
  const endNs = process.hrtime.bigint()
  const { interference, steal } = interferenceBetween(before, sampleMachine())
  const threadsAfter = mainThreads(child.pid)
  // A server that waited for a core while it burned: a sampler of wall time counts the wait in the function it stopped in.
  const queued = (threadsAfter.wait - threadsBefore.wait) / Math.max(1, threadsAfter.cpu - threadsBefore.cpu)
  const wallUs = (performance.now() - started) * 1000
  const { stats: doc } = await readServerStats(client)
  await perf?.disable()
  await perf?.stop()
  fs.rmSync(path.join(spool, ON), { force: true })
  t.equal(doc.totals.requests, REQUESTS, 'the window served the requests sent')
  t.ok(tookUs >= BURN_US * REQUESTS, 'each call burned its CPU')
  const window = { cell: 'burn', by: withPerf ? 'perf' : 'v8', startNs, endNs, doc, ops: REQUESTS, wallUs }
  const figures = roundFigures([window], { perfText: withPerf ? await perfScript(data) : null, known: new Map() }).get('burn')
  return { doc, tookUs, interference, steal, queued, figures }
}

// The CPUs kept out of their idle states while the test runs (a PM QoS request of 0 µs exit latency,
// which holds while the file is open): idle CPUs poll instead of halting. On the AMD EPYC VM (cpuidle
// driver haltpoll) a halted vCPU wakes late, and both samplers then over-weight the burn against the
// waits around it: V8's stacks found 339-378 µs for ~319 taken over 5 runs (+6 to +18%), perf's 264
// for 314 (-16%); with the CPUs held awake, 309-322 and 301-316 (4 runs each). Returns why it cannot.
function holdCpusAwake (t) {
  try {
    const fd = fs.openSync('/dev/cpu_dma_latency', fs.constants.O_WRONLY)
    fs.writeSync(fd, Buffer.alloc(4)) // an int32: 0
    t.teardown(() => fs.closeSync(fd))
    return null
  } catch (err) {
    return err.code
  }
}

// Waits, for at most 5 s, for a second in which others took at most MAX of the CPU (as the sweep waits before a pass again).
async function quietMachine () {
  for (const end = Date.now() + 5000; Date.now() < end;) {
    const before = sampleMachine()
    await new Promise((resolve) => setTimeout(resolve, 1000))
    if (interferenceBetween(before, sampleMachine()).interference <= MAX) return
  }
}

const awake = holdCpusAwake(t)
if (awake) t.comment(`the CPUs' idle states not held (/dev/cpu_dma_latency: ${awake}): on a VM whose idle vCPUs halt, the costs may come out 15% off`)

for (const model of ['single', 'cluster']) {
  t.test(`a known 300 µs per request is found in burnFixedCost, ${model}`, async (t) => {
    const dir = t.testdir()
    const spool = path.join(dir, 'v8')
    fs.mkdirSync(spool)
    const { child, port } = await startBurn(t, model, spool)
    await load(port, 1500) // warm-up, not profiled (no reset of the telemetry yet): every process's burnFixedCost optimized, named in perf's stacks
    for (const withPerf of noPerf ? [false] : [false, true]) {
      // As the sweep drops a pass: a window in which others (or the hypervisor's steal, which stretches the burn's wall time
      // under a sampler of wall time) took more than MAX (MAX_INTERFERENCE) of the CPU, or in which the server's main threads
      // waited for a core that long against their CPU, is run again, at most twice, once others leave the machine. When others
      // never do (a CI machine's neighbours took 18% for minutes), the costs are not judged: that is said, as a skip. (A wait
      // for a core the server's own processes and samplers cause, 10-16% in a cluster of 2 on 2 cores, is judged.)
      // perf's cpu-clock also counts, as the running task's, the time the hypervisor stole from it (process.cpuUsage does
      // not): its window wants a machine the hypervisor left nearly alone. (A CI run here once found 360.6 µs for 303.9
      // taken, +19%, in a window others had not disturbed, perf's whole sample 1.07 of the CPU measured, 0.88-0.94 usual.)
      // perf's figure, alone on this VM, came out 236-351 µs for ~313 taken (1 run in 4 under 85%, the rest within 12%): a
      // window whose figure is off is run again too, as a disturbed one; one that stays off in all three fails.
      let window
      const stolen = (w) => withPerf && w.steal > PERF_STEAL
      const off = (w) => Math.abs(inclusiveUs(w.figures.folded, /^burnFixedCost /) - w.tookUs) > 0.15 * w.tookUs
      const calm = (w) => w.interference <= MAX && w.queued <= MAX && !stolen(w) && !off(w)
      const disturbed = (w) => `${(w.interference * 100).toFixed(0)}% of the CPU taken by others (${(w.steal * 100).toFixed(1)}% stolen), ` +
        `the server waited for a core ${(w.queued * 100).toFixed(0)}% of its CPU time${off(w) ? ', the cost found more than 15% off' : ''}`
      for (let k = 0; k < 3 && !(window && calm(window)); k++) {
        if (window) {
          t.comment(`window run again: ${disturbed(window)}`)
          if (window.interference > MAX || stolen(window)) await quietMachine()
        }
        window = await profiledWindow(t, { child, port, spool, dir, withPerf })
      }
      const { doc, tookUs, figures } = window
      t.teardown(() => { for (const p of doc.processes) fs.rmSync(`/tmp/perf-${p.pid}.map`, { force: true }) }) // node's JIT names for perf
      t.equal(doc.processes.filter((p) => p.profile).length, withPerf ? 0 : model === 'single' ? 1 : 3, 'a V8 profile of every process, or none')
      if (window.interference > MAX || stolen(window)) {
        t.skip(`${withPerf ? 'perf' : 'V8 stacks alone'}: not judged, no quiet window in 3 (the last: ${disturbed(window)})`)
        continue
      }
      const found = inclusiveUs(figures.folded, /^burnFixedCost /)
      t.ok(Math.abs(found - tookUs) <= 0.15 * tookUs, `${withPerf ? 'perf' : 'V8 stacks alone'}: ${(found / REQUESTS).toFixed(1)} µs ` +
        `per request in burnFixedCost, ${(tookUs / REQUESTS).toFixed(1)} taken, within 15% (${(window.steal * 100).toFixed(1)}% stolen)`)
      // perf's whole sample against the servers' CPU as measured over the same window (the report's check; a switch to
      // sleep runs with interrupts off, where no sample lands, so it comes out a little low).
      const ratio = figures.sampledUs / figures.serverCpuUs
      if (withPerf) t.ok(Math.abs(ratio - 1) <= 0.15, `perf sampled ${ratio.toFixed(2)} of the CPU measured, within ±15% (0.88-1.01 seen)`)
    }
    if (noPerf) t.comment(`perf: ${noPerf}`)
  })
}
