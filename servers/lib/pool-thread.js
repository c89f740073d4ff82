'use strict'
// A thread of the sync-pool kind's pool (servers/lib/store-pool.js, run by piscina): the sync
// store's fs calls for one request, blocking this thread only. The sort is the main thread's.

const { workerData } = require('node:worker_threads')
const { move } = require('piscina')
const { createSyncStore } = require('./store')

// The pool's threads append to the same files at once, as cluster workers do.
const store = createSyncStore(workerData, { shared: true })

// A failure goes back as data: structured clone keeps an Error's message and stack but drops the
// status, code and syscall that the answer and the fault log are made of.
function failed (err) {
  const { name, message, stack } = err
  return { error: { ...err, name, message, stack } }
}

/** @returns {Uint8Array|{ error: object }} the file's bytes, moved to the main thread (not copied there) */
function read ({ key }) {
  try {
    // A copy of exactly the file's bytes: readFileSync's Buffer of a small file is a slice of Node's
    // shared pool, which cannot be moved.
    return move(new Uint8Array(store.readBytes(key)))
  } catch (err) {
    return failed(err)
  }
}

/** @returns {undefined|{ error: object }} */
function append ({ key, body }) {
  try {
    store.append(key, body)
  } catch (err) {
    return failed(err)
  }
}

module.exports = { read, append }
