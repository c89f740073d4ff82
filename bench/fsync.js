'use strict'
// What durability costs the stores, and whether group commit pays: `node bench/fsync.js
// [--rounds=5] [--ms=2000] [--inFlight=16]` appends 60-byte records in-process for ms per run,
// `inFlight` at a time for the async stores, into 1 file and into 30, with fsync none, each and
// group, on a real disk (os.tmpdir()), rounds interleaved; prints median appends/s per variant.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { median } = require('../lib/median')
const { parseFlags } = require('./lib/util')
const { createSyncStore, createCallbackStore, createFileHandleStore, createHandleStore } = require('../servers/lib/store')

const STORES = { sync: createSyncStore, callback: createCallbackStore, filehandle: createFileHandleStore, handle: createHandleStore }
const VARIANTS = [
  ['sync', 'none'], ['sync', 'each'],
  ['callback', 'none'], ['callback', 'each'], ['callback', 'group'],
  ['filehandle', 'none'], ['filehandle', 'each'], ['filehandle', 'group'],
  ['handle', 'none'], ['handle', 'each'], ['handle', 'group']
].flatMap(([store, fsync]) => [1, 30].map((files) => ({ store, fsync, files, name: `${store} fsync=${fsync} files=${files}` })))
const RECORD = Buffer.from(`${'r'.repeat(59)}\n`)

// Appends for `ms`: the sync store one after another, the async ones `inFlight` at a time.
async function run ({ store: kind, fsync, files }, { ms, inFlight }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-fsync-'))
  try {
    const store = STORES[kind]({ dataPath: dir, sortSplitString: ' ', fsync })
    const end = Date.now() + ms
    let done = 0
    if (kind === 'sync') {
      for (; Date.now() < end; done++) store.append(`f${done % files}`, RECORD)
    } else {
      await Promise.all(Array.from({ length: inFlight }, async (_, lane) => {
        for (let i = lane; Date.now() < end; i += inFlight) {
          await store.append(`f${i % files}`, RECORD)
          done++
        }
      }))
    }
    return done / (ms / 1000)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

async function main () {
  const opts = parseFlags(process.argv.slice(2), {
    usage: 'node bench/fsync.js [--rounds=N] [--ms=N] [--inFlight=N]',
    about: 'Appends 60-byte records in-process with each store and fsync none, each and group, into 1 file and into 30,\n' +
      'on a real disk (os.tmpdir()), rounds interleaved; prints the median appends/s per variant as JSON on stdout.',
    flags: {
      rounds: [5, 'rounds, each running every variant once'],
      ms: [2000, 'ms of appends per run'],
      inFlight: [16, 'appends at a time for the async stores']
    }
  })
  const rates = new Map(VARIANTS.map((v) => [v.name, []]))
  for (let round = 0; round < opts.rounds; round++) {
    for (let k = 0; k < VARIANTS.length; k++) {
      const variant = VARIANTS[(k + round * 3) % VARIANTS.length] // a rotating order spreads drift
      const rate = await run(variant, opts)
      rates.get(variant.name).push(rate)
      process.stderr.write(`round ${round + 1}: ${variant.name.padEnd(28)} ${rate.toFixed(0).padStart(7)} appends/s\n`)
    }
  }
  const rows = VARIANTS.map((v) => ({ ...v, appendsPerSec: Math.round(median(rates.get(v.name))), rounds: rates.get(v.name).map(Math.round) }))
  const result = { bench: 'fsync', cores: os.availableParallelism(), node: process.version, disk: os.tmpdir(), ...opts, rows }
  process.stdout.write(JSON.stringify(result, null, 2) + '\n')
  process.stderr.write(rows.map((r) => `${r.name.padEnd(28)} ${String(r.appendsPerSec).padStart(7)} appends/s (median of ${opts.rounds})`).join('\n') + '\n')
}

if (require.main === module) main().catch((err) => { process.stderr.write(`${err.stack}\n`); process.exit(1) })
