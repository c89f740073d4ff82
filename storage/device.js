'use strict'
// The data folder's device measured with fio before a cold run: random reads of a data file's size
// with O_DIRECT (no page cache), at queue depth 1 and at the libuv thread pool's 4, on a file fio lays
// out in the folder and that is removed after. Recorded in env.json (`device`) and shown in the report.

const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { findOnPath } = require('../lib/find-on-path')
const { mountOf } = require('./cache')

const PROBE_BYTES = 256 * 1024 * 1024
const SECONDS = 3
const DEPTHS = [1, 4] // one read at a time, and the thread pool's (UV_THREADPOOL_SIZE 4)

const fioProblem = () => (findOnPath('fio', process.env.PATH) ? '' : 'fio is not installed (./run_benchmark.sh setup installs it)')

/** A data file's size as fio's block size: whole 4 KiB pages, from 4 KiB to 1 MiB. */
const blockOf = (fileBytes) => Math.min(1 << 20, Math.max(4096, Math.ceil(fileBytes / 4096) * 4096))

/**
 * fio's JSON for one job: its reads' latency in µs and rate.
 * @param {object} doc fio --output-format=json
 * @returns {{ meanUs: number, p50Us: number, p99Us: number, iops: number }}
 */
function readFigures (doc) {
  const read = doc.jobs[0].read
  const pct = read.clat_ns.percentile ?? {}
  const us = (ns) => Math.round(ns / 100) / 10
  return { meanUs: us(read.lat_ns.mean), p50Us: us(pct['50.000000']), p99Us: us(pct['99.000000']), iops: Math.round(read.iops) }
}

/**
 * Measures the device under a folder.
 * @param {string} dir the data folder (on the file system the servers will read)
 * @param {{ fileBytes: number, log?: (line: string) => void }} how
 * @returns {{ dir: string, source: string, fs: string, blockBytes: number, seconds: number, qd1: object, qd4: object }}
 * @throws when fio fails (its line said)
 */
function probeDevice (dir, { fileBytes, log = () => {} }) {
  const mount = mountOf(dir)
  const blockBytes = blockOf(fileBytes)
  const file = path.join(dir, `fio-probe-${process.pid}`)
  const result = { dir, source: mount.source, fs: mount.type, blockBytes, seconds: SECONDS }
  try {
    for (const depth of DEPTHS) {
      log(`fio: random ${blockBytes / 1024} KiB reads with O_DIRECT at queue depth ${depth} for ${SECONDS} s`)
      const res = spawnSync('fio', ['--name=probe', `--filename=${file}`, `--size=${PROBE_BYTES}`, '--rw=randread', `--bs=${blockBytes}`,
        '--direct=1', depth === 1 ? '--ioengine=psync' : '--ioengine=libaio', `--iodepth=${depth}`, '--ramp_time=0.5',
        `--runtime=${SECONDS}`, '--time_based', '--output-format=json'], { encoding: 'utf8', maxBuffer: 1 << 24 })
      if (res.error || res.status !== 0) throw new Error(`fio: ${res.error?.message || res.stderr.trim().split('\n').pop() || `exit ${res.status}`}`)
      result[`qd${depth}`] = readFigures(JSON.parse(res.stdout.slice(res.stdout.indexOf('{'))))
    }
  } finally {
    fs.rmSync(file, { force: true })
  }
  return result
}

module.exports = { probeDevice, readFigures, fioProblem, blockOf }
