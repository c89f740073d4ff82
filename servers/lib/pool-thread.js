'use strict'
// A thread of the sync-pool kind's pool (servers/lib/store-pool.js, run by piscina): the sync
// store's read or append for one request, blocking this thread only.

const { workerData } = require('node:worker_threads')
const { createSyncStore } = require('./store')

// The pool's threads append to the same files at once, as cluster workers do.
const store = createSyncStore(workerData, { shared: true })

// A failure goes back as data: structured clone keeps an Error's message and stack but drops the
// status, code and syscall that the answer and the fault log are made of.
function failed (err) {
  const { name, message, stack } = err
  return { error: { ...err, name, message, stack } }
}

/** @returns {string|{ error: object }} the file's text, sorted (store.read) */
function read ({ key }) {
  try {
    return store.read(key)
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
