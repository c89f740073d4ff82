'use strict'
// Runs one group of test/tools/groups.js: `unit` (npm test) three files at a time, or `system` (npm run
// test:system) need by need: lane 0 alone, then lanes 1 and 2 side by side, each need's lines printed whole
// when it ends. Each file is `node FILE` (run-file.js: tap's runner costs the unit group a third of its time);
// `--need=NAME` runs one need; `--coverage` runs the files under tap's runner instead, which measures coverage.
// Prints one line a file (a failed file's whole TAP output before it, indented, or a passed file's skips) and a summary
// with the assertions counted. Exit 1 if a file failed.
// `files FILE...` runs the files named, three at a time. Off Linux (lib/platform.js) the unit files that need it are skipped,
// a line each with the reason (groups.js LINUX).
// node test/tools/run.js unit|system [--need=NAME] [--coverage] | files FILE...

const path = require('node:path')
const { spawn } = require('node:child_process')
const { NEEDS, SYSTEM, LINUX, testFiles } = require('./groups')
const { hasProc, isLinux, PLATFORM } = require('../../lib/platform')
const { runFile, counts, ROOT } = require('./run-file')

const TAP = path.join(ROOT, 'node_modules', '.bin', 'tap')
const UNIT_JOBS = 3 // most unit files wait on servers and clients: three keep 2 cores busy
const USAGE = `use unit [--coverage], system [--need=${Object.keys(NEEDS).join('|')}] [--coverage], or files FILE...`

/**
 * The runs a group asks for, in order, and whether to measure coverage. Throws on a bad argument.
 * @param {string[]} argv
 * @returns {{ coverage: boolean, runs: { title: string, jobs: number, lane: number, files: string[] }[] }}
 */
function plan (argv) {
  const [group, ...rest] = argv
  if (group === 'files') {
    const bad = rest.find((f) => !testFiles().includes(f))
    if (bad !== undefined || rest.length === 0) throw new Error(`files takes test files of the checkout (test/...test.js); got ${JSON.stringify(bad ?? '')}`)
    return { coverage: false, runs: [{ title: 'files', jobs: UNIT_JOBS, lane: 0, files: rest }] }
  }
  if (group !== 'unit' && group !== 'system') throw new Error(`${USAGE}; got ${JSON.stringify(group ?? '')}`)
  let coverage = false
  let need
  for (const arg of rest) {
    const m = /^--need=(.*)$/.exec(arg)
    if (arg === '--coverage') coverage = true
    else if (m && group === 'system' && need === undefined) need = m[1]
    else throw new Error(`${USAGE}; got ${JSON.stringify(arg)}`)
  }
  if (group === 'unit') {
    const files = testFiles().filter((f) => !SYSTEM[f])
    const linux = (f) => !hasProc() && LINUX[f] !== undefined
    return { coverage, runs: [{ title: 'unit', jobs: UNIT_JOBS, lane: 0, files: files.filter((f) => !linux(f)), skipped: files.filter(linux) }] }
  }
  if (need !== undefined && !NEEDS[need]) throw new Error(`--need must be one of ${Object.keys(NEEDS).join(', ')}, got ${JSON.stringify(need)}`)
  const runs = Object.entries(NEEDS).filter(([name]) => need === undefined || name === need)
    .map(([name, { jobs, lane, about }]) => ({ title: `system: ${name} (${about})`, jobs, lane, files: Object.keys(SYSTEM).filter((f) => SYSTEM[f] === name) }))
  return { coverage, runs }
}

const SKIP = /^\s*(?:not )?ok \d+ - .*# SKIP/i

/**
 * Runs a run's files `jobs` at a time and writes what a reader needs: a line a file as it ends (before it, a failed file's
 * whole TAP output, or a passed file's skipped tests with their reasons), then the files and assertions counted.
 * @param {{ title: string, jobs: number, files: string[], skipped?: string[] }} run skipped: files that need Linux, off it
 * @param {(text: string) => void} write
 * @param {(file: string) => Promise<{ ok: boolean, seconds: number, tap: string }>} [run1] runFile, or a fake (tests)
 * @returns {Promise<boolean>} whether every file passed
 */
