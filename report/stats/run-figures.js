'use strict'
// The run's time and interference in figures (rounds.csv, passes.csv, env.json's rounds), and the note
// the report opens with when the run was disturbed. Used by report/index.js (analysis).

const { fixed } = require('./verdicts')

const s1 = (ms) => fixed(ms / 1000, 1)
const pct = (x) => `${fixed(x * 100, 1)}%`

/**
 * The run's time and interference in figures.
 * @param {object} results from readResults (env.rounds, roundLog, passes, rows)
 * @returns {object|null} null for a folder that was not an interleaved run: { wallMs, phases: [name, ms][],
 *   measuringMs, keptMs, share, rounds, disturbedRounds, stop, passes, dropped, worst, median, files } (files: fileFigures')
 */
function runFigures ({ env, roundLog, passes, rows = [] }) {
  if (!env.rounds || roundLog.length === 0) return null
  const wallMs = Date.parse(env.finishedAt) - Date.parse(env.startedAt)
  const { timing } = env.rounds
  const profileMs = timing.profile ?? 0 // --profile's rounds (a folder from before them has none)
  const measuringMs = roundLog.reduce((a, r) => a + r.passes, 0)
  const verifyMs = roundLog.reduce((a, r) => a + r.verify, 0)
  const interference = passes.map((p) => p.interference).filter((x) => x !== null).sort((a, b) => a - b) // null: not measured here
  return {
    wallMs,
    phases: [['start the servers, create the files', timing.start], ['warm up', timing.warm], ['measure (the passes)', measuringMs],
      ['take, verify and write each round', verifyMs], ...(profileMs > 0 ? [['profile (--profile\'s rounds)', profileMs]] : []), ['stop', timing.stop],
      ['the rest (plan, environment, results folder)', Math.max(0, wallMs - timing.start - timing.warm - measuringMs - verifyMs - profileMs - timing.stop)]],
    measuringMs,
    keptMs: timing.measured,
    share: wallMs > 0 ? measuringMs / wallMs : 0,
    rounds: env.rounds.rounds,
    disturbedRounds: env.rounds.disturbed,
    stop: env.rounds.stop,
    passes: passes.length,
    dropped: passes.filter((p) => !p.kept).length,
    waitedMs: passes.reduce((a, p) => a + (p.waitedMs ?? 0), 0),
    settled: roundLog.length > 1 && roundLog[0].cells ? roundLog[0].cells - roundLog[roundLog.length - 1].cells : 0,
    median: interference.length > 0 ? interference[interference.length >> 1] : null,
    worst: interference.length > 0 ? interference[interference.length - 1] : null,
    files: fileFigures(rows, env.options?.freshFiles === true)
  }
}

// How many records the files held at the end of the first round and of the last (the most of any cell), or null for a
// folder without the column; fresh: every round started from the files as created (--freshFiles).
function fileFigures (rows, fresh) {
  const counted = rows.filter((r) => r.valid && Number.isFinite(r.fileRecords))
  if (counted.length === 0) return null
  const first = Math.min(...counted.map((r) => r.repeat))
  const most = (list) => Math.max(...list.map((r) => r.fileRecords))
  return { fresh, first: most(counted.filter((r) => r.repeat === first)), last: most(counted) }
}

/**
 * The files' sentence: how far they grew, which the answer depends on (a GET sorts the whole file). Also the run's last
 * lines on the terminal (sweep/runner.js).
 * @param {{ fresh: boolean, first: number, last: number }|null} files from fileFigures
 * @returns {string} '' without figures
 */
function filesSentence (files) {
  if (!files) return ''
  const n = (x) => fixed(x, x < 10 ? 1 : 0)
  if (files.fresh) return `Every round started from the files as created: at most ${n(files.last)} records a file by a round's end.`
  return `The files held up to ${n(files.first)} records each after round 1 and ${n(files.last)} by the end: a GET sorts the whole file, and ` +
    'sync\'s lead in one process shrinks as they grow (--freshFiles=false; by default every round starts from the files as created).'
}

/**
 * One sentence for the first screen: rounds, time, why it stopped, what was disturbed.
 * @param {object|null} f from runFigures
 * @returns {string|null}
 */
function runNote (f) {
  if (!f) return null
  return `${f.rounds} rounds in ${s1(f.wallMs)} s (${pct(f.share)} of it measuring); stopped: ${f.stop}. ` +
    `${f.dropped} of ${f.passes} passes and ${f.disturbedRounds} rounds were disturbed by other work and measured again` +
    `${f.waitedMs > 0 ? `, after waiting ${s1(f.waitedMs)} s for the machine to be quiet` : ''}.` +
    `${f.settled > 0 ? ` ${f.settled} cells were settled before the end (all their comparisons narrow enough), their windows given to the others.` : ''}` +
    (f.files ? ` ${filesSentence(f.files)}` : '')
}

module.exports = { runFigures, runNote, fileFigures, filesSentence }
