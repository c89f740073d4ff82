'use strict'
// What bench/soak.js records of a server and how it judges a soak: RSS and open descriptors of a
// server's processes from /proc (Linux), and the criteria: RSS at the end <= 1.1x RSS at the
// reference time (5 minutes, or a sixth of a shorter run), descriptors flat, p99 flat, no failure.

const fs = require('node:fs')
const { median } = require('../../lib/bootstrap')

const RSS_LIMIT = 1.1
const P99_LIMIT = 1.5 // the last three intervals' median p99 over the three from the reference
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
 * @param {Array<{ seconds, rssBytes, fds, p99Us, failures, verified }>} samples one per interval
 * @param {{ totalSeconds: number }} opts
 * @returns {object} each criterion's figures, and ok when all hold
 */
function verdict (samples, { totalSeconds }) {
  const refSeconds = Math.min(REFERENCE_SECONDS, totalSeconds / 6)
  const refIndex = Math.max(0, samples.findIndex((s) => s.seconds >= refSeconds))
  const ref = samples[refIndex]
  const end = samples.at(-1)
  const after = samples.slice(refIndex)
  const p99Ref = median(after.slice(0, 3).map((s) => s.p99Us))
  const p99End = median(samples.slice(-3).map((s) => s.p99Us))
  const v = {
    referenceSeconds: ref.seconds,
    rssRef: ref.rssBytes,
    rssEnd: end.rssBytes,
    rssRatio: end.rssBytes / ref.rssBytes,
    fdsRef: ref.fds,
    fdsEnd: end.fds,
    fdsFlat: Math.max(...after.map((s) => s.fds)) - Math.min(...after.map((s) => s.fds)) <= FDS_SLACK,
    p99Ref,
    p99End,
    p99Ratio: p99End / p99Ref,
    p99Limit: P99_LIMIT,
    failures: samples.reduce((sum, s) => sum + s.failures, 0),
    verified: samples.every((s) => s.verified)
  }
  v.ok = v.rssRatio <= RSS_LIMIT && v.fdsFlat && v.p99Ratio <= P99_LIMIT && v.failures === 0 && v.verified
  return v
}

module.exports = { serverFigures, verdict, RSS_LIMIT, P99_LIMIT }
