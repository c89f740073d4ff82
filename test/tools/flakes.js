'use strict'
// Finds flaky tests by name: runs each chosen test file (or every file of both groups) N times, one
// at a time, optionally beside a neighbour that takes a quarter of the machine (test/fixtures/hog.js),
// and prints each file's passes, failures and times (each run is run-file.js's). See test/README.md.
// node test/tools/flakes.js [--runs=N] [--hog] [FILE ...]

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { testFiles } = require('./groups')
const { runFile, ROOT } = require('./run-file')
const { WATCHED } = require('../../lib/machine/parent-watch')

const USAGE = 'usage: node test/tools/flakes.js [--runs=N] [--hog] [FILE ...]'

/**
 * Reads the command line; throws a message naming a bad argument.
 * @param {string[]} argv
 * @returns {{ runs: number, hog: boolean, files: string[] }}
 */
function parseArgs (argv) {
  let runs = 5
  let hog = false
  const files = []
  for (const a of argv) {
    const m = /^--runs=(.*)$/.exec(a)
    if (m) {
      runs = Number(m[1])
      if (!Number.isInteger(runs) || runs < 1 || runs > 1000) throw new Error(`--runs must be an integer from 1 to 1000, got ${m[1]}`)
    } else if (a === '--hog') hog = true
    else if (a.startsWith('-')) throw new Error(`unknown option ${a}\n${USAGE}`)
    else {
      const rel = path.relative(ROOT, path.resolve(a))
      if (!rel.endsWith('.test.js') || !fs.existsSync(path.join(ROOT, rel))) throw new Error(`${a} is not a test file (*.test.js)`)
      files.push(rel)
    }
  }
  return { runs, hog, files: files.length ? files : testFiles() }
}

// A failed run's TAP output, kept under .tap/flakes/ (ignored by git) for reading after.
function keepOutput (file, k, tap) {
  const out = path.join(ROOT, '.tap', 'flakes', `${file.replaceAll('/', '-')}.run-${k}.tap`)
  fs.mkdirSync(path.dirname(out), { recursive: true })
  fs.writeFileSync(out, tap)
  return path.relative(ROOT, out)
}

async function main () {
  const { runs, hog, files } = parseArgs(process.argv.slice(2))
  const hogFile = path.join(__dirname, '..', 'fixtures', 'hog.js')
  const neighbour = hog ? spawn(process.execPath, [hogFile], { stdio: [WATCHED.stdin, 'ignore', 'inherit'], env: { ...process.env, ...WATCHED.env } }) : null
  const rows = []
  try {
    for (const file of files) {
      const times = []
      let passed = 0
      for (let k = 0; k < runs; k++) {
        const { ok, seconds, tap } = await runFile(file)
        if (ok) passed++
        times.push(seconds)
        const kept = ok ? '' : ` (its output: ${keepOutput(file, k + 1, tap)})`
        process.stderr.write(`${file} run ${k + 1}/${runs}: ${ok ? 'pass' : 'FAIL'} ${seconds.toFixed(1)} s${kept}\n`)
      }
      times.sort((a, b) => a - b)
      rows.push({ file, passed, failed: runs - passed, min: times[0], median: times[times.length >> 1], max: times[times.length - 1] })
    }
  } finally {
    neighbour?.kill()
  }
  console.log(`file\tpasses\tfailures\tmin s\tmedian s\tmax s${hog ? '\t(beside a quarter-machine hog)' : ''}`)
  for (const r of rows) console.log([r.file, r.passed, r.failed, r.min.toFixed(1), r.median.toFixed(1), r.max.toFixed(1)].join('\t'))
  process.exitCode = rows.some((r) => r.failed) ? 1 : 0
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`flakes: ${err.message}\n`)
    process.exitCode = 2
  })
}

module.exports = { parseArgs }
