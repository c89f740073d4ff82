'use strict'
// One test file run as tap's runner starts it, a process of its own with the suite's time-out, but without
// tap's runner: that runner loads @tapjs/processinfo into every Node process a test starts (servers, clients,
// sweeps: about 770 in the unit group), for coverage, at about 0.1 s of CPU each. Used by run.js and flakes.js.

const path = require('node:path')
const { spawn } = require('node:child_process')

const ROOT = path.join(__dirname, '..', '..')
const RUN_LIMIT_MS = 15 * 60000 // a run that hangs is ended and counts as a failure
// tap's runner hands each file its time-out (package.json's tap.timeout) in TAP_TIMEOUT; a file started
// by node alone would otherwise get tap's default of 30 s.
const TAP_TIMEOUT = String(require('../../package.json').tap.timeout)

/**
 * Runs `node FILE` in the checkout; resolves with whether it passed (exit 0: tap exits 1 when an assertion
 * failed), its seconds and its TAP output (stdout; stderr goes to this process's).
 * @param {string} file relative to the checkout
 * @returns {Promise<{ ok: boolean, seconds: number, tap: string }>}
 */
function runFile (file) {
  const started = performance.now()
  return new Promise((resolve) => {
    // A file started under tap's own runner (a test of this one) runs as a top-level file all the same: with its closing count.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(TAP|_TAPJS_)/.test(k)))
    const how = { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...env, TAP_TIMEOUT }, timeout: RUN_LIMIT_MS, killSignal: 'SIGKILL' }
    const child = spawn(process.execPath, [file], how)
    let tap = ''
    child.stdout.setEncoding('utf8').on('data', (d) => { tap += d })
    child.on('close', (code) => resolve({ ok: code === 0, seconds: (performance.now() - started) / 1000, tap }))
  })
}

/**
 * The counts of a file's closing line, `# { total: 158, pass: 157, fail: 1 }`; {} when it has none (it crashed).
 * @param {string} tap
 * @returns {Record<string, number>}
 */
function counts (tap) {
  const line = /^# \{ (total: \d+[^}]*) \}$/m.exec(tap)?.[1] ?? ''
  return Object.fromEntries([...line.matchAll(/(\w+): (\d+)/g)].map(([, k, v]) => [k, Number(v)]))
}

module.exports = { runFile, counts, ROOT }
