'use strict'
// The end of an interleaved round for each live cell (sweep/interleaved/live-cells.js): what its client
// processes measured in the kept windows, its files verified so far, its JSON, CSV and .hgrm
// written, and its summary.csv row.

const path = require('node:path')
const { serverGone, storageNow } = require('../cell/harness')
const { endCache } = require('../cell/cache-state')
const { rowOf, jsonFigures, wrongRuntime, writeHgrms, PROBLEMS } = require('../cell/cell')
const { writeJson, writeText } = require('../results/folder')
const { buildReport } = require('../../client/report')
const { formatCsv } = require('../../client/csv')
const { mergeServerStats } = require('../../client/server-stats')
const { describeEnv } = require('../../lib/results/environment')

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
  // The cache as the round left it, before verification reads the files.
  const requests = (c.ops - c.roundStart.ops) * cell.nClients
  let cache = { fields: {}, drift: '' }
  try {
    cache = endCache(c.roundStart.cache, c, requests)
  } catch (err) {
    c.failed ||= `the data set's cache: ${err.message}`
  }
  c.drift = cache.drift
  // A server killed at its memory limit fails the cell: its requests failed for that reason.
  if (cache.oom) c.failed = cache.drift
  let taken = null
  try {
    taken = await c.pool.take(c.key, cell.nClients)
  } catch (err) {
    c.failed ||= err.message
  }
  const processes = (taken ?? Array.from({ length: cell.nClients }, (_, k) => ({ index: k + 1, pid: null, result: null })))
    .map((p, k) => ({
      ...p, exit: null, wallMs: sumOf(c.kept, (w) => w.wallsUs?.[k] ?? 0) / 1000, result: p.result && { ...p.result, cpuUs: cpuOf(c.kept, k) }
    }))
  const acks = processes.map(({ result }) => result && result.acks)
  // Through the delay layer every read would wait its ioDelay: its backing folder holds the same bytes.
  const dataPath = opened.storage?.backing ?? c.client.dataPath
  const config = { ...c.client, dataPath, nOperations: c.ops * cell.nClients }
  const verification = await c.data.call('verify', { config, runId: c.runId, sizesBefore: c.sizesBefore, acks })
  const docs = c.kept.map((w) => w.doc).filter(Boolean)
  const json = buildReport({
    config: { ...c.client, nOperations: c.kept.length * c.size * cell.nClients },
    runId: c.runId,
    env: describeEnv(),
    run: {
      startedAt: new Date().toISOString(),
      wallTimeMs: sumOf(c.kept, (w) => w.wallUs) / 1000,
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
  // A fault (a failed request, a lost acknowledgement, a server gone) is said before a round the machine made to measure again.
  const fault = diskFull(json) || c.failed || problemOf(json) || wrongRuntime(cell, json) || serverGone(opened)
  const reason = fault || disturbed || cache.drift
  return rowOf(run, {
    ...placement,
    ...jsonFigures(json, { storageStart: c.roundStart.storage, storageEnd: await storageNow(opened.storage), requests }),
    ...cache.fields,
    ...opened.link.fields(),
    serverCpuUs: json.serverStats?.totals.cpuUs ?? '',
    // Records a file at the round's end: a GET sorts the whole file (with --freshFiles=false the files grow through a run).
    fileRecords: verification.checked && verification.files > 0 ? Number((verification.records / verification.files).toFixed(1)) : '',
    json: `${name}.json`,
    valid: !reason,
    again: Boolean(reason) && !fault,
    reason
  })
}

const sumOf = (list, f) => list.reduce((a, x) => a + f(x), 0)

// Process k's CPU over the kept windows.
function cpuOf (kept, k) {
  const sum = { user: 0, system: 0 }
  for (const w of kept) {
    sum.user += w.cpuUs[k]?.user ?? 0
    sum.system += w.cpuUs[k]?.system ?? 0
  }
  return sum
}

module.exports = { endRound }
