'use strict'
// Run on another host over ssh by `./run_benchmark.sh hosts clean` (sweep/hosts/hosts.js), from that host's
// checkout: `node sweep/hosts/clean.js DATA_DIR` ends what a run of this project that is gone left
// there, touching only what the project named: processes whose command line holds cbench-remote-
// (servers, pool workers and data workers of a run's folder) or lib/machine/ipc-relay.js (the relays of
// remote processes); then the folders DATA_DIR/cbench-remote-*. SIGTERM, SIGKILL after 3 s.
// Prints one JSON line: { ended: [{ pid, command }], removed: [path] }.

const fs = require('node:fs')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')
const { readStat } = require('../../lib/machine/proc')
const { hasProc, procPath } = require('../../lib/platform')

const NAMED = /cbench-remote-|lib\/ipc-relay\.js/
const GRACE_MS = 3000

// This process and its ancestors (the ssh session that runs it), which are never ended.
function ancestors () {
  const mine = new Set()
  for (let pid = process.pid; pid > 1 && !mine.has(pid);) {
    mine.add(pid)
    pid = readStat(pid)?.ppid ?? 0
  }
  return mine
}

function named () {
  const spared = ancestors()
  const found = []
  if (!hasProc()) return found // not seen without /proc
  for (const name of fs.readdirSync(procPath())) {
    if (!/^\d+$/.test(name) || spared.has(Number(name))) continue
    try {
      const command = fs.readFileSync(procPath(name, 'cmdline'), 'utf8').split('\0').join(' ').trim()
      if (NAMED.test(command)) found.push({ pid: Number(name), command })
    } catch {} // it ended while we looked
  }
  return found
}

function signal (pid, sig) {
  try {
    process.kill(pid, sig)
  } catch {} // gone already
}

async function clean (dataDir) {
  const ended = named()
  for (const p of ended) signal(p.pid, 'SIGTERM')
  for (const end = Date.now() + GRACE_MS; Date.now() < end && named().length > 0;) await sleep(100)
  for (const p of named()) signal(p.pid, 'SIGKILL')
  const removed = []
  if (fs.existsSync(dataDir)) {
    for (const entry of fs.readdirSync(dataDir, { withFileTypes: true })) {
      if (!entry.isDirectory() || !entry.name.startsWith('cbench-remote-')) continue
      fs.rmSync(path.join(dataDir, entry.name), { recursive: true, force: true })
      removed.push(path.join(dataDir, entry.name))
    }
  }
  return { ended, removed }
}

if (require.main === module) clean(process.argv[2]).then((result) => process.stdout.write(`${JSON.stringify(result)}\n`))

module.exports = { clean }
