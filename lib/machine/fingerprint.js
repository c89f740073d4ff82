'use strict'
// The machine's fingerprint: what it is (CPU model, cores, kernel and its mitigations) and what the costs a
// sync-against-async answer depends on take here, each the median of its batches with an interval: a libuv pool
// round trip (fs.stat of a cached file, one in flight), a thread wake-up (two threads hand a token back and forth: its
// time, and the CPU the two spend on it), a system call (fstat of an open file), a fixed piece of JS work, and a
// loopback HTTP round trip. Under a second.
// Every measuring command records it in env.json and prints its line as it starts; `./run_benchmark.sh machine`.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const http = require('node:http')
const { Worker } = require('node:worker_threads')
const { intervalOfMedian, median } = require('../median')
const { isLinux } = require('../platform')

const BATCHES = 15 // the median of 15 has an order-statistic interval at 96% (ranks 4 and 12)
const VULNERABILITIES = '/sys/devices/system/cpu/vulnerabilities'

// µs per operation of each of BATCHES batches of `per` calls of `once`, awaited when it is async.
async function batches (per, once, { sync = false } = {}) {
  const out = []
  for (let b = 0; b < BATCHES; b++) {
    const start = process.hrtime.bigint()
    if (sync) for (let i = 0; i < per; i++) once()
    else for (let i = 0; i < per; i++) await once()
    out.push(Number(process.hrtime.bigint() - start) / 1e3 / per)
  }
  return out
}

// A pool round trip: fs.stat of a file in the page cache, one in flight, from the call to its callback.
async function poolTrip () {
  const file = __filename
  return { poolTripUs: await batches(100, () => new Promise((resolve, reject) => fs.stat(file, (err) => err ? reject(err) : resolve()))) }
}

// A thread wake-up: this thread and a worker hand a token back and forth through Atomics (each waits asleep
// until the other wakes it); a round trip is two wake-ups. Its time, and the CPU the process spent on it (both
// threads'): the time also holds the other CPU's waking from idle, which a busy server does not pay in CPU.
// With more than one core the scheduler now and then keeps the two threads on one CPU, where a hand-off is a
// context switch (about half the time, all of it CPU; on the Intel VM 2 fingerprints of 20 just after a run, none of
// 60 at rest): a new worker is tried then, up to ATTEMPTS, so that a machine at rest measures one kind of wake-up,
// across CPUs. On a busy machine the two share a CPU whatever the attempt: measure at rest.
const ATTEMPTS = 3
async function wakeUp () {
  let got
  for (let i = 0; i < ATTEMPTS; i++) {
    got = await handOffs()
    if (os.availableParallelism() < 2 || !oneCpu(got)) break
  }
  return got
}

// Whether hand-offs' batches ran on one CPU: all of their time CPU (the median batch's CPU at 90% of its time or more).
const ONE_CPU = 0.9
function oneCpu ({ wakeUpUs: time, wakeUpCpuUs: cpu }) {
  return median(cpu.map((c, i) => c / time[i])) >= ONE_CPU
}

/**
 * Whether a fingerprint of a machine with more than one core measured its wake-ups on one CPU (every attempt: a busy
 * machine), so that they are a context switch's cost, not a hand-off's across CPUs.
 * @param {object} fp measureFingerprint's (or env.json's)
 * @returns {boolean} false for one core, and for a fingerprint without a wake-up CPU (before 2026-11-30)
 */
function wakeUpOnOneCpu (fp) {
  const { wakeUpUs: time, wakeUpCpuUs: cpu } = fp.costs ?? {}
  return fp.cores > 1 && Boolean(time && cpu) && cpu.estimate >= ONE_CPU * time.estimate
}

async function handOffs () {
  const token = new Int32Array(new SharedArrayBuffer(4))
  const ROUNDS = 200
  const worker = new Worker(`
    const { workerData: token } = require('node:worker_threads')
    for (;;) {
      Atomics.wait(token, 0, 0)
      if (Atomics.load(token, 0) === 2) break
      Atomics.store(token, 0, 0)
      Atomics.notify(token, 0)
    }`, { eval: true, workerData: token })
  await new Promise((resolve) => worker.once('online', resolve))
  const time = []
  const cpu = []
  for (let b = 0; b < BATCHES; b++) {
    const [start, used] = [process.hrtime.bigint(), process.cpuUsage()]
    for (let i = 0; i < ROUNDS; i++) {
      Atomics.store(token, 0, 1)
      Atomics.notify(token, 0)
      Atomics.wait(token, 0, 1)
    }
    const { user, system } = process.cpuUsage(used)
    time.push(Number(process.hrtime.bigint() - start) / 1e3 / ROUNDS / 2)
    cpu.push((user + system) / ROUNDS / 2)
  }
  Atomics.store(token, 0, 2)
  Atomics.notify(token, 0)
  await worker.terminate()
  return { wakeUpUs: time, wakeUpCpuUs: cpu }
}

