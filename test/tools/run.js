'use strict'
// Runs one group of test/tools/groups.js with tap: `unit` (npm test) three files at a time, or
// `system` (npm run test:system) need by need; `--need=NAME` runs one need. Exit 1 if a file failed.
// node test/tools/run.js unit|system [--need=NAME]

const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { NEEDS, SYSTEM, testFiles } = require('./groups')

const ROOT = path.join(__dirname, '..', '..')
const TAP = path.join(ROOT, 'node_modules', '.bin', 'tap')
const UNIT_JOBS = 3 // most unit files wait on servers and clients: three keep 2 cores busy

/**
 * The tap runs a group asks for, in order: [{ title, jobs, files }]. Throws on a bad argument.
 * @param {string[]} argv
 */
function plan (argv) {
  const [group, ...rest] = argv
  const need = /^--need=(.*)$/.exec(rest[0] ?? '')?.[1]
  if (rest.length > (need === undefined ? 0 : 1) || (group === 'unit' && need !== undefined)) {
    throw new Error(`unexpected ${rest.join(' ')}; use unit, or system [--need=${Object.keys(NEEDS).join('|')}]`)
  }
  if (group === 'unit') return [{ title: 'unit', jobs: UNIT_JOBS, files: testFiles().filter((f) => !SYSTEM[f]) }]
  if (group !== 'system') throw new Error(`use unit or system, got ${JSON.stringify(group ?? '')}`)
  if (need !== undefined && !NEEDS[need]) throw new Error(`--need must be one of ${Object.keys(NEEDS).join(', ')}, got ${JSON.stringify(need)}`)
  return Object.entries(NEEDS).filter(([name]) => need === undefined || name === need)
    .map(([name, { jobs, about }]) => ({ title: `system: ${name} (${about})`, jobs, files: Object.keys(SYSTEM).filter((f) => SYSTEM[f] === name) }))
}

function main () {
  let runs
  try {
    runs = plan(process.argv.slice(2))
  } catch (err) {
    process.stderr.write(`test/tools/run.js: ${err.message}\n`)
    return 2
  }
  let failed = 0
  for (const { title, jobs, files } of runs) {
    process.stderr.write(`\n# ${title}: ${files.length} files\n`)
    const res = spawnSync(TAP, [`--jobs=${jobs}`, ...files], { cwd: ROOT, stdio: 'inherit' })
    if (res.status !== 0) failed++
  }
  return failed ? 1 : 0
}

if (require.main === module) process.exitCode = main()

module.exports = { plan }
