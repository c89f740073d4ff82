'use strict'
// What each written record says about itself, and which records the server acknowledged: every
// POST body is `${value} ${runId}:${phase}${process}-${index}\n` (phase w = warm-up, c = measured).

const crypto = require('node:crypto')

const PHASES = ['w', 'c']
const RECORD = /^(.*) ([0-9a-f]{8}):([wc])(\d+)-(\d+)$/

/** @returns {string} a fresh id that tells this run's records from earlier ones */
function newRunId () {
  return crypto.randomBytes(4).toString('hex')
}

/**
 * The tag part of a record, from the space to the newline (at most 1+8+1+1+3+1+16+1 = 32 bytes,
 * within the 64 bytes lib/config.js reserves).
 */
function recordTag (runId, phase, processIndex, i) {
  return ` ${runId}:${phase}${processIndex}-${decimal(i)}\n`
}

// i as text, from tables rather than `${i}`: V8 caches every number it turns into a string, so a
// fresh index per operation kept that cache's strings alive through each young-generation GC, and
// the young generation grew with the run's length (+30 MB per process at 10^6 operations).
const SMALL = Array.from({ length: 1000 }, (_, k) => String(k))
const PADDED = SMALL.map((text) => text.padStart(3, '0'))
const decimal = (i) => i < 1000 ? SMALL[i] : decimal(Math.floor(i / 1000)) + PADDED[i % 1000]

/** recordTag(runId, phase, processIndex, i).length, without building a string per operation. */
function recordTagLength (processIndex, i) {
  return 13 + digits(processIndex) + digits(i) // ' ', 8 hex digits, ':', the phase, '-', '\n'
}

// Decimal digits of a non-negative integer (at most 16 for a safe integer).
function digits (n) {
  let d = 1
  for (let rest = n; rest >= 10 && d < 17; rest = Math.floor(rest / 10)) d++
  return d
}

/**
 * Reads one line (without its newline) as a record.
 * @returns {{ value: string, runId: string, phase: string, processIndex: number, i: number } | null}
 */
function parseRecord (line) {
  const m = RECORD.exec(line)
  return m && { value: m[1], runId: m[2], phase: m[3], processIndex: Number(m[4]), i: Number(m[5]) }
}

/** @returns {Uint8Array} a bitset of n bits, all clear */
const createBitset = (n) => new Uint8Array(Math.ceil(n / 8))
const setBit = (bits, i) => { bits[i >> 3] |= 1 << (i & 7) }
const hasBit = (bits, i) => (bits[i >> 3] & (1 << (i & 7))) !== 0
const encodeBitset = (bits) => Buffer.from(bits.buffer, bits.byteOffset, bits.length).toString('base64')
const decodeBitset = (text) => new Uint8Array(Buffer.from(text, 'base64'))

module.exports = { PHASES, newRunId, recordTag, recordTagLength, parseRecord, createBitset, setBit, hasBit, encodeBitset, decodeBitset }
