'use strict'
// The store of the sync-pool kind: the sync store's fs calls (servers/lib/store.js), each request's run
// on one of a pool of worker threads (piscina, servers/lib/pool-thread.js), so that the main thread
// never waits for a file. Like for like with the async kinds: as many threads as libuv's pool
// (UV_THREADPOOL_SIZE, 4 unless set), and the GET's sort on the main thread, where the async kinds sort
// (the sync kind's one thread does both). Answers and files are the sync kind's, byte for byte.

const path = require('node:path')
const { Piscina } = require('piscina')
const { log } = require('../../lib/serving/process-io')
const { uvThreadpoolSize } = require('../../lib/results/environment')
const { sortPieces } = require('./store-shared')

const THREAD = path.join(__dirname, 'pool-thread.js')

// A failure the thread sent as data (pool-thread.js), an Error again with its status and code.
function rebuild (data) {
  return Object.assign(new Error(data.message), data)
}

/**
 * The pool store. A thread that dies fails the one request it ran, which answers 500 (its error has
 * no status); piscina starts another thread in its place. A GET's bytes come back moved, not copied,
 * and are sorted here: a file too large to sort ends the process, as it does the sync and async kinds.
 * @param {{ dataPath: string, sortSplitString: string, fsync?: 'none'|'each' }} config
 * @param {number} [threads] libuv's pool size in this process unless given
 * @returns {{ kind: 'sync', read(key): Promise<string>, readBytes(key): Promise<Buffer>, append(key, Buffer): Promise<void>, busy(): number,
 *   close(): Promise<void> }}
 *   busy: tasks a thread runs now (one stuck in a system call keeps the process from exiting)
 */
function createPoolStore ({ dataPath, sortSplitString, fsync }, threads = uvThreadpoolSize()) {
  const pool = new Piscina({
    filename: THREAD,
    workerData: { dataPath, sortSplitString, fsync },
    minThreads: threads,
    maxThreads: threads,
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
  const readBytes = async (key) => {
    const bytes = await run('read', { key })
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }
  return {
    kind: 'sync',
    readBytes,
    read: async (key) => sortPieces((await readBytes(key)).toString('utf8'), sortSplitString),
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
