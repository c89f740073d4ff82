'use strict'
// The sweep's data root under dataPath: made fresh per run, with an owner file naming the sweep's
// pid, so that the next run can remove what a killed sweep left behind (its owner gone), and only
// that: folders without an owner file, or whose owner still runs, or kept (--keepData), stay.

const fs = require('node:fs')
const path = require('node:path')
const { readStat, isAlive } = require('../../lib/machine/proc')

const OWNER = '.sweep-owner'

// The kernel's start time of a process (clock ticks since boot), or null if there is none (or no /proc).
const startTime = (pid) => readStat(pid)?.startTime ?? null
// Whether an owner's sweep still runs: its pid with the same start time; without a start time (no /proc), its pid alive.
const running = (owner) => (owner.startTime === null || startTime(owner.pid) === null ? isAlive(owner.pid) : startTime(owner.pid) === owner.startTime)

/**
 * Removes the data roots under dataPath that a sweep which is gone left behind.
 * @param {string} dataPath
 * @returns {string[]} the folders removed
 */
function removeLeftovers (dataPath) {
  const removed = []
  for (const entry of fs.readdirSync(dataPath, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue
    const root = path.join(dataPath, entry.name)
    let owner
    try {
      owner = JSON.parse(fs.readFileSync(path.join(root, OWNER), 'utf8'))
    } catch {
      continue // not a sweep's, or kept on purpose
    }
    if (owner.keep || running(owner)) continue // kept, or its sweep still runs
    fs.rmSync(root, { recursive: true, force: true })
    removed.push(root)
  }
  return removed
}

/**
 * Makes this run's data root, owned by this process.
 * @param {string} dataPath
 * @param {string} name the results folder's name
 * @param {boolean} keep whether the data is to be kept (--keepData): then never a leftover
 * @returns {{ root: string, release(): void }} release: at the end, remove the root (empty by then)
 *   or, when kept, leave it without its owner file
 */
function createDataRoot (dataPath, name, keep) {
  const root = fs.mkdtempSync(path.join(dataPath, `${name}-`))
  const owner = path.join(root, OWNER)
  fs.writeFileSync(owner, JSON.stringify({ pid: process.pid, startTime: startTime(process.pid), keep }) + '\n')
  return {
    root,
    release () {
      fs.rmSync(owner, { force: true })
      if (!keep) fs.rmdirSync(root)
    }
  }
}

module.exports = { createDataRoot, removeLeftovers }
