'use strict'
// The primary's side of a run: checks that the server is reachable, forks nClients client
// processes, steps them together through create, warm-up and measure, and collects their results.

const { fork } = require('node:child_process')
const net = require('node:net')
const path = require('node:path')
const { progressBar } = require('../lib/progress')
const { onGone } = require('../lib/machine/child-gone')
const { planServerStats, resetServerStats, readServerStats } = require('./server-stats')
const { OPEN_LOOP_LEAD_NS } = require('./load')
const { forkRemote } = require('../lib/machine/remote-fork')

const WORKER = path.join(__dirname, 'worker.js')
const PROBE_MS = 3000

class UnreachableError extends Error {}

// Resolves once a TCP connection to the server opens; rejects with an UnreachableError if none does.
function probe ({ serverHostname, serverPort, timeout }) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(serverPort, serverHostname)
    const fail = (why) => {
      socket.destroy()
      reject(new UnreachableError(`cannot reach the server at ${serverHostname}:${serverPort}: ${why}`))
    }
    socket.setTimeout(Math.min(timeout, PROBE_MS), () => fail('no answer to connect'))
    socket.once('error', (err) => fail(err.code || err.message))
    socket.once('connect', () => {
      socket.destroy()
      resolve()
    })
  })
}

// The one line that tells a server gone mid-run, instead of a telemetry failure or a reason per request.
function goneProblem ({ serverHostname, serverPort }, resetFailed) {
  const where = `server: ${serverHostname}:${serverPort} went away during the run (it refuses connections now)`
  return resetFailed
    ? `${where}, after a POST to its telemetry reset that it did not answer: a server without those routes? ` +
      '--serverStats=auto (the default) asks only a server that announces them'
    : `${where}: the failed operations are its absence, not its speed`
}

// A client process here, or on a client host (process k on the ((k - 1) mod n)th of n) through ssh.
function startWorker (task, onProgress, remote) {
  const host = remote && remote.hosts[(task.index - 1) % remote.hosts.length]
  // The worker's stdout goes to our stderr: our stdout carries only the CSV.
  const child = host
    ? forkRemote(host, 'client/worker.js', [JSON.stringify(task)], { ssh: remote.ssh, dir: remote.dir, node: process.version })
    : fork(WORKER, [JSON.stringify(task)], { stdio: ['ignore', 2, 2, 'ipc'] })
  const worker = { index: task.index, pid: child.pid, host: host ? host.text : null, child, inbox: new Map(), waiting: new Map(), done: 0, exit: null }
  child.on('message', (msg) => {
    if (msg.type === 'progress') return onProgress(worker, msg.done)
    const resolve = worker.waiting.get(msg.type)
    if (resolve === undefined) return worker.inbox.set(msg.type, msg)
    worker.waiting.delete(msg.type)
    resolve(msg)
  })
  // Its result may still be in the channel when it exits: it is gone once both are over.
  onGone(child, (code, signal) => {
    worker.exit = signal || code
    for (const resolve of worker.waiting.values()) resolve(null)
    worker.waiting.clear()
  })
  return worker
}

// Resolves with the worker's next message of this type, or null if it is gone first.
function reply (worker, type) {
  return new Promise((resolve) => {
    const msg = worker.inbox.get(type)
    if (msg !== undefined) {
      worker.inbox.delete(type)
      resolve(msg)
    } else if (worker.exit !== null) {
      resolve(null)
    } else {
      worker.waiting.set(type, resolve)
    }
  })
}

// Sends every live worker its message; resolves with their replies of this type (null for the dead).
function exchange (workers, msgOf, type) {
  const replies = workers.map((w) => reply(w, type))
  for (const w of workers) if (w.child.connected) w.child.send(msgOf(w))
  return Promise.all(replies)
}

// Runs a phase in every live worker; resolves with their 'ran' replies (null for the dead).
const runPhase = (workers, msg) => exchange(workers, () => msg, 'ran')

