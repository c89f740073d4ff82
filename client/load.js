'use strict'
// The request loop of one client process: `concurrency` keep-alive connections working through a
// phase's operations, closed loop (next one when a connection is free) or open loop (on a schedule).
// Three parts: the tally (what is kept), the engine (connections and the running phase) and the client
// (the phases, warm-up, measured windows and probes, on the engine, into the tally).

const { Connection, getRequest, putRequest, hostHeader } = require('./http')
const { createRecord, recordLatency, recordError, serializeRecord, mergeRecords } = require('./stats')
const { recordTag, createBitset, setBit, encodeBitset } = require('./ledger')
const { createGetCheck } = require('./get-check')
const workload = require('../lib/workload')

const now = process.hrtime.bigint
const LATE_MS = 5 // a probe's operation released later than this after its due time is late
const OPEN_LOOP_LEAD_NS = 50000000n // an open loop's origin is this far ahead of its start message, so nothing is due before it arrives
const SUCCESS = Buffer.from('success')

/**
 * What a client process keeps of its operations: latencies and errors of the warm-up and of the measured
 * operations, a window's own until it is kept or dropped, and which PUTs were acknowledged.
 * @param {{ warmups: number, operations: number }} counts
 */
function createTally ({ warmups, operations }) {
  const records = () => ({ GET: createRecord(), PUT: createRecord() })
  const acks = { w: createBitset(warmups), c: createBitset(operations) }
  const tally = {
    warmup: records(),
    measured: records(),
    pending: records(), // a window's, until settle keeps or drops them
    records,
    ack: (tag, i) => setBit(acks[tag], i),
    settle (keep) {
      if (keep) for (const type of ['GET', 'PUT']) tally.measured[type] = mergeRecords([tally.measured[type], tally.pending[type]])
      tally.pending = records()
    },
    restart () {
      tally.measured.GET = createRecord()
      tally.measured.PUT = createRecord()
    },
    latency: () => ({ GET: serializeRecord(tally.measured.GET), PUT: serializeRecord(tally.measured.PUT) }),
    acks: () => ({ w: encodeBitset(acks.w), c: encodeBitset(acks.c) })
  }
  return tally
}

/**
 * The request engine of a client process: its keep-alive connections and the phase running on them, closed loop (the
 * next operation when a connection is free) or open loop (each operation released when it is due).
 * @param {{ config: object, index: number, runId: string }} task
 * @param {(tag: string, i: number) => void} ack called for each PUT the server acknowledged
 * @returns {{ start(def: object, t0: bigint): Promise<number>, late(): number, progress(): number, reopened(): number,
 *   drop(): void, close(): void, announced(): string|null, expect(expected: object): void }} start resolves with the
 *   operations of the phase that failed; expect: what GETs must answer from now on (client/get-check.js)
 */
function createEngine ({ config, index, runId }, ack) {
  const host = hostHeader(config.serverHostname, config.serverPort)
  const getRequests = new Map()
  let phase = null // the running phase: its definition plus next, due, finished, free, t0, resolve
  let getCheck = null // what a GET's answer must be, once the primary has said (a read-only run's measured phase)

  const slots = Array.from({ length: config.concurrency }, () => {
    const slot = { i: 0, type: 'GET', key: '', start: 0n }
    const options = { hostname: config.serverHostname, port: config.serverPort, timeout: config.timeout }
    slot.conn = new Connection(options, (kind, body, length) => complete(slot, kind, body, length))
    return slot
  })

  // Open loop: operation i is due at a fixed time, the processes interleaved, whatever the server
  // does; a phase may carry its own rate (a capacity probe's).
  const offsetS = (i) => ((i - phase.from) * config.nClients + index - 1) / phase.rate
  const dueAt = (i) => phase.t0 + BigInt(Math.round(offsetS(i) * 1e9))

  function dispatch () {
    while (phase.free.length > 0 && phase.next < phase.due) {
      const slot = phase.free.pop()
      const i = phase.next++
      const { type, key } = phase.opAt(i, config, index)
      slot.i = i
      slot.type = type
      slot.key = key
      // Closed loop: latency from the send; open loop: from when it was due, so a stall counts.
      slot.start = phase.open ? dueAt(i) : now()
      // A sliced phase records each operation in the slice of the second it was due in.
      slot.recs = phase.slices ? phase.slices[Math.min(phase.slices.length - 1, Math.floor(offsetS(i)))] : phase.recs
      if (type === 'PUT') {
        slot.conn.send(putRequest(host, key, config.value + recordTag(runId, phase.tag, index, i)), true)
      } else {
        if (!getRequests.has(key)) getRequests.set(key, getRequest(host, key, config.getBody))
        slot.conn.send(getRequests.get(key), getCheck !== null && getCheck.sampled(i))
      }
    }
  }

  function complete (slot, kind, body, length) {
    const us = Math.round(Number(now() - slot.start) / 1000)
    const rec = slot.recs[slot.type]
    if (kind === null && slot.type === 'PUT' && !SUCCESS.equals(body)) kind = 'bad-body'
    if (kind === null && slot.type === 'GET' && getCheck !== null) kind = getCheck.judge(slot.key, body, length)
    if (kind !== null) {
      phase.failed++
      phase.kinds[kind] = (phase.kinds[kind] ?? 0) + 1
      recordError(rec, kind)
    } else {
      recordLatency(rec, us)
      if (slot.type === 'PUT') ack(phase.tag, slot.i)
    }
    phase.free.push(slot)
    if (++phase.finished === phase.to) phase.resolve(phase.failed)
    else dispatch()
  }

  // Releases the operations that are due. One released more than the phase's lateNs after its due
  // time is the generator's lateness (its timer or event loop was late); one released on time that
  // then waits for a free connection waits for the server, and is not counted.
  function tick () {
    const t = now()
    while (phase.due < phase.to) {
      const late = t - dueAt(phase.due)
      if (late < 0n) break
      if (late > phase.lateNs) phase.late++
      phase.lagNs = late
      phase.due++
    }
    dispatch()
    if (phase.due < phase.to) setTimeout(tick, Number(dueAt(phase.due) - t) / 1e6)
  }

  return {
    start (def, t0) {
      return new Promise((resolve) => {
        phase = {
          rate: config.rate, lateNs: BigInt(LATE_MS * 1e6), ...def,
          next: def.from, due: def.open ? def.from : def.to, finished: def.from, failed: 0, kinds: {}, late: 0, lagNs: 0n, free: [...slots], t0, resolve
        }
        if (def.from === def.to) resolve(0)
        else if (def.open) tick()
        else dispatch()
      })
    },
    late: () => phase.late,
    lagNs: () => phase.lagNs, // how late the open loop's last release was
    failures: () => ({ ...phase?.kinds }), // the last phase's failed operations by kind
    progress: () => (phase === null ? 0 : phase.finished - phase.from),
    reopened: () => slots.reduce((n, slot) => n + Math.max(0, slot.conn.opened - 1), 0),
    drop: () => { for (const slot of slots) slot.conn.drop() },
    close: () => { for (const slot of slots) slot.conn.close() },
    // What the server announced in an X-Bench-Stats field (the path of its telemetry), or null.
    announced: () => slots.find((slot) => slot.conn.announced !== null)?.conn.announced ?? null,
    expect: (expected) => { getCheck = createGetCheck(config, expected, index) }
  }
}

