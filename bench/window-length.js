'use strict'
// Whether a window's length moves what it reads: an A/A pair whose copy (-B) gets windows SCALE times as long as the
// original's from round 2 on, so that their verdict, paired by round, is the effect of the length alone (the question
// --fairWindows raises: it gives the two cells of a comparison windows of unlike lengths). Runs ./run_benchmark.sh sweep
// with the flags given, --fairWindows on, and the copy's windows scaled after fairWindows has sized them.
// `node bench/window-length.js [--scale=0.4] -- SWEEP FLAGS` (they must include --aa=KIND:S:C); the sweep's output as is.

const liveCells = require('../sweep/interleaved/live-cells')
const { wantsHelp, entryHelp } = require('../lib/entry-help')

const args = process.argv.slice(2)
if (wantsHelp(args)) {
  process.stdout.write(entryHelp({ usage: 'node bench/window-length.js [--scale=0.4] -- SWEEP FLAGS (with --aa=KIND:S:C)',
    about: 'The A/A copy\'s windows SCALE times the original\'s from round 2: their verdict is the effect of a window\'s length.', config: false }))
  process.exit(0)
}
const split = args.indexOf('--')
const own = split < 0 ? [] : args.slice(0, split)
const scale = Number(own.find((a) => a.startsWith('--scale='))?.slice(8) ?? 0.4)
if (!(scale > 0 && scale <= 1) || split < 0 || !args.some((a) => a.startsWith('--aa='))) {
  process.stderr.write('bench/window-length.js: use [--scale=S] (0 < S <= 1) -- SWEEP FLAGS, with --aa=KIND:S:C\n')
  process.exit(2)
}

// Replaced before sweep/interleaved/rounds.js takes it from the module (it destructures it as it loads).
const fairWindows = liveCells.fairWindows
liveCells.fairWindows = (state) => {
  const lines = fairWindows(state)
  for (const c of state.filter((x) => x.cell.id.endsWith('-B') && !x.failed)) {
    const original = state.find((x) => x.cell.id === c.cell.id.slice(0, -2))
    c.size = Math.max(1, Math.round(original.size * scale))
    lines.push(`${c.cell.id}: windows of ${c.size * c.cell.nClients} operations, ${scale} of the original's (bench/window-length.js)`)
  }
  return lines
}

const { main } = require('../sweep/index')
main(['sweep', '--fairWindows=true', ...args.slice(split + 1)]).then((status) => { process.exitCode = status })
