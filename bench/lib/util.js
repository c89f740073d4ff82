'use strict'
// Small helpers shared by the bench/ scripts: flags, child servers that print their port, and
// `node` runs whose stdout is wanted.

const { execFile, spawn } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { performance } = require('node:perf_hooks')
const { WATCHED } = require('../../lib/machine/parent-watch')
const { READY_LINE } = require('../../lib/serving/process-io')
const { int, ValueError } = require('../../lib/config')
const { wantsHelp, helpSection, entryHelp } = require('../../lib/entry-help')
const { processCpuUs } = require('../../lib/machine/proc')

const ROOT = path.resolve(__dirname, '..', '..')
const READY = new RegExp(READY_LINE.source, 'm') // a server's ready line, on any line of its output

/**
 * --name=N flags over integer defaults. --help prints the usage and every flag with its default and
 * meaning (from the same table), and ends the process with 0; anything else ends it with 2 and one line.
 * @param {string[]} argv
 * @param {{ usage: string, about: string, flags: Object<string, [number, string]> }} spec
 *   usage: the command line after `Usage: `; flags: each flag's default and meaning
 * @returns {object} each flag's value
 */
function parseFlags (argv, { usage, about, flags }) {
  const validators = Object.fromEntries(Object.keys(flags).map((key) => [key, int(1)]))
  const defaults = Object.fromEntries(Object.entries(flags).map(([key, [value]]) => [key, value]))
  if (wantsHelp(argv)) {
    const help = Object.fromEntries(Object.entries(flags).map(([key, [, text]]) => [key, text]))
    process.stdout.write(entryHelp({ usage, about, sections: [helpSection('Flags', validators, help, defaults)], config: false }))
    process.exit(0)
  }
  const opts = { ...defaults }
  for (const arg of argv) {
    const m = /^--(\w+)=(.*)$/.exec(arg)
    const bad = (why) => {
      process.stderr.write(`bad argument ${arg}: ${why}; flags: ${Object.keys(flags).map((k) => `--${k}=N`).join(' ')} (--help says more)\n`)
      process.exit(2)
    }
    if (!m || !Object.hasOwn(flags, m[1])) bad('is not a flag here')
    try {
      opts[m[1]] = validators[m[1]](m[2])
    } catch (why) {
      if (!(why instanceof ValueError)) throw why
      bad(why.message)
    }
  }
  return opts
}

/** Spawns `node ARGS` and resolves with its port, read from stdout by `pattern` (group 1). */
function startChild (args, pattern, env = process.env) {
  // The child watches us through its stdin (lib/machine/parent-watch.js): a killed bench leaves no server.
  const child = spawn(process.execPath, args, { stdio: [WATCHED.stdin, 'pipe', 'inherit'], env: { ...env, ...WATCHED.env } })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d
      const m = pattern.exec(out)
      if (m) resolve({ child, exited, port: Number(m[1]) })
    })
    child.once('exit', (code) => reject(new Error(`${args[0]} exited ${code} before it was ready`)))
  })
}

/**
 * A server of the kind (servers/KIND.js, 2 workers for the multi-process kinds) on a fresh folder
 * of its own, on a free port.
 * @param {string} kind
 * @param {string[]} [args] more flags for it
 * @returns {Promise<{ port: number, pid: number, dataPath: string, stop(): Promise<void> }>} stop() ends it and removes the folder
 */
async function serveKind (kind, args = []) {
  const dataPath = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${kind}-`))
  const { child, exited, port } = await startChild(
    [path.join(ROOT, 'servers', `${kind}.js`), '--serverPort=0', `--dataPath=${dataPath}`, '--nServers=2', ...args], READY)
  return { port, pid: child.pid, dataPath, stop: async () => { child.kill('SIGTERM'); await exited; fs.rmSync(dataPath, { recursive: true, force: true }) } }
}

/** Runs `node ARGS` to its end; resolves with its stdout, rejects (with its stderr) if it fails. */
function runNode (args, env = process.env) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024, env }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${args[0]}: ${err.message}${stderr}`))
      else resolve(stdout)
    })
  })
}

/**
 * Runs FILE ARGS to its end, reading its CPU time from /proc every 50 ms.
 * @returns {Promise<{ stdout: string, samples: Array<{ ms: number, cpuUs: number }> }>} samples: when
 *   (ms since the start) and how much CPU (user + system, µs) it had used; rejects, with its stderr, if it fails
 */
function runSampled (file, args) {
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const samples = []
    const child = execFile(file, args, { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      clearInterval(timer)
      if (err) reject(new Error(`${file}: ${err.message}${stderr}`))
      else resolve({ stdout, samples })
    })
    const timer = setInterval(() => {
      try { samples.push({ ms: performance.now() - start, cpuUs: processCpuUs(child.pid) }) } catch {} // it just ended
    }, 50)
  })
}

/**
 * CPU per request in the steady part of a run: the CPU used over its last `share` of `seconds`
 * over the requests made meanwhile at `rate` (start-up and warm-up left out).
 * @returns {number} µs per request
 */
function steadyCpuPerRequest (samples, rate, seconds, share = 0.8) {
  const last = samples.at(-1)
  const first = samples.find((s) => s.ms >= last.ms - share * seconds * 1000)
  return (last.cpuUs - first.cpuUs) / (rate * (last.ms - first.ms) / 1000)
}

module.exports = { parseFlags, startChild, serveKind, runNode, runSampled, steadyCpuPerRequest }
