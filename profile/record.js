'use strict'
// The profile/ folder of a results folder: profile.json (each cell's rounds: requests, server CPU,
// categories, fs waits, throughput profiled and not; its top functions), each cell's folded stacks
// over all rounds (µs), and one .cpuprofile per serving process (Chrome DevTools, speedscope).

const fs = require('node:fs')
const path = require('node:path')
const { CATEGORIES } = require('./categories')
const { foldedText } = require('./attribute')
const { mergeCpuprofiles } = require('./cpuprofile')
const { PROFILE_FORMAT } = require('../lib/results/dimensions')

const TOP_FUNCTIONS = 60
const round1 = (x) => Math.round(x * 10) / 10

/**
 * @param {{ mode: 'perf'|'v8', scope: 'cpus'|'processes'|'user'|null, note: string, perfHz: number|null, v8IntervalUs: number,
 *   rounds: number }} head scope: what perf sampled (every CPU; this run's processes; their user space only)
 * @returns {{ addRound(round: number, figures: Map, known: Map, problems?: Map<string, string>): void, write(folder: string): object }}
 */
function createProfileRecord (head) {
  const cells = new Map()
  const cellOf = (id) => {
    if (!cells.has(id)) cells.set(id, { rounds: [], functions: new Map(), folded: new Map(), profiles: [], pids: new Set() })
    return cells.get(id)
  }
  let processes = new Map()
  return {
    addRound (round, figures, known, problems = new Map()) {
      processes = known
      for (const [id, f] of figures) {
        const cell = cellOf(id)
        cell.rounds.push({
          round,
          requests: f.requests,
          serverCpuUs: f.serverCpuUs,
          sampledUs: Math.round(f.sampledUs),
          categories: Object.fromEntries(Object.entries(f.categories).map(([k, us]) => [k, round1(us)])),
          waits: f.waits,
          opsPerSec: f.opsPerSec,
          ...(problems.get(id) && { problem: problems.get(id) })
        })
        for (const [name, { us, category }] of f.functions) {
          const was = cell.functions.get(name)
          cell.functions.set(name, { us: (was?.us ?? 0) + us, category })
        }
        for (const [stack, us] of f.folded) cell.folded.set(stack, (cell.folded.get(stack) ?? 0) + us)
        cell.profiles.push(...f.profiles)
        for (const pid of f.pids) cell.pids.add(pid)
      }
    },
    write (folder) {
      const doc = { format: PROFILE_FORMAT, ...head, categories: CATEGORIES, cells: {} }
      for (const [id, cell] of cells) {
        const files = writeCpuprofiles(folder, id, cell.profiles, processes)
        fs.writeFileSync(path.join(folder, `${id}.folded`), foldedText(cell.folded))
        doc.cells[id] = {
          processes: [...cell.pids].map((pid) => processes.get(pid)).filter(Boolean),
          requests: cell.rounds.reduce((a, r) => a + r.requests, 0),
          rounds: cell.rounds,
          functions: [...cell.functions].sort((a, b) => b[1].us - a[1].us).slice(0, TOP_FUNCTIONS)
            .map(([name, { us, category }]) => ({ name, category, us: round1(us) })),
          folded: `profile/${id}.folded`,
          cpuprofiles: files
        }
      }
      fs.writeFileSync(path.join(folder, 'profile.json'), `${JSON.stringify(doc, null, 1)}\n`)
      return doc
    }
  }
}

// One .cpuprofile per process of the cell, its windows merged (those of the processes of fresh servers
// named alike too, as run --profile starts one per run); the window files removed.
function writeCpuprofiles (folder, id, profiles, processes) {
  const byName = new Map()
  for (const { pid, file } of profiles) {
    const name = `${(processes.get(pid)?.label ?? `pid ${pid}`).replace(/\s+/g, '-')}.cpuprofile`
    byName.set(name, [...(byName.get(name) ?? []), file])
  }
  fs.mkdirSync(path.join(folder, id), { recursive: true })
  for (const [name, files] of byName) {
    const merged = mergeCpuprofiles(files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8'))))
    fs.writeFileSync(path.join(folder, id, name), JSON.stringify(merged))
    for (const f of files) fs.rmSync(f, { force: true })
  }
  return [...byName.keys()].map((name) => `profile/${id}/${name}`).sort()
}

module.exports = { createProfileRecord }
