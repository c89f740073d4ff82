'use strict'
// Run on another host over ssh by `hosts check` (sweep/hosts/hosts.js), from that host's checkout:
// `node sweep/hosts/probe.js [VERSION ...]` prints one JSON line: this Node's version, the checkout's
// commit, cores, free memory, the clock (ms) and, for each full Node version asked for (v26.10.0),
// the binary here that has it (the node on PATH, else the project's .node-cache/), or null.

const { execFileSync } = require('node:child_process')
const os = require('node:os')
const { ROOT } = require('../../lib/config')
const { binaryFor } = require('../../lib/install/node-versions')

/** This checkout's commit, or null outside git. */
function commit () {
  try {
    return execFileSync('git', ['-C', ROOT, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return null
  }
}

/**
 * What this host has.
 * @param {string[]} versions full versions (v26.10.0)
 * @returns {{ node: string, commit: string|null, cores: number, freeMemBytes: number, clockMs: number, nodes: object }}
 */
function probe (versions) {
  const found = {
    node: process.version,
    commit: commit(),
    cores: os.availableParallelism(),
    freeMemBytes: os.freemem(),
    nodes: Object.fromEntries(versions.map((v) => [v, binaryFor(v)]))
  }
  return { ...found, clockMs: Date.now() } // the clock last, just before it is printed
}

if (require.main === module) process.stdout.write(`${JSON.stringify(probe(process.argv.slice(2)))}\n`)

module.exports = { probe, commit }
