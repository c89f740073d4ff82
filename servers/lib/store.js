'use strict'
// The I/O strategies the experiment compares: the same read and append, done with synchronous fs
// calls or with asynchronous ones (node's callback API or fs.promises). All give the same results
// and errors; a failed append leaves nothing of its record (servers/lib/durability.js).

const fs = require('node:fs')
const { resolveKeyPath } = require('./keys')
const { undoPartial, shortWriteError, createKeyLock, createFlush } = require('./durability')

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW } = fs.constants
const READ_FLAGS = O_RDONLY | O_NOFOLLOW
const APPEND_FLAGS = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW
const OUT_OF_SPACE = new Set(['ENOSPC', 'EDQUOT'])

/**
 * An fs error whose meaning for the client is known: 403 for a symlink, 404 for no file (on a
 * read: on an append it means the data folder is gone, a 500), 507 for no space.
 */
function classify (err, reading) {
  if (err.code === 'ELOOP') err.status = 403
  else if (err.code === 'EISDIR' || (reading && err.code === 'ENOENT')) err.status = 404
  else if (OUT_OF_SPACE.has(err.code)) err.status = 507
  return err
}

function notAFile () {
  return Object.assign(new Error('not a regular file'), { code: 'EISDIR', status: 404 })
}

/** After a write of `written` bytes: null if the whole body went in, else the error, the partial undone. */
function writeFailure (fd, file, written, length, shared) {
  if (written === length) return null
  let outcome = 'nothing'
  try {
    if (written > 0) outcome = undoPartial(fd, file, written, shared)
  } catch (err) {
    outcome = `left (${err.code || err.message})`
  }
  return shortWriteError(written, length, outcome)
}

/** The GET work of the historic benchmark: split, sort, join. */
function sortPieces (text, sortSplitString) {
  return text.split(sortSplitString).sort().join(sortSplitString)
}

/**
 * The sync store: open, fstat, read or write (and fdatasync with fsync=each), close, each a
 * blocking call. fsync=group needs an async store: this one runs one request at a time.
 * @param {{ dataPath: string, sortSplitString: string, fsync?: 'none'|'each' }} config
 * @param {{ shared?: boolean }} [how] shared: other processes append to the same files (cluster)
 * @returns {{ kind: 'sync', read(key): string, append(key, Buffer): void }}
 */
function createSyncStore ({ dataPath, sortSplitString, fsync = 'none' }, { shared = false } = {}) {
  if (fsync === 'group') throw new Error('fsync=group needs an async store: a sync server handles one request at a time, so no two PUTs can share a flush')
  return {
    kind: 'sync',
    read (key) {
      let fd
      try {
        fd = fs.openSync(resolveKeyPath(dataPath, key), READ_FLAGS)
        if (!fs.fstatSync(fd).isFile()) throw notAFile()
        return sortPieces(fs.readFileSync(fd, 'utf8'), sortSplitString)
      } catch (err) {
        throw classify(err, true)
      } finally {
        if (fd !== undefined) fs.closeSync(fd)
      }
    },
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
 * The async store on node's callback API: fs.readFile and open + write (+ flush) + close, each
 * step one thread-pool round trip without a promise (the cheaper API, bench/RESULTS.md).
 * @param {{ dataPath: string, sortSplitString: string, fsync?: 'none'|'each'|'group' }} config
 * @param {{ shared?: boolean }} [how] shared: other processes append to the same files (cluster)
 * @returns {{ kind: 'async', api: 'callback', read(key): Promise<string>, append(key, Buffer): Promise<void> }}
 */
function createCallbackStore ({ dataPath, sortSplitString, fsync = 'none' }, { shared = false } = {}) {
  const turn = createKeyLock()
  const flush = createFlush(fsync)
  return {
    kind: 'async',
    api: 'callback',
    read (key) {
      return new Promise((resolve, reject) => {
        // readFile opens with these flags itself; a directory fails its read with EISDIR.
        fs.readFile(resolveKeyPath(dataPath, key), { encoding: 'utf8', flag: READ_FLAGS }, (err, text) => {
          if (err) reject(classify(err, true))
          else resolve(sortPieces(text, sortSplitString))
        })
      })
    },
    append (key, body) {
      const file = resolveKeyPath(dataPath, key)
      return new Promise((resolve, reject) => {
        fs.open(file, APPEND_FLAGS, 0o644, (err, fd) => {
          if (err) return reject(classify(err, false))
          const close = (failure) => fs.close(fd, (closeErr) => {
            if (failure || closeErr) reject(classify(failure || closeErr, false))
            else resolve()
          })
          // One write() on an O_APPEND descriptor, as in the sync store; one append per key at a time.
          turn(key, (release) => fs.write(fd, body, (writeErr, written) => {
            const failure = writeErr || writeFailure(fd, file, written, body.length, shared)
            release()
            if (failure) close(failure)
            else flush(key, fd, close)
          }))
        })
      })
    }
  }
}

/**
 * The async store on fs.promises: a FileHandle per request (open, stat, readFile or write (+ flush),
 * close).
 * @param {{ dataPath: string, sortSplitString: string, fsync?: 'none'|'each'|'group' }} config
 * @param {{ shared?: boolean }} [how] shared: other processes append to the same files (cluster)
 * @returns {{ kind: 'async', api: 'promise', read(key): Promise<string>, append(key, Buffer): Promise<void> }}
 */
function createPromiseStore ({ dataPath, sortSplitString, fsync = 'none' }, { shared = false } = {}) {
  const fsp = fs.promises
  const turn = createKeyLock()
  const flush = createFlush(fsync)
  return {
    kind: 'async',
    api: 'promise',
    async read (key) {
      let fh
      try {
        fh = await fsp.open(resolveKeyPath(dataPath, key), READ_FLAGS)
        if (!(await fh.stat()).isFile()) throw notAFile()
        return sortPieces(await fh.readFile('utf8'), sortSplitString)
      } catch (err) {
        throw classify(err, true)
      } finally {
        if (fh !== undefined) await fh.close()
      }
    },
    async append (key, body) {
      const file = resolveKeyPath(dataPath, key)
      let fh
      try {
        fh = await fsp.open(file, APPEND_FLAGS, 0o644)
        const release = await new Promise((resolve) => turn(key, resolve))
        let failure
        try {
          // fh.write is one write(); fh.appendFile would split large bodies into several.
          failure = writeFailure(fh.fd, file, (await fh.write(body)).bytesWritten, body.length, shared)
        } finally {
          release()
        }
        if (failure) throw failure
        await new Promise((resolve, reject) => flush(key, fh.fd, (err) => (err ? reject(err) : resolve())))
      } catch (err) {
        throw classify(err, false)
      } finally {
        if (fh !== undefined) await fh.close()
      }
    }
  }
}

/**
 * The async store of config.asyncApi.
 * @param {{ dataPath: string, sortSplitString: string, asyncApi: 'callback'|'promise', fsync?: string }} config
 * @param {{ shared?: boolean }} [how]
 */
function createAsyncStore (config, how) {
  return config.asyncApi === 'promise' ? createPromiseStore(config, how) : createCallbackStore(config, how)
}

module.exports = { createSyncStore, createAsyncStore, createCallbackStore, createPromiseStore, sortPieces }
