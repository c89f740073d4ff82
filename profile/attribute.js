'use strict'
// Cuts normalised CPU samples (perf or V8) by time window and process into per (cell, round)
// totals per category, top functions and folded stacks (flamegraph.pl / speedscope text).

const { CATEGORIES, categorize, functionName, isGcFrame, isPoolThread } = require('./categories')

/**
 * perf samples (profile/perf-script.js) as the normalised samples attributeSamples takes.
 * @param {Array<{ pid: number, tid: number, timeNs: number, periodNs: number, frames: object[] }>} samples
 * @returns {Array<{ pid: number, tid: number, timeNs: number, weightNs: number, frames: object[] }>}
 */
function fromPerfScript (samples) {
  return samples.map(({ pid, tid, timeNs, periodNs, frames }) => ({ pid, tid, timeNs, weightNs: periodNs, frames }))
}

/**
 * V8 samples of one process (profile/cpuprofile.js) as normalised samples: µs to ns, tid = pid,
 * and (idle) samples dropped, as they are not CPU. V8 weighs a sample by the wall time to the next,
 * which counts the time the thread waited for a core; given the main thread's CPU over the profile
 * (mainCpuUs, lib/serving/profiler.js), the weights are scaled to add up to it.
 * @param {Array<{ timeUs: number, weightUs: number, frames: object[] }>} samples
 * @param {number} pid
 * @param {number} [mainCpuUs]
 * @returns {Array<{ pid: number, tid: number, timeNs: number, weightNs: number, frames: object[] }>}
 */
function fromCpuprofile (samples, pid, mainCpuUs) {
  const busy = samples.filter((s) => !(s.frames.length === 1 && s.frames[0].name === '(idle)'))
  const wallUs = busy.reduce((a, s) => a + s.weightUs, 0)
  const scale = mainCpuUs > 0 && wallUs > 0 ? mainCpuUs / wallUs : 1
  return busy.map((s) => ({ pid, tid: pid, timeNs: Math.round(s.timeUs * 1000), weightNs: s.weightUs * 1000 * scale, frames: s.frames }))
}

function threadOf (sample) {
  const main = sample.tid === sample.pid
  if (main) return 'main'
  if (isPoolThread(sample.frames, false)) return 'libuv pool'
  return sample.frames.some(isGcFrame) ? 'gc helper' : 'thread'
}

function emptyCell () {
  return {
    sampledUs: 0,
    categories: Object.fromEntries(CATEGORIES.map((c) => [c.id, 0])),
    functions: new Map(),
    folded: new Map()
  }
}

function cellOf (cells, { cell, round }) {
  if (!cells.has(cell)) cells.set(cell, new Map())
  const rounds = cells.get(cell)
  if (!rounds.has(round)) rounds.set(round, emptyCell())
  return rounds.get(round)
}

/**
 * Per (cell, round) CPU totals. A sample counts for a window when its pid is one of the window's
 * pids and startNs <= timeNs < endNs (in every such window: a run's windows do not overlap);
 * a sample in no window adds its weight to `outside` (ns) and to no cell. A process missing from
 * `processes` is taken as role 'single' labelled by its pid.
 * Each (cell, round) holds: sampledUs; categories { [id]: µs } (every CATEGORIES id); functions
 * Map<functionName of the leaf, { us, category }> (self time, category the one it had most);
 * folded Map<`label;thread;root;...;leaf`, µs>, thread 'main' | 'libuv pool' | 'gc helper' | 'thread'.
 * @param {Array<{ pid: number, tid: number, timeNs: number, weightNs: number, frames: object[] }>} samples
 * @param {{ windows: Array<{ cell: string, round: number, startNs: number, endNs: number, pids: number[] }>,
 *   processes: Map<number, { role: string, label: string }> }} options
 * @returns {{ cells: Map<string, Map<number, object>>, outside: number }}
 */
function attributeSamples (samples, { windows, processes }) {
  const byPid = new Map()
  for (const window of windows) {
    for (const pid of window.pids) {
      if (!byPid.has(pid)) byPid.set(pid, [])
      byPid.get(pid).push(window)
    }
  }
  const cells = new Map()
  const shares = new Map() // function entry → { [category]: µs }, to name its main category
  let outside = 0
  for (const sample of samples) {
    const hits = (byPid.get(sample.pid) || []).filter((w) => w.startNs <= sample.timeNs && sample.timeNs < w.endNs)
    if (hits.length === 0) {
      outside += sample.weightNs
      continue
    }
    const proc = processes.get(sample.pid) || { role: 'single', label: String(sample.pid) }
    const main = sample.tid === sample.pid
    const category = categorize(sample.frames, { role: proc.role, main })
    const us = sample.weightNs / 1000
    const leaf = sample.frames.length ? functionName(sample.frames[0]) : '[unknown]'
    const path = sample.frames.map((f) => functionName(f).replaceAll(';', ',')).reverse()
    const stack = [proc.label.replaceAll(';', ','), threadOf(sample), ...path].join(';')
    for (const window of hits) {
      const totals = cellOf(cells, window)
      totals.sampledUs += us
      totals.categories[category] += us
      totals.folded.set(stack, (totals.folded.get(stack) || 0) + us)
      let fn = totals.functions.get(leaf)
      if (!fn) totals.functions.set(leaf, (fn = { us: 0, category }))
      fn.us += us
      if (!shares.has(fn)) shares.set(fn, {})
      const share = shares.get(fn)
      share[category] = (share[category] || 0) + us
      if (share[category] > share[fn.category]) fn.category = category
    }
  }
  return { cells, outside }
}

/**
 * Folded stacks as text: one `stack value` line each, value in µs rounded to 3 decimals,
 * sorted by stack.
 * @param {Map<string, number>} folded
 * @returns {string}
 */
function foldedText (folded) {
  return [...folded.keys()].sort()
    .map((stack) => `${stack} ${Math.round(folded.get(stack) * 1000) / 1000}\n`).join('')
}

/**
 * The µs of the folded stacks with any frame (not the label or thread) matching `re`: the
 * inclusive cost of those functions, e.g. /^readFileSync node:fs:/.
 * @param {Map<string, number>} folded
 * @param {RegExp} re
 * @returns {number}
 */
function inclusiveUs (folded, re) {
  const test = new RegExp(re.source, re.flags.replace(/[gy]/g, ''))
  let sum = 0
  for (const [stack, us] of folded) {
    if (stack.split(';').slice(2).some((frame) => test.test(frame))) sum += us
  }
  return sum
}

module.exports = { attributeSamples, fromPerfScript, fromCpuprofile, foldedText, inclusiveUs }