// A system call: fstat of an open file, from JS (the binding's cost included, as a server pays it).
async function systemCall () {
  const fd = fs.openSync(__filename, 'r')
  try {
    return { systemCallUs: await batches(2000, () => fs.fstatSync(fd), { sync: true }) }
  } finally {
    fs.closeSync(fd)
  }
}

// A fixed piece of JS work: 200,000 steps of an integer hash, the same on every machine.
async function jsWork () {
  const steps = () => {
    let h = 2166136261
    for (let i = 0; i < 200000; i++) h = Math.imul(h ^ i, 16777619)
    return h // returned, so the loop is not optimised away
  }
  return { jsWorkUs: await batches(5, steps, { sync: true }) }
}

// A loopback HTTP round trip: a GET to a server of this process on 127.0.0.1, one connection kept alive.
async function httpRoundTrip () {
  const server = http.createServer((req, res) => res.end('ok'))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const get = () => new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: server.address().port, agent }, (res) => res.resume().on('end', resolve)).on('error', reject)
  })
  try {
    await get() // the connection, made before timing
    return { httpRoundTripUs: await batches(20, get) }
  } finally {
    agent.destroy()
    server.close()
  }
}

// The kernel's word on each CPU vulnerability (Linux): { name: 'Mitigation: ...' | 'Not affected' | 'Vulnerable...' }, or null.
function mitigations (dir = VULNERABILITIES) {
  try {
    return Object.fromEntries(fs.readdirSync(dir).sort().map((name) => [name, fs.readFileSync(path.join(dir, name), 'utf8').trim()]))
  } catch {
    return null
  }
}

const MEASURES = [poolTrip, wakeUp, systemCall, jsWork, httpRoundTrip] // each resolves to { cost: µs of each batch }

/**
 * Measures this machine's fingerprint.
 * @returns {Promise<{ cpuModel: string, cores: number, kernel: string, mitigations: Record<string, string>|null,
 *   costs: Record<string, { estimate: number, low: number, high: number, n: number, confidence: number }>, seconds: number }>}
 *   costs in µs: poolTripUs, wakeUpUs, wakeUpCpuUs, systemCallUs, jsWorkUs, httpRoundTripUs
 */
async function measureFingerprint () {
  const started = performance.now()
  const costs = {}
  await jsWork() // a first pass, so the timed ones run optimised code
  for (const measure of MEASURES) for (const [name, us] of Object.entries(await measure())) costs[name] = intervalOfMedian(us)
  return {
    cpuModel: os.cpus()[0]?.model?.trim() || 'unknown',
    cores: os.availableParallelism(),
    kernel: `${os.type()} ${os.release()}`,
    mitigations: isLinux ? mitigations() : null,
    costs,
    seconds: Number(((performance.now() - started) / 1000).toFixed(2))
  }
}

const LABELS = {
  poolTripUs: 'pool trip',
  wakeUpUs: 'wake-up',
  wakeUpCpuUs: 'wake-up CPU',
  systemCallUs: 'system call',
  jsWorkUs: 'JS work',
  httpRoundTripUs: 'HTTP round trip'
}
// A cost and its interval to the estimate's precision: 1,234 µs [1,200-1,300], 31.2 µs [29.5-33.0], 0.61 µs [0.60-0.64].
function cost ({ estimate, low, high }) {
  const digits = estimate >= 100 ? 0 : estimate >= 10 ? 1 : 2
  const f = (x) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
  return `${f(estimate)} µs [${f(low)}-${f(high)}]`
}

/**
 * The fingerprint in one line: the machine, then each cost's median µs and interval.
 * @param {object} fp measureFingerprint's
 * @returns {string}
 */
function fingerprintLine (fp) {
  const m = fp.mitigations && Object.values(fp.mitigations)
  const count = (word) => m.filter((v) => v.startsWith(word)).length
  const said = m ? `, mitigations: ${count('Mitigation')} on, ${count('Vulnerable')} vulnerable` : ''
  const costs = Object.entries(LABELS).filter(([k]) => fp.costs[k])
    .map(([k, label]) => `${label} ${cost(fp.costs[k])}`)
  const oneCpuSaid = wakeUpOnOneCpu(fp) ? '; its wake-ups ran on one CPU (a busy machine: measure at rest)' : ''
  return `machine: ${fp.cpuModel}, ${fp.cores} cores, ${fp.kernel}${said}; ${costs.join(', ')}${oneCpuSaid}`
}

module.exports = { measureFingerprint, fingerprintLine, mitigations, oneCpu, wakeUpOnOneCpu, LABELS }
