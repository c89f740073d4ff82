'use strict'
// threadpool (sweep/commands.js; run by sweep/measures.js): its plan, and before its cells run two probes on each runtime:
// the time a GET's fs.readFile holds a pool thread on each of the plan's storages, at queue depth 1 (the model's input:
// report/stats/pool-model.js), and whether libuv sends these calls to io_uring when UV_USE_IO_URING=1 asks it to. Where
// it does not, the io_uring cells would measure the pool a second time: they are left out, saying so. The probes' figures
// go to env.json.

const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { ConfigError } = require('../../lib/config')
const { valueLabel } = require('../../lib/results/dimensions')
const { LIBUV_DEFAULT_THREADPOOL } = require('../../lib/results/environment')
const { mountDelayFs } = require('../../storage')
const { evict } = require('../../storage/cache')
const { planCells } = require('../plan/grid')

const PROBE = path.join(__dirname, 'probe.js')
const PROBE_FILES = 64
const PROBE_BYTES = 4096
const PROBE_POOL = 7 // a pool size no runtime starts threads for on its own

/**
 * threadpool's arguments: the plan, refused when a --uvThreadpoolSize list leaves out libuv's default, which
 * every other size is compared with.
 * @param {object} preset
 * @param {string[]} rest
 * @returns {{ plan: object }}
 */
function parseThreadpool (preset, rest) {
  const plan = planCells(preset, rest)
  if (!plan.grid.uvThreadpoolSize.includes(LIBUV_DEFAULT_THREADPOOL)) {
    throw new ConfigError(`--uvThreadpoolSize=${plan.grid.uvThreadpoolSize.join(',')}: threadpool compares each pool size with ` +
      `libuv's default, ${LIBUV_DEFAULT_THREADPOOL}: add ${LIBUV_DEFAULT_THREADPOOL} to the list`)
  }
  return { plan }
}

// One probe (sweep/threadpool/probe.js): the runtime reads the files one at a time; { usPerCall } or { threadsStarted }.
function probe (cell, mode, files, env) {
  const out = spawnSync(cell.runtimeBin, [...cell.runtimeArgs, PROBE, mode, ...files], {
    // No NODE_OPTIONS: a module it preloads could start the pool before the probe counts the threads.
    env: { ...process.env, NODE_OPTIONS: '', UV_THREADPOOL_SIZE: String(PROBE_POOL), UV_USE_IO_URING: '0', ...env }, encoding: 'utf8', timeout: 60000
  })
  if (out.status !== 0) throw new Error(`${cell.runtimeBin} ${PROBE}: ${(out.stderr || out.error?.message || `exit ${out.status}`).trim()}`)
  return JSON.parse(out.stdout)
}

function writeFiles (dir) {
  fs.mkdirSync(dir, { recursive: true })
  const files = Array.from({ length: PROBE_FILES }, (_, k) => path.join(dir, `f${k}`))
  for (const f of files) fs.writeFileSync(f, Buffer.alloc(PROBE_BYTES, 'x'))
  return files
}

// The storages of the plan's cells, once each: storage and ioDelay as the cells have them.
const storagesOf = (cells) => [...new Map(cells.map((c) => [`${c.storage}|${c.ioDelay}`, c])).values()]

/**
 * Each runtime's probes, in a folder of dataPath that is removed after.
 * @param {object[]} cells the plan's
 * @param {string} dataPath
 * @param {(line: string) => void} say
 * @returns {Promise<{ hold: object[], ioUring: object[] }>} hold: { runtime, storage, ioDelay, usPerCall }; ioUring:
 *   { runtime, used, threadsStarted } (used: the probe started fewer threads than the pool's size)
 */
async function probeRuntimes (cells, dataPath, say) {
  const dir = path.join(dataPath, `threadpool-probe-${process.pid}`)
  const hold = []
  const ioUring = []
  try {
    for (const runtime of new Map(cells.map((c) => [c.runtime, c])).values()) {
      const plain = writeFiles(path.join(dir, 'plain'))
      const iou = probe(runtime, 'threads', plain, { UV_USE_IO_URING: '1' })
      ioUring.push({ runtime: runtime.runtime, used: iou.threadsStarted < PROBE_POOL, threadsStarted: iou.threadsStarted })
      for (const s of storagesOf(cells.filter((c) => c.runtime === runtime.runtime))) {
        let usPerCall
        if (s.storage === 'delay') {
          const mountpoint = path.join(dir, `d${s.ioDelay}`)
          const files = writeFiles(`${mountpoint}.backing`).map((f) => path.join(mountpoint, path.basename(f)))
          const ioDelayQd4 = Number.isInteger(s.ioDelayQd4) ? s.ioDelayQd4 : null
          const layer = await mountDelayFs({ backing: `${mountpoint}.backing`, mountpoint, ioDelay: s.ioDelay, ioDelayQd4, ioDepth: s.ioDepth, log: () => {} })
          try {
            usPerCall = probe(runtime, 'hold', files).usPerCall
          } finally {
            await layer.unmount()
          }
        } else if (s.storage === 'cold') {
          const files = writeFiles(path.join(dir, 'cold'))
          await evict(path.join(dir, 'cold'))
          usPerCall = probe(runtime, 'hold', files).usPerCall
        } else {
          usPerCall = probe(runtime, 'hold', plain).usPerCall
        }
        hold.push({ runtime: runtime.runtime, storage: s.storage, ioDelay: s.ioDelay, usPerCall: Math.round(usPerCall * 10) / 10 })
        say(`a GET's file calls at queue depth 1 on ${valueLabel('runtime', runtime.runtime)}, ${storageWords(s)}: ${hold.at(-1).usPerCall} µs`)
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return { hold, ioUring }
}

const storageWords = (c) => (c.storage === 'delay' ? `${c.ioDelay} µs storage` : c.storage === 'cold' ? 'the real disk, cold' : 'plain folder')

/**
 * The plan's cells less the io_uring ones on a runtime whose libuv keeps these calls in its pool, with a note for each.
 * @param {object[]} cells the plan's
 * @param {{ runtime: string, used: boolean, threadsStarted: number }[]} ioUring probeRuntimes's
 * @returns {{ cells: object[], notes: string[] }}
 */
function dropUnusedIoUring (cells, ioUring) {
  const notes = []
  let kept = cells
  for (const { runtime, used, threadsStarted } of ioUring) {
    const mine = (c) => c.runtime === runtime && c.uvUseIoUring === 1
    const first = kept.find(mine)
    if (used || !first) continue
    kept = kept.filter((c) => !mine(c))
    notes.push(`left out the io_uring cells on ${valueLabel('runtime', runtime)}: its libuv${first.uv ? ` ${first.uv}` : ''} keeps fs.readFile's calls ` +
      `in its thread pool even with UV_USE_IO_URING=1 (a probe started ${threadsStarted} of a pool of ${PROBE_POOL} threads)`)
  }
  return { cells: kept, notes }
}

module.exports = { parseThreadpool, probeRuntimes, dropUnusedIoUring, PROBE_POOL }
