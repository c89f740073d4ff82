'use strict'
// The folder a balanced server keeps its HAProxy configuration and statistics socket in, made per
// run and removed at exit; one whose launcher is gone (killed) is found and removed at the next
// start, with any HAProxy still running on it.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { isAlive } = require('../lib/machine/proc')
const { hasProc, procPath } = require('../lib/platform')

const PREFIX = 'cbench-lb-' // cbench-lb-<launcher pid>-<random>: only these are ever removed
const NAME = new RegExp(`^${PREFIX}(\\d+)-\\w+$`)

/**
 * A fresh run folder of this process.
 * @param {string} [parent] default: the system's temporary folder
 * @returns {{ dir: string, config: string, socket: string, remove(): void }}
 */
function runDir (parent = os.tmpdir()) {
  const dir = fs.mkdtempSync(path.join(parent, `${PREFIX}${process.pid}-`))
  return {
    dir,
    config: path.join(dir, 'haproxy.cfg'),
    socket: path.join(dir, 'stats.sock'),
    remove: () => fs.rmSync(dir, { recursive: true, force: true })
  }
}

// Processes whose command line names a file in dir (an HAProxy a killed launcher left).
function processesUsing (dir) {
  const found = []
  if (!hasProc()) return found // not seen without /proc (and the -lb kinds need it)
  for (const name of fs.readdirSync(procPath())) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (fs.readFileSync(procPath(name, 'cmdline'), 'utf8').split('\0').some((arg) => arg.startsWith(`${dir}/`))) found.push(Number(name))
    } catch {}
  }
  return found
}

/**
 * Removes the run folders whose launcher is gone, and kills what still runs on them.
 * @param {function(string): void} log one line per folder
 * @param {string} [parent]
 * @returns {string[]} the folders removed
 */
function cleanStaleRunDirs (log, parent = os.tmpdir()) {
  const removed = []
  for (const name of fs.readdirSync(parent)) {
    const m = NAME.exec(name)
    if (!m || isAlive(Number(m[1]))) continue
    const dir = path.join(parent, name)
    const pids = processesUsing(dir)
    for (const pid of pids) {
      try { process.kill(pid, 'SIGKILL') } catch {}
    }
    fs.rmSync(dir, { recursive: true, force: true })
    log(`removed ${dir}, left by a balanced server (pid ${m[1]}) that is gone${pids.length ? `; killed pids ${pids.join(' ')} still using it` : ''}`)
    removed.push(dir)
  }
  return removed
}

module.exports = { runDir, cleanStaleRunDirs }
