'use strict'
// After a run, reads what the run appended to each file and checks that every record the server
// acknowledged is there exactly once, that no line is torn, that nothing appears that this run
// never sent, and that the bytes add up. A blank line (spaces only) is a failed write that a
// cluster worker blanked in place (servers/lib/durability.js): counted, not torn.

const fs = require('node:fs')
const path = require('node:path')
const workload = require('../lib/workload')
const { PHASES, recordTagLength, parseRecord, createBitset, setBit, hasBit } = require('./ledger')

const PLAN = {
  w: { count: workload.warmupCount, opAt: workload.warmupOperationAt },
  c: { count: workload.operationCount, opAt: workload.operationAt }
}

const CHUNK_BYTES = 1 << 20
const NEWLINE = 0x0a // never inside a multi-byte UTF-8 character: lines split on bytes
const BLANK = /^ *$/

// Calls onLine with each whole line (without its newline) of what was appended to the file after
// sizeBefore, reading a chunk at a time so memory stays flat however long the run was.
// Returns the bytes appended and whether a last line lacks its newline.
function readAppended (file, sizeBefore, onLine) {
  let fd
  try {
    fd = fs.openSync(file, 'r')
  } catch (err) {
    if (err.code === 'ENOENT') return { bytes: 0, unterminated: false }
    throw err
  }
  try {
    const size = fs.fstatSync(fd).size // the run is over: nothing is appended any more
    const start = sizeBefore <= size ? sizeBefore : 0 // shrunk: someone rewrote it
    let buf = Buffer.allocUnsafe(CHUNK_BYTES) // one buffer for the whole file: no garbage per chunk
    let kept = 0 // bytes at the start of buf: a line begun in the previous read
    for (let pos = start, n = 0; pos < size; pos += n) {
      if (kept === buf.length) buf = Buffer.concat([buf], 2 * buf.length) // a line longer than buf
      n = fs.readSync(fd, buf, kept, Math.min(buf.length - kept, size - pos), pos)
      if (n === 0) break // truncated under us
      const view = buf.subarray(0, kept + n)
      let from = 0
      for (let nl = view.indexOf(NEWLINE, kept); nl >= 0; from = nl + 1, nl = view.indexOf(NEWLINE, from)) {
        onLine(view.toString('utf8', from, nl))
      }
      kept = buf.copy(buf, 0, from, view.length)
    }
    return { bytes: size - start, unterminated: kept > 0 }
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * The size of each of the run's files (file-0 .. file-(nFiles-1)), 0 when it does not exist.
 * Taken before the run: verification reads only what was appended after.
 * @returns {number[]}
 * @throws when dataPath is not a readable folder
 */
function fileSizes (config) {
  fs.opendirSync(config.dataPath).closeSync() // throws unless a readable folder
  return Array.from({ length: config.nFiles }, (_, f) => {
    const stat = fs.statSync(path.join(config.dataPath, workload.fileKey(f)), { throwIfNoEntry: false })
    return stat === undefined ? 0 : stat.size
  })
}

/**
 * Checks the files against what the client processes sent and what the server acknowledged.
 * A record sent but not acknowledged (error, timeout) may or may not be there: it is neither lost
 * nor unknown.
 * @param {{ config: object, runId: string, sizesBefore: number[], acks: Array<{ w: Uint8Array, c: Uint8Array }|null> }} run
 *   acks[p-1]: bitsets of process p's acknowledged warm-up (w) and measured (c) records; null if unknown
 * @returns {{ checked: true, ok, files, records, acknowledged, lost, duplicated, torn, unknown, blank, bytes, expectedBytes }}
 *   bytes: appended during the run; expectedBytes: what the acknowledged and the found records and
 *   the blank lines make
 */
function verifyFiles ({ config, runId, sizesBefore, acks }) {
  const v = {
    checked: true, ok: false, files: config.nFiles,
    records: 0, acknowledged: 0, lost: 0, duplicated: 0, torn: 0, unknown: 0, blank: 0, bytes: 0, expectedBytes: 0
  }
  const processes = Array.from({ length: config.nClients }, (_, k) => k + 1)
  const seen = processes.map((p) => ({ w: createBitset(PLAN.w.count(config, p)), c: createBitset(PLAN.c.count(config, p)) }))

  const isSent = (r, key) => {
    if (r.runId !== runId || r.processIndex < 1 || r.processIndex > config.nClients) return false
    if (r.i >= PLAN[r.phase].count(config, r.processIndex)) return false
    const op = PLAN[r.phase].opAt(r.i, config, r.processIndex)
    return op.type === 'PUT' && op.key === key
  }
  const check = (line, key) => {
    if (BLANK.test(line)) {
      v.blank++
      v.expectedBytes += line.length + 1
      return
    }
    const r = parseRecord(line)
    if (r === null || r.value !== config.value) return v.torn++
    if (!isSent(r, key)) return v.unknown++
    const bits = seen[r.processIndex - 1][r.phase]
    if (hasBit(bits, r.i)) return v.duplicated++
    setBit(bits, r.i)
    v.records++
  }

  for (let f = 0; f < config.nFiles; f++) {
    const key = workload.fileKey(f)
    const { bytes, unterminated } = readAppended(path.join(config.dataPath, key), sizesBefore[f], (line) => check(line, key))
    v.bytes += bytes
    if (unterminated) v.torn++
  }

  const valueBytes = Buffer.byteLength(config.value)
  for (const p of processes) {
    for (const phase of PHASES) {
      const count = PLAN[phase].count(config, p)
      for (let i = 0; i < count; i++) {
        const acked = acks[p - 1] !== null && hasBit(acks[p - 1][phase], i)
        const found = hasBit(seen[p - 1][phase], i)
        if (acked) v.acknowledged++
        if (acked && !found) v.lost++
        if (acked || found) v.expectedBytes += valueBytes + recordTagLength(p, i)
      }
    }
  }
  v.ok = v.lost + v.duplicated + v.torn + v.unknown === 0 && v.bytes === v.expectedBytes
  return v
}

module.exports = { fileSizes, verifyFiles }
