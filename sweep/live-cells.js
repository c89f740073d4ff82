'use strict'
// The cells of an interleaved run (sweep, quick, versions), live from its start to its end: every
// cell's server started once, each on its own port and data folder (behind the delay layer, HAProxy,
// a namespace as the cell asks), and a load generator per cell in the client processes, which are
// kept too (a pool per client placement); every cell warmed up in interleaved windows until each
// serving process has had --warmOps operations, so that rounds measure servers in their steady
// state; after each round, every cell's files verified and its JSON, CSV and summary row written.

const http = require('node:http')
const path = require('node:path')
const { openServer, serverGone } = require('./harness')
const { connectRun } = require('./placement')
const { rowOf, jsonFigures, wrongNode, writeHgrms, PROBLEMS } = require('./cell')
const { writeJson, writeText } = require('./results')
const { processCpuUs } = require('./process-group')
const { runWindow } = require('./passes')
const { newRunId, decodeBitset } = require('../client/ledger')
const { fileSizes, verifyFiles } = require('../client/verify')
const { buildReport } = require('../client/report')
const { formatCsv } = require('../client/csv')
const { mergeServerStats } = require('../client/server-stats')
const { describeEnv } = require('../lib/env')

/**
 * Starts every cell's server, its link and its load generators, and creates its files.
 * @param {object[]} cells the plan's cells
 * @param {{ options: object, signal: AbortSignal, hosts: object|null, pools: { get(prefix: string[], size: number): object } }} ctx
 *   and what sweep/harness.js openServer takes; options: window, passes, maxRounds
 * @param {number} [generation] which start of the cells this is (--restartEvery), from 1
 * @returns {Promise<object[]>} per cell: { cell, opened, client, pool, size, done, kept, failed, ... }; a cell
 *   that could not start has `failed` set
 * @throws the abort reason if interrupted, after stopping everything
 */
