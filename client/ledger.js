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
  return ` ${runId}:${phase}${processIndex}-${i}\n`
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

module.exports = { PHASES, newRunId, recordTag, parseRecord, createBitset, setBit, hasBit, encodeBitset, decodeBitset }
