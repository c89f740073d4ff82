'use strict'
// The files of a run where its server writes them. On this host the sweep calls OPS directly; on a
// server host it forks this script there over ssh (lib/machine/remote-fork.js, client/data-host.js):
// `data-worker.js ROOT KEEP` makes ROOT, answers { id, op, ... } with { id, result } or { id, error },
// touches nothing outside ROOT, and when its channel closes (the run ended, or its control node was
// killed) removes ROOT, unless KEEP is "true"; a ROOT it removes must be named cbench-remote-*.

const fs = require('node:fs')
const path = require('node:path')
const { fileSizes, verifyFiles } = require('./verify')
const { decodeBitset } = require('./ledger')

const ROOT_NAME = /^cbench-remote-/

const OPS = {
  /** Makes a folder and writes files ({ path: text }). */
  make: ({ dir, files = {} }) => {
    fs.mkdirSync(dir, { recursive: true })
    for (const [file, text] of Object.entries(files)) fs.writeFileSync(file, text)
  },
  /** The run's files' sizes now (client/verify.js fileSizes). */
  sizes: ({ config }) => fileSizes(config),
  /** Verifies the files (client/verify.js verifyFiles) against each process's acknowledgements, as base64 bitsets. */
  verify: ({ config, runId, sizesBefore, acks }) =>
    verifyFiles({ config, runId, sizesBefore, acks: acks.map((a) => a && { w: decodeBitset(a.w), c: decodeBitset(a.c) }) }),
  /** Removes the files in a folder (not its folders), so that the next create makes them afresh. */
  clear: ({ dir }) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) if (entry.isFile()) fs.rmSync(path.join(dir, entry.name))
  },
  /** Empties the files in a folder in place (their inodes kept: a server may hold them open, asyncApi=handle). */
  empty: ({ dir }) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) if (entry.isFile()) fs.truncateSync(path.join(dir, entry.name), 0)
  },
  /** Removes files and folders. */
  remove: ({ paths }) => { for (const p of paths) fs.rmSync(p, { recursive: true, force: true }) }
}

// Every path a request names, which must all be inside root.
const pathsOf = ({ dir, files, config, paths }) => [dir, ...Object.keys(files ?? {}), config?.dataPath, ...(paths ?? [])].filter((p) => p !== undefined)

function serve (root, keep) {
  if (!path.isAbsolute(root) || (!keep && !ROOT_NAME.test(path.basename(root)))) {
    process.stderr.write(`data-worker: ${root} is not an absolute path${keep ? '' : ' to a folder named cbench-remote-*'}\n`)
    process.exit(2)
  }
  fs.mkdirSync(root, { recursive: true })
  const inside = (p) => path.resolve(p) === root || path.resolve(p).startsWith(`${root}${path.sep}`)
  process.on('disconnect', () => {
    if (!keep) fs.rmSync(root, { recursive: true, force: true })
    process.exit(0)
  })
  process.on('message', (msg) => {
    const reply = (() => {
      try {
        const outside = pathsOf(msg).find((p) => !inside(p))
        if (outside !== undefined) throw new Error(`${outside} is outside this run's folder ${root}`)
        return { result: OPS[msg.op](msg) ?? null }
      } catch (err) {
        return { error: err.message }
      }
    })()
    process.send({ id: msg.id, ...reply })
  })
}

if (require.main === module) serve(process.argv[2], process.argv[3] === 'true')

module.exports = { OPS }