async function runFiles ({ title, jobs, files, skipped = [] }, write, run1 = runFile) {
  const started = performance.now()
  const sum = {}
  const failed = []
  let next = 0
  let done = 0
  write(`\n# ${title}: ${files.length} files\n`)
  const where = isLinux ? 'no /proc here' : `not Linux (${PLATFORM})`
  for (const file of skipped) write(`ok ${++done} - ${file} # SKIP needs Linux, ${where}: ${LINUX[file]}\n`)
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]
      const { ok, seconds, tap } = await run1(file)
      const found = counts(tap)
      for (const [k, v] of Object.entries(found)) sum[k] = (sum[k] ?? 0) + v
      if (!ok) failed.push(file)
      const before = ok
        ? tap.split('\n').filter((l) => SKIP.test(l)).map((l) => `# ${file}: ${l.trim()}\n`).join('')
        : `# ${file} failed; its TAP output:\n${tap.trimEnd().replace(/^/gm, '    ')}\n`
      const of = found.total === undefined ? 'no closing count' : `${found.total} assertions`
      write(`${before}${ok ? 'ok' : 'not ok'} ${++done} - ${file} # ${seconds.toFixed(1)} s, ${of}\n`)
    }
  }
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker))
  failed.sort((x, y) => files.indexOf(x) - files.indexOf(y)) // in the group's order, whichever ended first
  const order = ['total', 'pass', 'fail', 'skip', 'todo']
  const rank = (k) => order.indexOf(k) + 1 || 9
  const assertions = Object.keys(sum).sort((a, b) => rank(a) - rank(b)).map((k) => `${k}: ${sum[k]}`).join(', ')
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  write(`# ${title.split(' (')[0]}: ${files.length - failed.length} of ${files.length} files passed${skipped.length ? ` (${skipped.length} skipped)` : ''} ` +
    `in ${seconds} s; ` +
    `assertions { ${assertions} }${failed.length ? `; failed: ${failed.join(' ')}` : ''}\n`)
  return failed.length === 0
}

// One run under tap's runner, which measures coverage; resolves true when every file passed.
function underTap ({ title, jobs, files }) {
  process.stdout.write(`\n# ${title}: ${files.length} files\n`)
  const child = spawn(TAP, [`--jobs=${jobs}`, ...files], { cwd: ROOT, stdio: 'inherit' })
  return new Promise((resolve) => child.on('close', (code) => resolve(code === 0)))
}

async function main () {
  let todo
  try {
    todo = plan(process.argv.slice(2))
  } catch (err) {
    process.stderr.write(`test/tools/run.js: ${err.message}\n`)
    return 2
  }
  const print = (text) => process.stdout.write(text)
  let passed = true
  if (todo.coverage) {
    for (const run of todo.runs) passed = await underTap(run) && passed
    return passed ? 0 : 1
  }
  for (const run of todo.runs.filter((r) => r.lane === 0)) passed = await runFiles(run, print) && passed
  const lanes = [...new Set(todo.runs.map((r) => r.lane).filter((l) => l > 0))]
  const results = await Promise.all(lanes.map(async (lane) => {
    let ok = true
    for (const run of todo.runs.filter((r) => r.lane === lane)) {
      if (lanes.length === 1) ok = await runFiles(run, print) && ok
      else {
        let held = '' // two lanes at once would interleave their lines
        ok = await runFiles(run, (text) => { held += text }) && ok
        print(held)
      }
    }
    return ok
  }))
  return passed && results.every(Boolean) ? 0 : 1
}

if (require.main === module) main().then((code) => { process.exitCode = code })

module.exports = { plan, runFiles }
