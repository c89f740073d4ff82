'use strict'
// The measured part of a round: passes over the live cells (sweep/interleaved/live-cells.js), each pass a
// window of a fixed number of operations per cell in a new shuffled order, so that a slow moment
// of the machine falls on every cell nearly alike. The machine is sampled between passes
// (lib/machine/cpu-share.js); a pass in which other processes or the hypervisor took more than
// --maxInterference of the CPU is dropped, judged by that figure alone, and run again once the
// machine is quiet (sampled every half second, for at most QUIET_WAIT_MS), so that a long
// disturbance costs waiting, not windows. Where interference cannot be measured (null), every pass is kept.

const { resetServerStats, readServerStats } = require('../../client/server-stats')
const { sampleMachine, interferenceBetween } = require('../../lib/machine/cpu-share')
const { shuffle } = require('../../lib/random')

const QUIET_SAMPLE_MS = 500
const QUIET_WAIT_MS = 60000
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// The machine as lib/machine/cpu-share.js reads it; tests give a scripted one.
const MACHINE = { sample: sampleMachine, between: interferenceBetween, quietMs: QUIET_SAMPLE_MS }

// Waits until half a second passes with others below the limit (or the wait or the run's budget
// runs out); resolves with the last sample.
async function quiet (machine, maxInterference, signal, deadline) {
  let before = machine.sample()
  for (const end = Math.min(Date.now() + QUIET_WAIT_MS, deadline); Date.now() < end && !signal.aborted;) {
    await sleep(machine.quietMs)
    const after = machine.sample()
    if (!(machine.between(before, after).interference > maxInterference)) return after
    before = after
  }
  return before
}

