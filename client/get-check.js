'use strict'
// What a GET of a read-only run must answer (client/load.js asks at each 200): a body as long as its
// file, and on a sample of the operations, the file as this process reads it in dataPath: its bytes
// (getBody=bytes) or its sorted text (sorted). The primary sends the sizes (client/run.js).

const fs = require('node:fs')
const path = require('node:path')
const { fileKey } = require('../lib/workload')
const { sortPieces } = require('../lib/sort-pieces')

const SAMPLE_BITS = 8 // 1 operation in 2^8
// The expected answers read when the check is made, before the phase, up to this many bytes in all: a sampled GET then
// compares without reading a file in the request loop (a 4 MiB read there would hold up every answer in flight).
const READ_AHEAD_BYTES = 64 * 1048576
const GOLDEN = 0x9e3779b1 // 2^32 over the golden ratio

/**
 * Whether operation i (of a phase) is in the sample: about 1 in 256, the same ones in every run.
 * Picked by a hash of i (the top bits of i x GOLDEN, gaps of 144 to 377), not every 256th: the
 * files are read round-robin, and with 16 files every 256th operation would read the same one.
 * @param {number} i
 * @returns {boolean}
 */
function isSampled (i) {
  return Math.imul(i, GOLDEN) >>> (32 - SAMPLE_BITS) === 0
}

/**
 * The checks of one client process's GETs.
 * @param {object} config validated
 * @param {{ sizes: number[]|null, readData: boolean }} expected sizes: file-f's size at f (null: not
 *   known, no length check); readData: dataPath on this host is the server's folder (false: no sample)
 * @param {number} index the process, for its one line on stderr if it cannot read a file
 * @returns {{ sampled(i: number): boolean, judge(key: string, body: Buffer|null, length: number): string|null }}
 *   sampled: keep that GET's body; judge: null for a right answer, else its error kind (bad-length, bad-bytes)
 */
function createGetCheck (config, { sizes, readData }, index) {
  const sizeOf = sizes === null ? null : new Map(sizes.map((size, f) => [fileKey(f), size]))
  let reading = readData

  // The answer the file asks for, or null when it cannot be read (said once; no sample after).
  function expectedBody (key) {
    let bytes
    try {
      bytes = fs.readFileSync(path.join(config.dataPath, key))
    } catch (err) {
      reading = false
      process.stderr.write(`client process ${index}: cannot read ${path.join(config.dataPath, key)} (${err.code ?? err.message}): ` +
        'no more GET bodies are compared with the files\n')
      return null
    }
    return config.getBody === 'bytes' ? bytes : Buffer.from(sortPieces(bytes.toString('utf8'), config.sortSplitString))
  }

  const ahead = new Map()
  if (reading && sizes !== null && sizes.reduce((a, b) => a + b, 0) <= READ_AHEAD_BYTES) {
    for (const key of sizeOf.keys()) if (reading) ahead.set(key, expectedBody(key))
  }
  return {
    sampled: (i) => reading && isSampled(i),
    judge (key, body, length) {
      if (sizeOf !== null && length !== sizeOf.get(key)) return 'bad-length'
      if (body === null || !reading) return null
      // Read ahead, or now, in the loop (a larger data set): 1 GET in 256, a file the server has just read.
      const expected = ahead.get(key) ?? expectedBody(key)
      return expected === null || expected.equals(body) ? null : 'bad-bytes'
    }
  }
}

module.exports = { createGetCheck, isSampled }