async function openCells (cells, ctx, generation = 1) {
  const opened = await Promise.allSettled(cells.map((cell) => openServer({ cell, generation }, ctx)))
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

async function prepare (c, ctx, poolSize, generation) {
  const { cell, opened } = c
  const { window, passes, maxRounds } = ctx.options
  opened.link = await connectRun(ctx.hosts, cell.rtt ?? 0, opened.server.port)
  c.size = Math.ceil(window / cell.nClients) // operations per client process per window
  c.warmWindows = Math.ceil(ctx.options.warmOps * cell.nServers / (c.size * cell.nClients))
  c.client = {
    ...cell.config,
    dataPath: opened.dataPath,
    ...(opened.link.host && { serverHostname: opened.link.host }),
    serverPort: opened.link.port,
    // Room in the acknowledgement ledgers for every window the run may take, each pass twice.
    nOperations: c.size * cell.nClients * (c.warmWindows + 2 * passes * maxRounds)
  }
  c.pool = ctx.pools.get(opened.placement.clientPrefix, poolSize)
  c.agent = new http.Agent({ keepAlive: true, maxSockets: 1 }) // the telemetry's one connection, twice a window
  c.runId = newRunId()
  c.sizesBefore = fileSizes(c.client)
  c.key = `${cell.id} g${generation}` // the cell's load generators in the pool, one set per generation
  await c.pool.open(c.key, c.client, c.runId)
  c.announced = (await c.pool.phase(c.key, cell.nClients, 'create')).announced
  const warm = await c.pool.phase(c.key, cell.nClients, 'warm')
  if (warm.failed > 0) c.failed = `${warm.failed} warm-up operations failed`
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

const storageNow = async (storage) => storage && { counters: await storage.stats(), cpuUs: processCpuUs(storage.pid) }

/** Notes where every cell's round begins: its storage counters and windows so far. */
async function beginRound (state) {
  for (const c of state) {
    c.kept = []
    c.roundStart = { done: c.done, storage: c.failed ? null : await storageNow(c.opened.storage) }
  }
}

// A full disk, said first whatever else failed, or ''.
function diskFull (json) {
  const full = (json.errors.PUT['http-507'] ?? 0) + (json.warmup.errors.PUT['http-507'] ?? 0)
  return full > 0 ? `disk full: ${full} PUTs answered 507 Insufficient Storage` : ''
}

// Why a round's JSON is not ok, or ''.
function problemOf (json) {
  if (json.ok) return ''
  const v = json.verification
  const problems = [json.errorCount && `${json.errorCount} failed requests`, json.warmup.failed && `${json.warmup.failed} failed warm-up operations`,
    ...PROBLEMS.map((p) => v[p] && `${v[p]} ${p}`), v.checked && v.bytes !== v.expectedBytes && `${v.bytes} bytes appended, ${v.expectedBytes} expected`]
  return problems.filter(Boolean).join(', ') || json.problems.join('; ') || 'not every operation succeeded'
}

/**
 * Ends a round for every cell not settled: takes what its client processes measured in the kept windows,
 * verifies its files so far, writes cells/CELL-rROUND.json, .csv and .hgrm, and makes its row.
 * @param {object[]} state from openCells
 * @param {{ round: number, order: number, disturbed: string }} at order: the first row's; disturbed: why the
 *   round does not count, or ''
 * @param {{ dir: string }} ctx
 * @returns {Promise<object[]>} the rows, one per cell
 */
async function endRound (state, { round, order, disturbed }, ctx) {
  const rows = []
  for (const [k, c] of state.entries()) {
    if (!c.settled) rows.push(await endCell(c, { cell: c.cell, repeat: round, order: order + k }, disturbed, ctx))
  }
  return rows
}

async function endCell (c, run, disturbed, ctx) {
  const { cell, opened } = c
  const placement = opened?.placement.row ?? {}
  if (!c.client || (c.failed && c.done === c.roundStart.done)) return rowOf(run, { ...placement, valid: false, reason: c.failed })
  let taken = null
  try {
    taken = await c.pool.take(c.key, cell.nClients)
  } catch (err) {
    c.failed ||= err.message
  }
  const processes = (taken ?? Array.from({ length: cell.nClients }, (_, k) => ({ index: k + 1, pid: null, result: null })))
    .map((p, k) => ({ ...p, exit: null, result: p.result && { ...p.result, cpuUs: cpuOf(c.kept, k) } }))
  const acks = processes.map(({ result }) => result && { w: decodeBitset(result.acks.w), c: decodeBitset(result.acks.c) })
  // Through the delay layer every read would wait its ioDelay: its backing folder holds the same bytes.
  const dataPath = opened.storage?.backing ?? c.client.dataPath
  const verification = verifyFiles({ config: { ...c.client, dataPath, nOperations: c.done * c.size * cell.nClients }, runId: c.runId, sizesBefore: c.sizesBefore, acks })
  const docs = c.kept.map((w) => w.doc).filter(Boolean)
  const json = buildReport({
    config: { ...c.client, nOperations: c.kept.length * c.size * cell.nClients },
    runId: c.runId,
    env: describeEnv(),
    run: {
      startedAt: new Date().toISOString(),
      wallTimeMs: c.kept.reduce((a, w) => a + w.wallUs, 0) / 1000,
      announced: c.announced ?? null,
      server: { stats: mergeServerStats(docs), problem: docs.length === c.kept.length ? null : 'server stats: a window without telemetry' },
      processes
    },
    verification,
    primaryMaxRssKb: process.resourceUsage().maxRSS
  })
  // warmup in the JSON is the client processes' warm-up phase; the windows say what the run did.
  json.windows = { operations: c.size * cell.nClients, warmUp: c.warmWindows, kept: c.kept.length, run: c.done - c.roundStart.done }
  const name = `cells/${cell.id}-r${run.repeat}`
  writeJson(path.join(ctx.dir, `${name}.json`), json)
  writeText(path.join(ctx.dir, `${name}.csv`), formatCsv(json))
  writeHgrms(ctx.dir, `${name}.json`, json)
  const requests = (c.done - c.roundStart.done) * c.size * cell.nClients
  const reason = diskFull(json) || c.failed || disturbed || problemOf(json) || wrongNode(cell, json) || serverGone(opened)
  return rowOf(run, {
    ...placement,
    ...jsonFigures(json, { storageStart: c.roundStart.storage, storageEnd: await storageNow(opened.storage), requests }),
    ...opened.link.fields(),
    serverCpuUs: json.serverStats?.totals.cpuUs ?? '',
    json: `${name}.json`,
    valid: !reason,
    reason
  })
}

// Process k's CPU over the kept windows.
function cpuOf (kept, k) {
  const sum = { user: 0, system: 0 }
  for (const w of kept) {
    sum.user += w.cpuUs[k]?.user ?? 0
    sum.system += w.cpuUs[k]?.system ?? 0
  }
  return sum
}

/** Stops every cell's load generators, link, server and storage, and removes its data. */
async function closeCells (state) {
  await Promise.all(state.map(async (c) => {
    c.agent?.destroy()
    await c.pool?.drop(c.key).catch(() => {})
    await c.opened?.link?.close()
    await c.opened?.close()
  }))
}

module.exports = { openCells, warmCells, beginRound, endRound, closeCells }
