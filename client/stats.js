'use strict'
// Latency and error records of one operation type: an HDR histogram (µs) plus the exact count,
// min, max and sum, and errors by kind. Client processes send them raw; the primary merges them.

const hdr = require('hdr-histogram-js')

const PERCENTILES = { p50: 50, p90: 90, p99: 99, p999: 99.9 }

/** @returns {object} an empty record */
function createRecord () {
  return { count: 0, min: Infinity, max: 0, sum: 0, errors: {}, histogram: hdr.build() }
}

/**
 * Records one successful operation.
 * @param {object} rec from createRecord
 * @param {number} us latency in whole microseconds
 */
function recordLatency (rec, us) {
  rec.count++
  rec.sum += us
  if (us < rec.min) rec.min = us
  if (us > rec.max) rec.max = us
  rec.histogram.recordValue(us)
}

/** Counts one failed operation by kind (http-500, timeout, ECONNRESET, bad-body, ...). */
function recordError (rec, kind) {
  rec.errors[kind] = (rec.errors[kind] || 0) + 1
}

/** @returns {object} the record as plain JSON, for IPC */
function serializeRecord (rec) {
  return { ...rec, min: rec.count > 0 ? rec.min : null, histogram: hdr.encodeIntoCompressedBase64(rec.histogram) }
}

/** @returns {object} a record from serializeRecord's output */
function deserializeRecord (json) {
  return { ...json, min: json.count > 0 ? json.min : Infinity, histogram: hdr.decodeFromCompressedBase64(json.histogram) }
}

/**
 * Merges records exactly: counts, sums and histograms add, min and max of the parts.
 * @param {object[]} recs
 * @returns {object} a new record
 */
function mergeRecords (recs) {
  const merged = createRecord()
  for (const rec of recs) {
    merged.count += rec.count
    merged.sum += rec.sum
    merged.min = Math.min(merged.min, rec.min)
    merged.max = Math.max(merged.max, rec.max)
    merged.histogram.add(rec.histogram)
  }
  merged.errors = mergeErrors(recs.map((rec) => rec.errors))
  return merged
}

/**
 * Adds up error counts by kind.
 * @param {Array<Object<string, number>>} maps
 * @returns {Object<string, number>}
 */
function mergeErrors (maps) {
  const total = {}
  for (const errors of maps) {
    for (const [kind, n] of Object.entries(errors)) total[kind] = (total[kind] || 0) + n
  }
  return total
}

/** @returns {number} failed operations in an errors-by-kind map */
function errorTotal (errors) {
  return Object.values(errors).reduce((a, b) => a + b, 0)
}

/**
 * The figures of a record, in µs: count = successful operations; null figures when none.
 * Percentiles are clamped to [min, max] (HDR reports a bucket's upper edge).
 * @returns {{ count, errors, min, mean, max, p50, p90, p99, p999 }}
 */
function summarize (rec) {
  const stats = { count: rec.count, errors: errorTotal(rec.errors), min: null, mean: null, max: null }
  for (const [name, p] of Object.entries(PERCENTILES)) {
    stats[name] = rec.count > 0 ? Math.min(rec.max, Math.max(rec.min, rec.histogram.getValueAtPercentile(p))) : null
  }
  if (rec.count > 0) Object.assign(stats, { min: rec.min, mean: rec.sum / rec.count, max: rec.max })
  return stats
}

module.exports = { createRecord, recordLatency, recordError, serializeRecord, deserializeRecord, mergeRecords, mergeErrors, errorTotal, summarize }