// Tells the workers what the GETs of the measured phase must answer (client/get-check.js). A message
// of its own, awaited, rather than the task (an argv string: at most 128 KiB on Linux, and a shell
// word over ssh) or the measure message (whose open-loop origin is only 50 ms ahead): nFiles sizes
// may be 100000 numbers. A process on a client host cannot read dataPath: it only checks lengths.
async function sendExpected (workers, { sizes, dataHere }) {
  const reads = (w) => dataHere && w.host === null
  const blind = workers.filter((w) => !reads(w)).length
  if (blind > 0) {
    process.stderr.write(`client: ${blind} of ${workers.length} client processes compare no GET body with the files: dataPath is not on their host\n`)
  }
  await exchange(workers, (w) => ({ expect: { sizes, readData: reads(w) } }), 'expecting')
}

/**
 * Runs the load against the server.
 * @param {object} config a validated config
 * @param {{ runId: string, progress: boolean, remote?: { hosts: object[], ssh: string[], dir: string }|null,
 *   expectedAnswers?: (announced: string|null) => Promise<{ sizes: number[], dataHere: boolean }|null> }} options
 *   progress: draw a bar on stderr; remote: the client hosts the processes are spread over, in turn;
 *   expectedAnswers: once the warm-up is over, what the measured GETs must answer (null: nothing checked):
 *   the files' sizes, and whether dataPath is on this host
 * @returns {Promise<{ startedAt: string, wallTimeMs: number, announced: string|null, server: object, processes: object[] }>}
 *   announced: what the server's warm-up answers announced in X-Bench-Stats, if anything;
 *   server: { stats, problem } of the server's telemetry over the measured phase (client/server-stats.js),
 *   or problem alone telling that the server went away;
 *   processes: one entry per process: { index, pid, host (null: this one), wallMs (its own measured phase), result (its
 *   report, or null if it died first), exit }
 * @throws {UnreachableError} when the server does not accept a connection at the start
 */
async function runClients (config, { runId, progress, remote = null, expectedAnswers = async () => null }) {
  await probe(config)
  let bar = null // drawn over the measured phase only
  const onProgress = (worker, done) => {
    worker.done = done
    if (bar !== null) bar.update(workers.reduce((sum, w) => sum + w.done, 0))
  }
  const workers = []
  for (let index = 1; index <= config.nClients; index++) {
    workers.push(startWorker({ config, index, runId, progress }, onProgress, remote))
  }
  await runPhase(workers, { phase: 'create' }) // every file exists before any warm-up GET
  const warmed = await runPhase(workers, { phase: 'warm' })
  const announced = warmed.find((msg) => msg !== null && msg.announced !== null)?.announced ?? null
  const expected = await expectedAnswers(announced)
  if (expected !== null) await sendExpected(workers, expected)
  const stats = planServerStats(config, announced)
  // Every warm-up response is in, so the server's new window holds the measured phase only.
  const resetProblem = stats.path === null ? stats.problem : await resetServerStats(config, stats.path)
  if (progress) bar = progressBar(config.nOperations, 'measuring [{bar}] {value}/{total} operations', {}, { clear: true })
  const startedAt = new Date().toISOString()
  // One monotonic clock for all (hrtime is system-wide): the processes' open-loop schedules start
  // together, 50 ms ahead so that no operation is due before the message has reached its process
  // (as a capacity probe's), and the wall time ends at the last completion, not when its message arrives.
  const t0 = process.hrtime.bigint() + (config.rate > 0 ? OPEN_LOOP_LEAD_NS : 0n)
  const ran = await runPhase(workers, { phase: 'measure', t0: String(t0) })
  const end = ran.reduce((last, msg) => msg !== null && BigInt(msg.endedAt) > last ? BigInt(msg.endedAt) : last, t0)
  const wallTimeMs = Number(end - t0) / 1e6
  if (bar !== null) bar.stop()
  const [server, results, gone] = await Promise.all([
    stats.path !== null && resetProblem === null ? readServerStats(config, stats.path) : { stats: null, problem: resetProblem },
    Promise.all(workers.map((w) => reply(w, 'result'))),
    probe(config).then(() => false, () => true)
  ])
  return {
    startedAt,
    wallTimeMs,
    announced,
    server: gone ? { stats: null, problem: goneProblem(config, stats.path !== null && resetProblem !== null) } : server,
    processes: workers.map((w, k) => ({
      index: w.index, pid: w.pid, host: w.host, wallMs: ran[k] && Number(BigInt(ran[k].endedAt) - t0) / 1e6, result: results[k], exit: w.exit
    }))
  }
}

module.exports = { runClients, UnreachableError }
