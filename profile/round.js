'use strict'
// One profiled round, cell by cell: its profiled windows' samples (perf's, or V8's alone) put into
// categories and folded stacks (profile/attribute.js), beside what the telemetry measured in the same
// windows (requests, server CPU, fs waits) and the throughput of profiled against unprofiled windows.

const fs = require('node:fs')
const { median } = require('../lib/median')
const { parsePerfScript } = require('./perf-script')
const { cpuprofileSamples } = require('./cpuprofile')
const { attributeSamples, fromPerfScript, fromCpuprofile } = require('./attribute')

const WAITS = ['syncUs', 'syncCalls', 'poolBusyUs', 'poolQueuedUs', 'poolCalls', 'poolTrips', 'sleeps']

// Every serving process of a telemetry document: pid, role, and a label that names it in stacks and files,
// workers and backends numbered in the document's order (so a fresh server's are named as the last one's).
function processesOf (doc) {
  const list = doc.processes.map((p) => ({ pid: p.pid, role: p.role }))
  if (doc.balancer?.pid) list.push({ pid: doc.balancer.pid, role: 'balancer' })
  const count = { worker: 0, backend: 0 }
  return list.map((p) => ({ ...p, label: p.role in count ? `${p.role} ${++count[p.role]}` : p.role === 'balancer' ? 'haproxy' : p.role }))
}

const userCpuNs = (doc) => doc.processes.reduce((a, p) => a + p.cpuUs.user, 0) * 1000

const opsPerSec = (windows) => {
  const rates = windows.filter((w) => w.wallUs > 0).map((w) => w.ops / (w.wallUs / 1e6))
  return rates.length > 0 ? Math.round(median(rates)) : null
}

/**
 * The figures of one round's kept windows: the categories, requests, CPU and fs waits of the windows
 * the attributing profiler sampled (perf's, or V8's when there is no perf), the throughput of those,
 * of V8's (with perf) and of the unprofiled ones, and the V8 profiles written.
 * @param {Array<{ cell: string, by: 'perf'|'v8'|null, startNs: bigint, endNs: bigint, cpuNs?: number, poolHeldUs?: number, poolBoundUs?: number,
 *   doc: object|null, ops: number, wallUs: number }>} windows by: the profiler that sampled the window
 * @param {{ perfText: string|null, known: Map<number, object>, userOnly?: boolean }} how perfText: the round's `perf script`,
 *   null for V8's stacks alone; known: pid -> { pid, role, cell, label } of the processes seen so far (filled in here);
 *   userOnly: perf sampled user space only, so the CPU it is held against is the servers' user time
 * @returns {Map<string, { requests: number, serverCpuUs: number, sampledUs: number, categories: object, waits: object,
 *   opsPerSec: { profiled: number|null, unprofiled: number|null, v8?: number|null }, functions: Map, folded: Map,
 *   profiles: Array<{ pid: number, file: string }>, pids: number[] }>}
 */
function roundFigures (windows, { perfText, known, userOnly = false }) {
  const mode = perfText !== null ? 'perf' : 'v8'
  const profiled = windows.filter((w) => w.by === mode && w.doc)
  for (const w of windows.filter((w) => w.by && w.doc)) {
    for (const p of processesOf(w.doc)) if (!known.has(p.pid)) known.set(p.pid, { ...p, cell: w.cell })
  }
  const cut = profiled.map((w) => ({ cell: w.cell, round: 0, startNs: Number(w.startNs), endNs: Number(w.endNs), pids: processesOf(w.doc).map((p) => p.pid) }))
  const profiles = windows.filter((w) => w.by === 'v8' && w.doc)
    .flatMap((w) => w.doc.processes.filter((p) => p.profile).map((p) => ({ cell: w.cell, pid: p.pid, file: p.profile, mainCpuUs: p.mainCpuUs })))
  const samples = mode === 'perf'
    ? fromPerfScript(parsePerfScript(perfText))
    : profiles.flatMap(({ pid, file, mainCpuUs }) => fromCpuprofile(cpuprofileSamples(JSON.parse(fs.readFileSync(file, 'utf8'))), pid, mainCpuUs))
  const { cells } = attributeSamples(samples, { windows: cut, processes: known })
  const figures = new Map()
  for (const cell of new Set(windows.map((w) => w.cell))) {
    const mine = profiled.filter((w) => w.cell === cell)
    const by = (b) => opsPerSec(windows.filter((w) => w.cell === cell && w.by === b))
    const got = cells.get(cell)?.get(0)
    const waits = Object.fromEntries(WAITS.map((k) => [k, 0]))
    for (const p of mine.flatMap((w) => w.doc.processes)) for (const k of WAITS) waits[k] += p.fsWaits?.[k] ?? 0
    // The pool threads' work, sampled over each window (sweep/interleaved/profiled.js): an async cell's, in every window.
    if (mine.length > 0 && mine.every((w) => Number.isFinite(w.poolHeldUs))) waits.poolHeldUs = mine.reduce((a, w) => a + w.poolHeldUs, 0)
    // And the time its event loop waited on a full pool, over the windows' own time.
    if (mine.length > 0 && mine.every((w) => Number.isFinite(w.poolBoundUs))) {
      waits.poolBoundUs = mine.reduce((a, w) => a + w.poolBoundUs, 0)
      waits.poolWindowUs = Math.round(mine.reduce((a, w) => a + Number(w.endNs) - Number(w.startNs), 0) / 1000)
    }
    figures.set(cell, {
      requests: mine.reduce((a, w) => a + w.doc.totals.requests, 0),
      serverCpuUs: Math.round(mine.reduce((a, w) => a + (userOnly ? userCpuNs(w.doc) : w.cpuNs ?? w.doc.totals.cpuUs * 1000), 0) / 1000),
      sampledUs: got?.sampledUs ?? 0,
      categories: got?.categories ?? {},
      waits,
      opsPerSec: { profiled: by(mode), unprofiled: by(null), ...(mode === 'perf' && { v8: by('v8') }) },
      functions: got?.functions ?? new Map(),
      folded: got?.folded ?? new Map(),
      profiles: profiles.filter((p) => p.cell === cell),
      pids: [...new Set(mine.flatMap((w) => processesOf(w.doc).map((p) => p.pid)))]
    })
  }
  return figures
}

module.exports = { roundFigures }
