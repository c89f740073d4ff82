'use strict'
// The request loop of one client process: `concurrency` keep-alive connections working through a
// phase's operations, closed loop (next one when a connection is free) or open loop (on a schedule).

const { Connection, getRequest, putRequest, hostHeader } = require('./http')
const { createRecord, recordLatency, recordError, serializeRecord, mergeRecords } = require('./stats')
const { recordTag, createBitset, setBit, encodeBitset } = require('./ledger')
const workload = require('../lib/workload')

const now = process.hrtime.bigint

/**
 * A client process's load generator.
 * @param {{ config: object, index: number, runId: string }} task index is 1..nClients
 * @returns {{ run(name: 'create'|'warm'|'measure', t0?: bigint): Promise<number>,
 *   window(from: number, to: number, t0: bigint): Promise<number>, settle(keep: boolean): void, result(): object, take(): object,
 *   close(): void, progress(): number, announced(): string|null }} run's t0: when the phase started (hrtime),
 *   the origin of the open-loop schedule; both resolve with the operations that failed; window: measured operations from..to-1 into pending records, which
 *   settle keeps (adds to the measured ones) or drops; result's reconnects: connections opened again
 *   since the measured phase (or the first window) began
 */
function createClient ({ config, index, runId }) {
  const host = hostHeader(config.serverHostname, config.serverPort)
  const getRequests = new Map()
  const records = () => ({ GET: createRecord(), PUT: createRecord() })
  const creations = workload.creationCount(config, index)
  const warmups = workload.warmupCount(config, index)
  const operations = workload.operationCount(config, index)
  const acks = { w: createBitset(warmups), c: createBitset(operations) }
  const warmupRecords = records()
  const measuredRecords = records()
  let pendingRecords = records() // a window's, until settle keeps or drops them
  const PHASES = {
    create: { tag: 'w', from: 0, to: creations, opAt: workload.warmupOperationAt, recs: warmupRecords },
    warm: { tag: 'w', from: creations, to: warmups, opAt: workload.warmupOperationAt, recs: warmupRecords },
    measure: { tag: 'c', from: 0, to: operations, opAt: workload.operationAt, recs: measuredRecords, open: config.rate > 0 }
  }
  let phase = null // the running phase: its definition plus next, due, finished, free, t0, resolve
  let reopenedBefore = null // connections re-opened before the measured phase

  const slots = Array.from({ length: config.concurrency }, () => {
    const slot = { i: 0, type: 'GET', start: 0n }
    const options = { hostname: config.serverHostname, port: config.serverPort, timeout: config.timeout }
    slot.conn = new Connection(options, (kind, body) => complete(slot, kind, body))
    return slot
  })

  // Open loop: operation i is due at a fixed time, the processes interleaved, whatever the server does.
  const dueAt = (i) => phase.t0 + BigInt(Math.round(((i - phase.from) * config.nClients + index - 1) * 1e9 / config.rate))

  function dispatch () {
    while (phase.free.length > 0 && phase.next < phase.due) {
      const slot = phase.free.pop()
      const i = phase.next++
      const { type, key } = phase.opAt(i, config, index)
      slot.i = i
      slot.type = type
      // Closed loop: latency from the send; open loop: from when it was due, so a stall counts.
      slot.start = phase.open ? dueAt(i) : now()
      if (type === 'PUT') {
        slot.conn.send(putRequest(host, key, config.value + recordTag(runId, phase.tag, index, i)), true)
      } else {
        if (!getRequests.has(key)) getRequests.set(key, getRequest(host, key))
        slot.conn.send(getRequests.get(key), false)
      }
    }
  }

  function complete (slot, kind, body) {
    const us = Math.round(Number(now() - slot.start) / 1000)
    const rec = phase.recs[slot.type]
    if (kind === null && slot.type === 'PUT' && body !== 'success') kind = 'bad-body'
    if (kind !== null) {
      phase.failed++
      recordError(rec, kind)
    } else {
      recordLatency(rec, us)
      if (slot.type === 'PUT') setBit(acks[phase.tag], slot.i)
    }
    phase.free.push(slot)
    if (++phase.finished === phase.to) phase.resolve(phase.failed)
    else dispatch()
  }

  function tick () {
    const t = now()
    while (phase.due < phase.to && dueAt(phase.due) <= t) phase.due++
    dispatch()
    if (phase.due < phase.to) setTimeout(tick, Number(dueAt(phase.due) - t) / 1e6)
  }

  const reopened = () => slots.reduce((n, slot) => n + Math.max(0, slot.conn.opened - 1), 0)

  function start (def, t0) {
    return new Promise((resolve) => {
      phase = { ...def, next: def.from, due: def.open ? def.from : def.to, finished: def.from, failed: 0, free: [...slots], t0, resolve }
      if (def.from === def.to) resolve(0)
      else if (def.open) tick()
      else dispatch()
    })
  }

  return {
    run (name, t0 = now()) {
      if (name === 'measure') reopenedBefore = reopened()
      return start(PHASES[name], t0)
    },
    window (from, to, t0) {
      reopenedBefore ??= reopened()
      return start({ ...PHASES.measure, from, to, recs: pendingRecords }, t0)
    },
    settle (keep) {
      if (keep) {
        for (const type of ['GET', 'PUT']) {
          measuredRecords[type] = mergeRecords([measuredRecords[type], pendingRecords[type]])
        }
      }
      pendingRecords = records()
    },
    /**
     * The measured records so far as result() gives them, then starts them again, with fresh
     * connections for what comes next (a new round of a sweep).
     */
    take () {
      const taken = this.result()
      measuredRecords.GET = createRecord()
      measuredRecords.PUT = createRecord()
      for (const slot of slots) slot.conn.drop()
      reopenedBefore = reopened()
      return taken
    },
    progress: () => phase === null ? 0 : phase.finished - phase.from,
    // What the server announced in an X-Bench-Stats field (the path of its telemetry), or null.
    announced: () => slots.find((slot) => slot.conn.announced !== null)?.conn.announced ?? null,
    result: () => ({
      index,
      pid: process.pid,
      latency: { GET: serializeRecord(measuredRecords.GET), PUT: serializeRecord(measuredRecords.PUT) },
      warmup: { operations: warmups, errors: { GET: warmupRecords.GET.errors, PUT: warmupRecords.PUT.errors } },
      reconnects: reopened() - (reopenedBefore ?? reopened()),
      acks: { w: encodeBitset(acks.w), c: encodeBitset(acks.c) }
    }),
    close: () => { for (const slot of slots) slot.conn.close() }
  }
}

module.exports = { createClient }
