'use strict'
// The store of the sync-pool kind: the sync store's read and append (servers/lib/store.js), each run
// on one of nServers worker threads (piscina, servers/lib/pool-thread.js), so that the main thread
// only does HTTP. Answers and files are the sync kind's, byte for byte.

const path = require('node:path')
const { Piscina } = require('piscina')
const { log } = require('../../lib/process-io')

const THREAD = path.join(__dirname, 'pool-thread.js')

// A failure the thread sent as data (pool-thread.js), an Error again with its status and code.
function rebuild (data) {
  return Object.assign(new Error(data.message), data)
}

/**
 * The pool store. A thread that dies (out of its heap) fails the one request it ran, which answers
 * 500 (its error has no status); piscina starts another thread in its place.
 * No resourceLimits: a thread's heap is V8's default, as large as the main thread's, so the pool sorts
 * any file the sync kind can. A lower limit would not make a large GET safe: Node ends a thread at its
 * limit cleanly for some allocations and aborts the whole process for others (nodejs/node#47224; here
 * a GET's sort of a 96 MiB file under a 512 MiB limit aborted it). Node's --max-old-space-size sets
 * every thread's heap as well as the main thread's.
 * @param {{ dataPath: string, sortSplitString: string, fsync?: 'none'|'each', nServers: number }} config
 * @returns {{ kind: 'sync', read(key): Promise<string>, append(key, Buffer): Promise<void>, busy(): number, close(): Promise<void> }}
 *   busy: tasks a thread runs now (one stuck in a system call keeps the process from exiting)
 */
function createPoolStore ({ dataPath, sortSplitString, fsync, nServers }) {
  const pool = new Piscina({
    filename: THREAD,
    workerData: { dataPath, sortSplitString, fsync },
    minThreads: nServers,
    maxThreads: nServers,
    // The threads stay for the server's life: a thread started for a burst would charge its start to it.
    idleTimeout: Infinity,
    recordTiming: false
  })
  // An idle thread's uncaught error (a busy one's rejects its task): piscina replaces the thread.
  pool.on('error', (err) => log(`pool thread: ${err.stack || err}`))
  let busy = 0
  const run = async (name, task, transferList) => {
    busy++
    try {
      const result = await pool.run(task, { name, transferList })
      if (result?.error) throw rebuild(result.error)
      return result
    } finally {
      busy--
    }
  }
  return {
    kind: 'sync',
    read: (key) => run('read', { key }),
    append (key, body) {
      // A copy of exactly the body's bytes, moved to the thread: the request's Buffer may be a slice
      // of a larger one (the socket's), which a clone would copy whole.
      const bytes = new Uint8Array(body)
      return run('append', { key, body: bytes }, [bytes.buffer])
    },
    busy: () => busy,
    close: () => pool.destroy()
  }
}

module.exports = { createPoolStore }
