'use strict'
// run --profile: after run's runs, --profileRounds rounds of each cell in the schedule's order, each on
// a fresh server with run's client and config: a profiled run (perf's where it works, else V8's) and an
// unprofiled one, in turns (profiled first in odd rounds), and in the first round with perf a run of
// V8's profiler (the .cpuprofile files). A run's window is its client's measured phase, as the server's
// telemetry timed it. Nothing of these runs reaches summary.csv; they write profile/ (profile/session.js).

const fs = require('node:fs')
const path = require('node:path')
const { runClientCell } = require('./cell')
const { openProfileSession } = require('../../profile/session')

// The runs of a cell in the k-th profiled round (from 0): which profiler samples each.
const runsOf = (k, mode) => [...(k % 2 === 0 ? [mode, null] : [null, mode]), ...(k === 0 && mode === 'perf' ? ['v8'] : [])]

// A run's window for profile/round.js: from its JSON, the telemetry's processes timed on the monotonic clock.
function windowOf (cell, by, json) {
  const doc = json?.serverStats
  if (!doc?.processes.every((p) => Number.isFinite(p.startNs))) return null
  return {
    cell: cell.id,
    by,
    startNs: Math.min(...doc.processes.map((p) => p.startNs)),
    endNs: Math.max(...doc.processes.map((p) => p.endNs)),
    doc,
    ops: json.operations.completed,
    wallUs: json.wallTimeMs * 1000
  }
}

/**
 * Runs the profiled rounds of run's cells and writes profile/.
 * @param {object[]} runs the plan's schedule (its cells, in their first run's order)
 * @param {{ dir: string, options: object, signal: AbortSignal }} ctx the run's (sweep/runner.js)
 * @param {(line: string) => void} say
 * @returns {Promise<object|null>} profile.json's document, or null if interrupted
 */
async function runProfiledRuns (runs, ctx, say) {
  const cells = [...new Map(runs.map((r) => [r.cell.id, r.cell])).values()]
  const rounds = ctx.options.profileRounds
  const session = openProfileSession(ctx.dir, { rounds, say })
  try {
    for (let k = 0; k < rounds && !ctx.signal.aborted; k++) {
      await session.round(k + 1, async () => {
        const windows = []
        const problems = new Map()
        for (const cell of cells) {
          for (const by of runsOf(k, session.mode)) {
            if (ctx.signal.aborted) break
            const run = { cell, repeat: k + 1, order: 0, folder: 'profile/cells', name: `${cell.id}-p${k + 1}-${by ?? 'off'}` }
            await session.arm(by)
            const row = await runClientCell(run, { ...ctx, options: { ...ctx.options, profile: true } })
              .finally(() => session.disarm(by))
            if (!row.valid) problems.set(cell.id, row.reason)
            const w = row.json ? windowOf(cell, by, JSON.parse(fs.readFileSync(path.join(ctx.dir, row.json), 'utf8'))) : null
            if (w) windows.push(w)
          }
        }
        return { windows, problems }
      })
      say(`profiled round ${k + 1} of ${rounds}`)
    }
    return ctx.signal.aborted ? null : session.write()
  } finally {
    session.close()
  }
}

module.exports = { runProfiledRuns, runsOf }
