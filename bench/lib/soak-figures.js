'use strict'
// What bench/soak.js records of a server and how it judges a soak: RSS and open descriptors of a
// server's processes from /proc (Linux), and the criteria: RSS at the end <= 1.1x RSS at the
// reference time (5 minutes, or a sixth of a shorter run), descriptors not growing, p99 flat (the
// last window's median p99 against the window after the reference), no failure.

const fs = require('node:fs')
const { median } = require('../../lib/median')

const RSS_LIMIT = 1.1
const P99_LIMIT = 1.5 // median p99 of the last window over that of the window from the reference
const FDS_SLACK = 2
const REFERENCE_SECONDS = 300

/**
 * @param {number} pid a server's pid (a cluster primary counts its workers too)
 * @returns {{ rssBytes: number, fds: number, processes: number }}
 */
function serverFigures (pid) {
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  let rssBytes = 0
  let fds = 0
  for (const p of [pid, ...children]) {
    rssBytes += Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))[1]) * 1024
    fds += fs.readdirSync(`/proc/${p}/fd`).length
  }
  return { rssBytes, fds, processes: 1 + children.length }
}

/**
 * Judges one kind's samples.
 * @param {Array<{ seconds, rssBytes, fds, p99Us, failures, verified, load1? }>} samples one per interval
 * @param {{ totalSeconds: number }} opts
 * @returns {object} each criterion's figures, and ok when all hold; loadRef and loadEnd, the
 *   machine's load average over the two windows, say how busy the neighbours were
 */
function verdict (samples, { totalSeconds }) {
  const window = Math.min(REFERENCE_SECONDS, totalSeconds / 6)
  const refIndex = Math.max(0, samples.findIndex((s) => s.seconds >= window))
  const ref = samples[refIndex]
  const end = samples.at(-1)
  // The window after the reference time, and the last one (at least one sample each).
  const refWindow = samples.slice(refIndex).filter((s, i) => i === 0 || s.seconds < ref.seconds + window)
  const endWindow = samples.filter((s, i) => i === samples.length - 1 || s.seconds > end.seconds - window)
  const med = (list, field) => median(list.map((s) => s[field]).filter((x) => x !== null)) // null: a client died
  const v = {
    referenceSeconds: ref.seconds,
    windowSeconds: window,
    rssRef: ref.rssBytes,
    rssEnd: end.rssBytes,
    rssRatio: end.rssBytes / ref.rssBytes,
    fdsRef: ref.fds,
    fdsEnd: end.fds,
    // A leak grows; a client just gone may leave a descriptor or two for a moment.
    fdsFlat: end.fds - ref.fds <= FDS_SLACK && med(endWindow, 'fds') - ref.fds <= FDS_SLACK,
    p99Ref: med(refWindow, 'p99Us'),
    p99End: med(endWindow, 'p99Us'),
    p99Limit: P99_LIMIT,
    loadRef: ref.load1 === undefined ? null : med(refWindow, 'load1'),
    loadEnd: end.load1 === undefined ? null : med(endWindow, 'load1'),
    failures: samples.reduce((sum, s) => sum + s.failures, 0),
    verified: samples.every((s) => s.verified)
  }
  v.p99Ratio = v.p99End / v.p99Ref
  v.ok = v.rssRatio <= RSS_LIMIT && v.fdsFlat && v.p99Ratio <= P99_LIMIT && v.failures === 0 && v.verified
  return v
}

module.exports = { serverFigures, verdict, RSS_LIMIT, P99_LIMIT }
