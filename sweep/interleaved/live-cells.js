'use strict'
// The cells of an interleaved run (sweep, quick, versions), live from its start to its end: every
// cell's server started once, each on its own port and data folder (behind the delay layer, HAProxy,
// a namespace as the cell asks), and a load generator per cell in the client processes, which are
// kept too (a pool per client placement); every cell warmed up, all at once, until each serving
// process has had --warmOps operations, so that rounds measure servers in their steady state (the
// end of each round: sweep/interleaved/round-rows.js).

const os = require('node:os')
const http = require('node:http')
const { openServer, dataOf, storageNow, rewriteDataSet } = require('../cell/harness')
const { connectRun } = require('../cell/placement')
const { newRunId } = require('../../client/ledger')
const { runWindow } = require('./passes')
const { beginCache } = require('../cell/cache-state')
const { median } = require('../../lib/median')

/**
 * Starts every cell's server, its link and its load generators, and creates its files.
 * @param {object[]} cells the plan's cells
 * @param {{ options: object, signal: AbortSignal, hosts: object|null, pools: { get(prefix: string[], size: number): object } }} ctx
 *   and what sweep/cell/harness.js openServer takes; options: window, passes, rounds, maxRounds, warmOps
 * @param {number} [generation] which start of the cells this is (--restartEvery), from 1
 * @returns {Promise<object[]>} per cell: { cell, opened, client, pool, size, done, kept, failed, ... }; a cell
 *   that could not start has `failed` set
 * @throws the abort reason if interrupted, after stopping everything
 */
async function openCells (cells, ctx, generation = 1) {
  const opened = await startEach(cells, (cell, tried) => openServer({ cell, generation }, ctx).then((o) => {
    for (const why of tried) o.log.write(`# started again: the start before failed: ${why}\n`)
    return o
  }), { signal: ctx.signal })
  const state = opened.map((o, k) => ({ cell: cells[k], opened: o.value ?? null, kept: [], done: 0, failed: o.value?.error?.message ?? '' }))
  const aborted = opened.find((o) => o.status === 'rejected')
  if (aborted) {
    await closeCells(state)
    throw aborted.reason
  }
  const size = Math.max(...cells.map((c) => c.nClients))
  await Promise.all(state.filter((c) => !c.failed).map(async (c) => {
    try {
      await prepare(c, ctx, size, generation)
    } catch (err) {
      c.failed ||= err.message
    }
  }))
  return state
}

// Servers starting at once: 60 cells' processes started together on 2 cores (threadpool, with the profilers' flags) left
// some not ready within --readyTimeout; a few at a time each starts in its own short while, and the whole takes as long.
const START_AT_ONCE = 2 * os.availableParallelism()
const START_TRIES = 3

/**
 * Starts every item, at most `atOnce` at a time; one whose start failed (`value.error`: not ready in time, exited) is closed and
 * started again, alone, after the others, at most `tries` times in all: a slow start costs a moment, never the cell.
 * @param {object[]} items
 * @param {(item: object, tried: string[]) => Promise<{ error: Error|null, close(): Promise<void> }>} start tried: why the
 *   starts before failed; rejects only when the run is interrupted
 * @param {{ signal: AbortSignal, atOnce?: number, tries?: number }} how
 * @returns {Promise<PromiseSettledResult<object>[]>} by item, as Promise.allSettled gives them
 */
async function startEach (items, start, { signal, atOnce = START_AT_ONCE, tries = START_TRIES }) {
  const out = new Array(items.length)
  const tried = items.map(() => [])
  const once = async (k) => {
    if (signal.aborted) return { status: 'rejected', reason: signal.reason }
    try {
      return { status: 'fulfilled', value: await start(items[k], tried[k]) }
    } catch (reason) {
      return { status: 'rejected', reason }
    }
  }
  let next = 0
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, async () => {
    while (next < items.length) {
      const k = next++
      out[k] = await once(k)
    }
  }))
  for (let k = 0; k < items.length; k++) {
    while (out[k].status === 'fulfilled' && out[k].value.error && tried[k].length < tries - 1 && !signal.aborted) {
      tried[k].push(out[k].value.error.message)
      await out[k].value.close()
      out[k] = await once(k)
    }
  }
  return out
}