// Rejects when a window outlasts its deadline: a hung server must not hang the sweep.
function deadline (promise, ms, what) {
  let timer
  const late = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/**
 * Runs one window of a cell: its next operations in each of its client processes, started together,
 * with the server's telemetry reset before and read after (unless --serverStats=false). A window with failed requests, one that
 * outlasts cellTimeout (a hung server) and one whose client process died fail the cell for the rest
 * of the run (`failed` says why); the other cells go on.
 * @param {object} c a live cell (sweep/interleaved/live-cells.js)
 * @param {string|number} pass for messages: the pass, or 'warm-up'
 * @param {{ hosts: object|null, cellTimeout: number, telemetry?: boolean }} how
 * @returns {Promise<{ c: object, pass: string|number, ops: number, failed: number, wallUs: number, wallsUs?: number[], cpuUs: object[],
 *   doc: object|null, startNs?: bigint, endNs?: bigint, cpuNs?: number }>} wallsUs: each client process's own time; startNs,
 *   endNs: the window on the monotonic clock (process.hrtime), between the telemetry's reset and its read; cpuNs: the
 *   server's CPU in that window, when the cell has a cpuNow (sweep/interleaved/profiled.js); poolHeldUs: its pool threads' work
 *   in that window (busy threads × time, µs), poolBoundUs: the time its event loop waited on a full pool, when it has a samplePool
 */
async function runWindow (c, pass, { hosts, cellTimeout, telemetry = true }) {
  const { cell, pool, client, size } = c
  const where = pass === 'warm-up' ? 'warm-up' : `pass ${pass}`
  if (hosts?.netem) hosts.setRtt(cell.rtt ?? 0)
  const from = c.ops // operations per client process so far: a window's size may change after the first round (fairWindows)
  c.ops += size
  const reset = telemetry && client.serverStats !== false ? await resetServerStats(client, undefined, c.agent) : 'off'
  let w
  const startNs = process.hrtime.bigint()
  const cpuBefore = c.cpuNow?.() // a profiled round's: the CPU of the cell's processes, read from /proc
  const poolWork = c.samplePool?.() // a profiled round's: its pool threads at work, sampled from /proc until called
  try {
    w = await deadline(pool.window(c.key, cell.nClients, from, from + size), cellTimeout, `a window of ${cell.id} (${where})`)
  } catch (err) {
    poolWork?.()
    c.done++
    c.failed = err.message
    return { c, pass, ops: size * cell.nClients, failed: size * cell.nClients, wallUs: 0, cpuUs: [], doc: null }
  }
  const endNs = process.hrtime.bigint()
  const cpuNs = c.cpuNow && c.cpuNow() - cpuBefore
  const { heldUs: poolHeldUs, boundUs: poolBoundUs } = poolWork?.() ?? {}
  const { stats: doc } = reset === null ? await readServerStats(client, undefined, c.agent) : { stats: null }
  c.done++
  if (w.failed > 0) {
    const kinds = Object.entries(w.failures ?? {}).sort((a, b) => b[1] - a[1]).map(([kind, n]) => `${n} ${kind}`).join(', ')
    c.failed = `${w.failed} of ${size * cell.nClients} requests failed in a window (${where})${kinds && `: ${kinds}`}`
  }
  return { c, pass, ops: size * cell.nClients, failed: w.failed, wallUs: Math.round(w.wallUs), wallsUs: w.wallsUs, cpuUs: w.cpuUs, doc, startNs, endNs, cpuNs,
    poolHeldUs, poolBoundUs }
}

/**
 * Runs passes until `passes` of them were clean, or 2 × passes were tried.
 * @param {object[]} cells the live cells (sweep/interleaved/live-cells.js); their `kept` gets the kept windows
 * @param {{ options: { passes: number, maxInterference: number, cellTimeout: number }, random: () => number,
 *   hosts: object|null, signal: AbortSignal, deadline?: number, onPass?: (pass: object, windows: object[]) => void,
 *   around?: { before(pass: number): Promise<void>, after(pass: number): Promise<void> },
 *   machine?: { sample(): object, between(a, b): object, quietMs: number } }} ctx deadline: when the budget ends
 *   (Date.now() ms); onPass: told each pass and its windows as it ends; around: called before and after each pass's
 *   windows (the profiled rounds switch the profilers); machine: lib/machine/cpu-share.js unless a test scripts it
 * @returns {Promise<{ passes: object[], windows: object[], clean: number, disturbed: boolean }>} every pass
 *   (kept or not, with its interference) and every window; disturbed: too few clean passes while cells were left
 * @throws the abort reason if interrupted
 */
async function runPasses (cells, { options, random, hosts, signal, deadline = Infinity, onPass = () => {}, around = null, machine = MACHINE }) {
  const { passes, maxInterference, cellTimeout } = options
  const log = { passes: [], windows: [], clean: 0 }
  let before = machine.sample()
  for (let pass = 1; log.clean < passes && pass <= 2 * passes; pass++) {
    const live = cells.filter((c) => !c.failed && !c.settled)
    if (live.length === 0) break
    const startedAt = new Date().toISOString()
    const windows = []
    await around?.before(pass)
    for (const c of shuffle(live, random)) {
      if (signal.aborted) throw signal.reason
      windows.push(await runWindow(c, pass, { hosts, cellTimeout }))
    }
    await around?.after(pass)
    const after = machine.sample()
    const figures = machine.between(before, after, windows.reduce((sum, w) => sum + sumCpu(w.cpuUs) + (w.doc?.totals.cpuUs ?? 0), 0))
    before = after
    const kept = !(figures.interference > maxInterference) // null: not measured here
    await Promise.all([...new Set(live.map((c) => c.pool))].map((pool) => pool.settle(kept).catch(() => {}))) // a dead pool's cells failed already
    if (kept) {
      log.clean++
      for (const w of windows) w.c.kept.push(w)
    }
    const waited = performance.now()
    if (!kept && log.clean < passes) before = await quiet(machine, maxInterference, signal, deadline)
    const record = { pass, startedAt, kept, ...figures, waitedMs: Math.round(performance.now() - waited) }
    const rows = windows.map(({ c, doc, cpuUs, wallsUs, startNs, endNs, cpuNs, poolHeldUs, poolBoundUs, ...w }) => ({
      pass, kept, cell: c.cell.id, ...w, clientCpuUs: sumCpu(cpuUs), serverCpuUs: doc?.totals.cpuUs ?? ''
    }))
    log.passes.push(record)
    log.windows.push(...rows)
    onPass(record, rows)
  }
  return { ...log, disturbed: log.clean < passes && cells.some((c) => !c.failed && !c.settled) }
}

const sumCpu = (list) => list.reduce((a, c) => a + c.user + c.system, 0)

module.exports = { runPasses, runWindow, deadline, MACHINE }
