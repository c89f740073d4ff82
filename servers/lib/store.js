'use strict'
// The I/O strategies the experiment compares: the same read and append, done with synchronous fs
// calls (here) or with asynchronous ones (servers/lib/store-async.js: node's callback API or
// fs.promises; servers/lib/store-handle.js: descriptors kept open). All give the same results and
// errors; a failed append leaves nothing of its record.

const fs = require('node:fs')
const { resolveKeyPath } = require('./keys')
const { fsyncProblem } = require('../../lib/kinds')
const { READ_FLAGS, APPEND_FLAGS, classify, notAFile, writeFailure, sortPieces } = require('./store-shared')
const { createCallbackStore, createFileHandleStore } = require('./store-async')
const { createHandleStore } = require('./store-handle')
const { createPromisesStore, createPromisifyStore, createStreamStore, createReadStore } = require('./store-idioms')

// The async stores by config.asyncApi (lib/config.js lists the names).
const ASYNC_STORES = {
  callback: createCallbackStore,
  promises: createPromisesStore,
  promisify: createPromisifyStore,
  filehandle: createFileHandleStore,
  handle: createHandleStore,
  stream: createStreamStore,
  read: createReadStore
}

/**
 * The sync store: open, fstat, read or write (and fdatasync with fsync=each), close, each a
 * blocking call. fsync=group needs an async store: this one runs one request at a time.
 * @param {{ dataPath: string, sortSplitString: string, fsync?: 'none'|'each' }} config
 * @param {{ shared?: boolean }} [how] shared: other processes append to the same files (cluster)
 * @returns {{ kind: 'sync', read(key): string, readBytes(key): Buffer, append(key, Buffer): void }}
 *   read: the file's text, sorted (GET /get); readBytes: its bytes, unsorted (GET /file, the sync-pool kind's threads)
 */
function createSyncStore ({ dataPath, sortSplitString, fsync = 'none' }, { shared = false } = {}) {
  const unflushable = fsyncProblem('sync', fsync)
  if (unflushable) throw new Error(unflushable)
  function readBytes (key) {
    let fd
    try {
      fd = fs.openSync(resolveKeyPath(dataPath, key), READ_FLAGS)
      if (!fs.fstatSync(fd).isFile()) throw notAFile()
      // Bytes first: Node 20's utf8 fast path reads a 16 KiB file in three read() calls, the
      // async APIs in one; on slow storage that would charge sync three waits per GET.
      return fs.readFileSync(fd)
    } catch (err) {
      throw classify(err, true)
    } finally {
      if (fd !== undefined) fs.closeSync(fd)
    }
  }
  return {
    kind: 'sync',
    read: (key) => sortPieces(readBytes(key).toString('utf8'), sortSplitString),
    readBytes,
    append (key, body) {
      const file = resolveKeyPath(dataPath, key)
      let fd
      try {
        // One write() on an O_APPEND descriptor: records from several processes never interleave.
        fd = fs.openSync(file, APPEND_FLAGS, 0o644)
        const failure = writeFailure(fd, file, fs.writeSync(fd, body), body.length, shared)
        if (failure) throw failure
        if (fsync === 'each') fs.fdatasyncSync(fd)
      } catch (err) {
        throw classify(err, false)
      } finally {
        if (fd !== undefined) fs.closeSync(fd)
      }
    }
  }
}

/**
 * The async store of config.asyncApi.
 * @param {{ dataPath: string, sortSplitString: string, asyncApi: string, fsync?: string }} config
 * @param {{ shared?: boolean }} [how]
 */
function createAsyncStore (config, how) {
  return (ASYNC_STORES[config.asyncApi] ?? createCallbackStore)(config, how)
}

module.exports = { createSyncStore, createAsyncStore, ASYNC_STORES, createCallbackStore, createFileHandleStore, createHandleStore, sortPieces }
