'use strict'
// HdrHistogram's percentile-distribution text (.hgrm): written from the client's histograms
// (recorded in µs) in milliseconds, as HdrHistogram's plotter and wrk2 show them, and read back.
// The sweep writes one per run and operation; the report one per cell, merged over its repeats.

const hdr = require('hdr-histogram-js')

const TICKS_PER_HALF = 5 // percentile ticks per halving of the distance to 100%, HdrHistogram's default
const US_PER_MS = 1000
const ROW = /^\s*(\d+\.\d+)\s+(\d\.\d{12})\s+(\d+)(?:\s+(\d+\.\d{2}|Infinity))?\s*$/
const FOOTER = /^#\[(\w+)\s*=\s*([\d.]+),\s*(\w[\w ]*?)\s*=\s*([\d.]+)\]$/

/**
 * A histogram's percentile distribution in HdrHistogram's text format, values in ms.
 * @param {object} histogram an hdr-histogram-js histogram of µs
 * @returns {string}
 */
function formatHgrm (histogram) {
  return histogram.outputPercentileDistribution(TICKS_PER_HALF, US_PER_MS)
}

/**
 * A histogram from the client's JSON (hdr-histogram-js's compressed base64).
 * @param {string} encoded
 * @returns {object} the histogram
 */
function decodeHistogram (encoded) {
  return hdr.decodeFromCompressedBase64(encoded)
}

/**
 * Adds histograms of µs into one (a cell's repeats).
 * @param {object[]} histograms
 * @returns {object} a new histogram
 */
function mergeHistograms (histograms) {
  const merged = hdr.build()
  for (const h of histograms) merged.add(h)
  return merged
}

/**
 * Reads .hgrm text: one row per percentile tick and the footer's figures, values in ms.
 * @param {string} text
 * @returns {{ rows: { valueMs: number, percentile: number, totalCount: number }[], meanMs: number,
 *   stdDeviationMs: number, maxMs: number, totalCount: number }}
 * @throws {Error} naming the first line that is neither a header, a row nor a footer
 */
function parseHgrm (text) {
  const lines = text.split('\n')
  if (!/^\s+Value\s+Percentile\s+TotalCount\s+1\/\(1-Percentile\)$/.test(lines[0])) throw new Error('not an .hgrm file: line 1 is not the header')
  const rows = []
  const footer = {}
  lines.slice(1).forEach((line, i) => {
    const row = ROW.exec(line)
    const foot = FOOTER.exec(line)
    if (row) rows.push({ valueMs: Number(row[1]), percentile: Number(row[2]), totalCount: Number(row[3]) })
    else if (foot) Object.assign(footer, { [foot[1]]: Number(foot[2]), [foot[3]]: Number(foot[4]) })
    else if (line.trim() !== '') throw new Error(`not an .hgrm file: line ${i + 2} is ${JSON.stringify(line)}`)
  })
  return { rows, meanMs: footer.Mean, stdDeviationMs: footer.StdDeviation, maxMs: footer.Max, totalCount: footer['Total count'] }
}

module.exports = { formatHgrm, decodeHistogram, mergeHistograms, parseHgrm }
