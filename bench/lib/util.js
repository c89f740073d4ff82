'use strict'
// Small helpers shared by the bench/ scripts: flags, child servers that print their port, and
// `node` runs whose stdout is wanted.

const { execFile, spawn } = require('node:child_process')

/** --name=N flags over integer defaults; anything else is an error. */
function parseFlags (argv, defaults) {
  const opts = { ...defaults }
  for (const arg of argv) {
    const m = /^--(\w+)=(\d+)$/.exec(arg)
    if (!m || !(m[1] in defaults) || Number(m[2]) < 1) {
      throw new Error(`bad argument ${arg}; flags: ${Object.keys(defaults).map((k) => `--${k}=N`).join(' ')}`)
    }
    opts[m[1]] = Number(m[2])
  }
  return opts
}

/** Spawns `node ARGS` and resolves with its port, read from stdout by `pattern` (group 1). */
function startChild (args, pattern, env = process.env) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env })
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

/** Runs `node ARGS` to its end; resolves with its stdout, rejects (with its stderr) if it fails. */
function runNode (args, env = process.env) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024, env }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${args[0]}: ${err.message}${stderr}`))
      else resolve(stdout)
    })
  })
}

module.exports = { parseFlags, startChild, runNode }
