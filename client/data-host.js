'use strict'
// Where a run's data files are: this host (client/data-worker.js OPS, called here) or the server
// host, where a data worker forked over ssh (lib/machine/remote-fork.js) makes the run's folder, does the
// same operations, and removes the folder when the run ends or its control node dies.

const { OPS } = require('./data-worker')
const { forkRemote } = require('../lib/machine/remote-fork')

/**
 * The data files of a run.
 * @param {{ host: object, root: string, ssh?: string[], dir?: string, keep?: boolean, stderr?: number|'inherit' }|null} remote
 *   null: this host; else the server host, the run's folder there (named cbench-remote-*), the ssh
 *   words, its checkout, whether to keep the folder, where the worker's output goes
 * @returns {{ call(op: string, args: object): Promise<any>, close(): Promise<void> }} call: one of
 *   client/data-worker.js OPS (make, sizes, verify, clear, empty, remove); rejects with its error
 */
function openData (remote) {
  if (!remote) return { call: async (op, args) => OPS[op](args), close: async () => {} }
  const child = forkRemote(remote.host, 'client/data-worker.js', [remote.root, String(Boolean(remote.keep))],
    { ssh: remote.ssh, dir: remote.dir, stderr: remote.stderr })
  const waiting = new Map()
  let next = 0
  let gone = null
  child.on('message', ({ id, result, error }) => {
    const pending = waiting.get(id)
    waiting.delete(id)
    if (error !== undefined) pending?.reject(new Error(`${remote.host.text}: ${error}`))
    else pending?.resolve(result)
  })
  const closed = new Promise((resolve) => child.once('close', (code, signal) => {
    gone = new Error(`${remote.host.text}: the data worker ended (${signal || `code ${code}`})`)
    for (const pending of waiting.values()) pending.reject(gone)
    waiting.clear()
    resolve()
  }))
  return {
    call: (op, args) => {
      if (gone) return Promise.reject(gone)
      return new Promise((resolve, reject) => {
        const id = next++
        waiting.set(id, { resolve, reject })
        child.send({ ...args, op, id })
      })
    },
    close: async () => {
      child.disconnect()
      await closed
    }
  }
}

module.exports = { openData }
