'use strict'
// Runs one group of test/tools/groups.js with tap: `unit` (npm test) three files at a time, or
// `system` (npm run test:system) need by need; `--need=NAME` runs one need, `--coverage` measures
// coverage (off by default: it costs the unit group about a tenth of its time). Exit 1 if a file failed.
// node test/tools/run.js unit|system [--need=NAME] [--coverage]

const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { NEEDS, SYSTEM, testFiles } = require('./groups')

const ROOT = path.join(__dirname, '..', '..')
const TAP = path.join(ROOT, 'node_modules', '.bin', 'tap')
const UNIT_JOBS = 3 // most unit files wait on servers and clients: three keep 2 cores busy
const USAGE = `use unit [--coverage], or system [--need=${Object.keys(NEEDS).join('|')}] [--coverage]`

/**
 * The tap runs a group asks for, in order, and whether to measure coverage. Throws on a bad argument.
 * @param {string[]} argv
 * @returns {{ coverage: boolean, runs: { title: string, jobs: number, files: string[] }[] }}
 */
function plan (argv) {
  const [group, ...rest] = argv
  if (group !== 'unit' && group !== 'system') throw new Error(`${USAGE}; got ${JSON.stringify(group ?? '')}`)
  let coverage = false
  let need
  for (const arg of rest) {
    const m = /^--need=(.*)$/.exec(arg)
    if (arg === '--coverage') coverage = true
    else if (m && group === 'system' && need === undefined) need = m[1]
    else throw new Error(`${USAGE}; got ${JSON.stringify(arg)}`)
  }
  if (group === 'unit') return { coverage, runs: [{ title: 'unit', jobs: UNIT_JOBS, files: testFiles().filter((f) => !SYSTEM[f]) }] }
  if (need !== undefined && !NEEDS[need]) throw new Error(`--need must be one of ${Object.keys(NEEDS).join(', ')}, got ${JSON.stringify(need)}`)
  const runs = Object.entries(NEEDS).filter(([name]) => need === undefined || name === need)
    .map(([name, { jobs, about }]) => ({ title: `system: ${name} (${about})`, jobs, files: Object.keys(SYSTEM).filter((f) => SYSTEM[f] === name) }))
  return { coverage, runs }
}

function main () {
  let todo
  try {
    todo = plan(process.argv.slice(2))
  } catch (err) {
    process.stderr.write(`test/tools/run.js: ${err.message}\n`)
    return 2
  }
  let failed = 0
  for (const { title, jobs, files } of todo.runs) {
    process.stderr.write(`\n# ${title}: ${files.length} files\n`)
    const args = [`--jobs=${jobs}`, ...(todo.coverage ? [] : ['--disable-coverage']), ...files]
    if (spawnSync(TAP, args, { cwd: ROOT, stdio: 'inherit' }).status !== 0) failed++
  }
  return failed ? 1 : 0
}

if (require.main === module) process.exitCode = main()

module.exports = { plan }
