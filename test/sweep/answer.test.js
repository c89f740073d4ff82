'use strict'
// The answer on the terminal: a run that measures ends with its verdict lines on stdout (answer.txt, and in
// the report); --quiet prints only them, and says what the run said on stderr only when it fails.

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { runSweep, resultsDir } = require('../fixtures/sweep-run')
const { colourLines } = require('../../sweep/runner')

const SMALL = ['--kinds=sync,async', '--nServers=1', '--nClients=1', '--ioDelay=off', '--aa=sync:1:1', '--rounds=2', '--maxRounds=2',
  '--passes=2', '--window=20', '--warmOps=20', '--maxInterference=1', '--seed=5']

function folders (t) {
  const root = t.testdir({ results: {}, data: {} })
  return { results: path.join(root, 'results'), args: [`--results=${path.join(root, 'results')}`, `--dataPath=${path.join(root, 'data')}`] }
}

t.test('quick ends with one line per verdict, the A/A one too, as answer.txt and the report have them; --quiet prints only them', async (t) => {
  const loud = folders(t)
  const run = await runSweep(t, ['quick', ...SMALL, ...loud.args])
  t.equal(run.code, 0, run.stderr)
  const dir = resultsDir(loud.results)
  const answer = fs.readFileSync(path.join(dir, 'answer.txt'), 'utf8')
  const lines = answer.trimEnd().split('\n')
  const labels = JSON.parse(fs.readFileSync(path.join(dir, 'verdicts.json'), 'utf8')).comparisons.filter((c) => c.metric === 'opsPerSec').map((c) => c.label)
  t.same(lines.map((l) => l.replace(/: [^:]*$/, '')).sort(), labels.sort(), 'a line per throughput comparison')
  t.ok(lines.some((l) => l.startsWith('A/A: sync, 1 process')), 'the A/A line')
  // Each interval says what it covers (lib/median.js coverage); one round's ratio has none.
  const interval = '\\[\\d\\.\\d\\d–\\d\\.\\d\\d\\] \\(\\d+(\\.\\d)?% over \\d+ rounds(; no 95% interval)?\\) '
  const verdict = new RegExp(`: (\\d\\.\\d\\d× (${interval})?)?(sync faster|async faster|A faster|B faster|the same within ±5%|undecided|` +
    'one round: no interval|no valid round)$')
  for (const line of lines) t.match(line, verdict)
  t.ok(run.stdout.endsWith(answer), 'stdout ends with the lines')
  t.equal(run.stdout, `${path.join(dir, 'report.html')}\n${answer}`, 'after the path of the report')
  const page = fs.readFileSync(path.join(dir, 'report.html'), 'utf8')
  for (const line of lines) t.ok(page.includes(line.replaceAll('&', '&amp;')), `in the report: ${line}`)

  const quiet = folders(t)
  const hushed = await runSweep(t, ['quick', ...SMALL, ...quiet.args, '--quiet'])
  t.equal(hushed.code, 0)
  t.equal(hushed.stdout, fs.readFileSync(path.join(resultsDir(quiet.results), 'answer.txt'), 'utf8'), '--quiet: the lines alone')
  t.equal(hushed.stderr, '', 'nothing on stderr')
})

t.test('--quiet still says why a run failed', async (t) => {
  const { results, args } = folders(t)
  const run = await runSweep(t, ['quick', ...SMALL, ...args, '--quiet', '--readyTimeout=1'])
  t.equal(run.code, 1)
  t.match(run.stderr, /stopped: every cell failed/, 'what the run said, held back, is written when it fails')
  t.equal(run.stdout, fs.readFileSync(path.join(resultsDir(results), 'answer.txt'), 'utf8'))
})

t.test('colour only on a terminal, and never with NO_COLOR', async (t) => {
  const text = 'A/A: sync, 1 process: 1.20× [1.10–1.30] A faster\nsync vs async, 1 process: 1.20× [1.10–1.30] sync faster\n' +
    'x: undecided\nsync vs async: 1.00× [0.99–1.01] the same within ±5%\n'
  t.equal(colourLines(text, { isTTY: false }, {}), text, 'a pipe gets plain text')
  t.equal(colourLines(text, { isTTY: true }, { NO_COLOR: '1' }), text, 'NO_COLOR')
  t.equal(colourLines(text, { isTTY: true }, {}), '\x1b[31mA/A: sync, 1 process: 1.20× [1.10–1.30] A faster\x1b[0m\n' +
    '\x1b[1msync vs async, 1 process: 1.20× [1.10–1.30] sync faster\x1b[0m\n\x1b[33mx: undecided\x1b[0m\n' +
    'sync vs async: 1.00× [0.99–1.01] the same within ±5%\n', 'an A/A pair that differs red, undecided yellow, a difference bold')
})