async function prepare (c, ctx, poolSize, generation) {
  const { cell, opened } = c
  const { window, passes, maxRounds, rounds } = ctx.options
  opened.link = await connectRun(ctx.hosts, cell.rtt ?? 0, opened.server.port)
  c.size = Math.ceil(window / cell.nClients) // operations per client process per window (fairWindows may shrink it)
  c.warmWindows = Math.ceil(ctx.options.warmOps * cell.nServers / (c.size * cell.nClients))
  c.client = {
    ...cell.config,
    dataPath: opened.dataPath,
    ...(opened.placement.serverHostname && { serverHostname: opened.placement.serverHostname }),
    ...(opened.link.host && { serverHostname: opened.link.host }),
    serverPort: opened.link.port,
    // Room in the acknowledgement ledgers for every window the run may take: each pass twice, in
    // every clean round and every disturbed one (at most --rounds of those).
    nOperations: c.size * cell.nClients * (c.warmWindows + 2 * passes * (maxRounds + rounds))
  }
  c.pool = ctx.pools.get(opened.placement.clientPrefix, poolSize)
  c.agent = new http.Agent({ keepAlive: true, maxSockets: 1 }) // the telemetry's one connection, twice a window
  c.data = dataOf(ctx) // the files: on the server host, or here
  c.remote = Boolean(ctx.remote)
  c.key = `${cell.id} g${generation}` // the cell's load generators in the pool, one set per generation
  await createFiles(c)
  const warm = await c.pool.phase(c.key, cell.nClients, 'warm')
  if (warm.failed > 0) c.failed = `${warm.failed} warm-up operations failed`
  await expectFiles(c)
}

// The cell's load generators opened afresh (a new run id, acknowledgements and operation count) and its files created
// through the server, from where they are now (the first time: none or the data set; --freshFiles: emptied in place, or the
// data set written again).
async function createFiles (c) {
  c.runId = newRunId()
  c.ops = 0
  c.sizesBefore = await c.data.call('sizes', { config: c.client })
  await c.pool.open(c.key, c.client, c.runId)
  const created = await c.pool.phase(c.key, c.cell.nClients, 'create')
  c.announced ??= created.announced
  if (created.failed > 0) c.failed = `${created.failed} operations failed creating the files`
}

// A read-only cell's GETs must answer its files, whose sizes no longer change (client/get-check.js): every window's are
// checked, and on a sample their bytes where the client processes see the files (no other host in the run).
async function expectFiles (c) {
  if (c.cell.config.readsPerWrite !== 'inf') return
  await c.pool.expect(c.key, c.cell.nClients, { sizes: await c.data.call('sizes', { config: c.client }), readData: !c.remote })
}

/**
 * --freshFiles: the cell's files emptied (in place; a data set written again) and created again before a round, and its
 * load generators opened afresh (their operations from the first again), so that every round does the same operations on
 * files of the same sizes, whatever the budget and the machine (a PUT appends and a GET sorts the whole file: grown files
 * change the answer).
 * @param {object} c a live cell
 */
async function refreshFiles (c) {
  await c.pool.drop(c.key)
  // A data set (--fileBytes, written here at the server's start: sweep/cell/harness.js) is written again, in place.
  if (c.client.fileBytes > 0 && !c.remote) await rewriteDataSet(c.cell, c.opened, c.client)
  else await c.data.call('empty', { dir: c.client.dataPath })
  await createFiles(c)
  await expectFiles(c)
}

/**
 * Warms every cell up, all at once (nothing is measured yet, and a cell that waits on its storage
 * leaves the cores to the others), in windows that are not recorded, until each has had its warm-up
 * windows (or failed).
 * @param {object[]} state from openCells
 * @param {{ hosts: object|null, signal: AbortSignal, options: { cellTimeout: number } }} ctx
 * @returns {Promise<number>} the windows run
 */