/**
 * A client process's load generator: the phases' schedules on its engine; what it keeps is its tally.
 * @param {{ config: object, index: number, runId: string }} task index is 1..nClients
 * @returns {{ run(name: 'create'|'warm'|'measure', t0?: bigint): Promise<number>,
 *   window(from: number, to: number, t0: bigint): Promise<number>, settle(keep: boolean): void, result(): object, take(): object,
 *   close(): void, progress(): number, failures(): object, announced(): string|null, expect(expected: object): void }}
 *   run's t0: when the phase started (hrtime), the origin of the open-loop schedule; both resolve with the operations that
 *   failed (failures: the last phase's by kind); window: measured operations from..to-1 into pending records, which
 *   settle keeps (adds to the measured ones) or drops; result's reconnects: connections opened again
 *   since the measured phase (or the first window) began; expect: what the GETs after it must answer
 *   ({ sizes, readData }, client/get-check.js)
 */
function createClient ({ config, index, runId }) {
  const creations = workload.creationCount(config, index)
  const warmups = workload.warmupCount(config, index)
  const operations = workload.operationCount(config, index)
  const tally = createTally({ warmups, operations })
  const engine = createEngine({ config, index, runId }, tally.ack)
  const PHASES = {
    create: { tag: 'w', from: 0, to: creations, opAt: workload.warmupOperationAt, recs: tally.warmup },
    warm: { tag: 'w', from: creations, to: warmups, opAt: workload.warmupOperationAt, recs: tally.warmup },
    measure: { tag: 'c', from: 0, to: operations, opAt: workload.operationAt, recs: tally.measured, open: config.rate > 0 }
  }
  let reopenedBefore = null // connections re-opened before the measured phase

  return {
    run (name, t0 = now()) {
      if (name === 'measure') reopenedBefore = engine.reopened()
      return engine.start(PHASES[name], t0)
    },
    window (from, to, t0) {
      reopenedBefore ??= engine.reopened()
      return engine.start({ ...PHASES.measure, from, to, recs: tally.pending }, t0)
    },
    /**
     * A capacity probe: operations from..to-1 in the open loop at `rate` (all processes together),
     * each recorded in the slice of the second it was due in; nothing is kept.
     * @param {number} [lateMs] how late a release counts as late (a test on shared cores may allow more)
     * @returns {Promise<{ failed: number, late: number, lagS: number, slices: object[] }>} late: operations the
     *   schedule released more than lateMs (5) after they were due; lagS: how late the last one was released (s), so
     *   that the rate it released is (to - from) / (seconds + lagS); slices: per second, { GET, PUT } serialized
     */
    async probe (from, to, t0, rate, seconds, lateMs = LATE_MS) {
      const slices = Array.from({ length: seconds }, tally.records)
      const failed = await engine.start({ ...PHASES.measure, from, to, open: true, rate, slices, lateNs: BigInt(Math.round(lateMs * 1e6)) }, t0)
      const serialized = slices.map((r) => ({ GET: serializeRecord(r.GET), PUT: serializeRecord(r.PUT) }))
      return { failed, late: engine.late(), lagS: Number(engine.lagNs()) / 1e9, slices: serialized }
    },
    settle: tally.settle,
    /**
     * The measured records so far as result() gives them, then starts them again, with fresh
     * connections for what comes next (a new round of a sweep).
     */
    take () {
      const taken = this.result()
      tally.restart()
      engine.drop()
      reopenedBefore = engine.reopened()
      return taken
    },
    progress: engine.progress,
    failures: engine.failures,
    announced: engine.announced,
    expect: engine.expect,
    result: () => ({
      index,
      pid: process.pid,
      latency: tally.latency(),
      warmup: { operations: warmups, errors: { GET: tally.warmup.GET.errors, PUT: tally.warmup.PUT.errors } },
      reconnects: engine.reopened() - (reopenedBefore ?? engine.reopened()),
      acks: tally.acks()
    }),
    close: engine.close
  }
}

module.exports = { createClient, OPEN_LOOP_LEAD_NS }