async function warmCells (state, ctx) {
  let windows = 0
  const live = state.filter((c) => !c.failed)
  await Promise.all(live.map(async (c) => {
    while (!c.failed && c.done < c.warmWindows) {
      if (ctx.signal.aborted) throw ctx.signal.reason
      await runWindow(c, 'warm-up', { hosts: ctx.hosts, cellTimeout: ctx.options.cellTimeout, telemetry: false })
      windows++
    }
  }))
  await Promise.all([...new Set(live.map((c) => c.pool))].map((pool) => pool.settle(false)))
  return windows
}

/**
 * Notes where every cell's round begins: its storage counters, windows so far and cache state (a cold one emptied); with
 * --freshFiles (the default), first its files created afresh, unless they never change (GETs only).
 * @param {object[]} state from openCells
 * @param {{ freshFiles?: boolean }} [how]
 */
async function beginRound (state, { freshFiles = false } = {}) {
  for (const c of state) {
    c.kept = []
    c.drift = ''
    try {
      if (freshFiles && !c.failed && !c.settled && c.cell.config.readsPerWrite !== 'inf') await refreshFiles(c)
    } catch (err) {
      c.failed = `creating the files afresh: ${err.message}`
    }
    c.roundStart = { done: c.done, ops: c.ops, storage: c.failed ? null : await storageNow(c.opened.storage), cache: null }
    try {
      if (!c.failed && !c.settled) c.roundStart.cache = await beginCache(c)
    } catch (err) {
      c.failed = `the data set's cache: ${err.message}`
    }
  }
}

// No window shrinks below this many operations per client process (a few per connection).
const MIN_WINDOW_OPS = 10

/**
 * --fairWindows: after the first round, each cell whose windows took longer than the median cell's gets windows of fewer
 * operations, as long as the median's (never longer than --window), so that every cell has a like share of the time and a
 * slow cell (1 ms storage: 6 times the median) does not take most of the budget from the comparisons that need it.
 * @param {object[]} state the live cells after their first round (their kept windows)
 * @returns {string[]} a line per cell resized
 */
function fairWindows (state) {
  const timed = state.filter((c) => !c.failed && c.kept.length > 0).map((c) => ({ c, ms: median(c.kept.map((w) => w.wallUs)) / 1000 }))
  if (timed.length < 2) return []
  const target = median(timed.map((t) => t.ms))
  const sized = timed.map((t) => ({ ...t, size: Math.max(MIN_WINDOW_OPS, Math.min(t.c.size, Math.round(t.c.size * target / t.ms))) }))
  return sized.filter((t) => t.size < t.c.size).map(({ c, ms, size }) => {
    const line = `${c.cell.id}: windows of ${size * c.cell.nClients} operations (${(ms * size / c.size).toFixed(0)} ms), ` +
      `not ${c.size * c.cell.nClients} (${ms.toFixed(0)} ms)`
    c.size = size
    return line
  })
}

// The plan's cells in the phases of an interleaved run (sweep/interleaved/rounds.js): the page cache's, then those that wait
// on storage or a link (the groups present), and a phase's name.
function storageGroups (cells) {
  const waits = (cell) => cell.storage !== 'cache' || (cell.rtt ?? 0) > 0
  return [cells.filter((cell) => !waits(cell)), cells.filter(waits)].filter((group) => group.length > 0)
}
const groupLabel = (cell) => (cell.storage === 'cache' && !(cell.rtt > 0) ? 'the page cache' : 'storage or a link that waits')

/** Stops every cell's load generators, link, server and storage, and removes its data. */
async function closeCells (state) {
  await Promise.all(state.map(async (c) => {
    c.agent?.destroy()
    await c.pool?.drop(c.key).catch(() => {})
    await c.opened?.link?.close()
    await c.opened?.close()
  }))
}

module.exports = { openCells, warmCells, beginRound, closeCells, fairWindows, startEach, storageGroups, groupLabel }
