'use strict'
// The I/O strategies the experiment compares: the same read and append, done with synchronous fs
// calls or with asynchronous ones (node's callback API or fs.promises). All give the same results
// and errors.

const fs = require('node:fs')
const { resolveKeyPath } = require('./keys')

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW } = fs.constants
const READ_FLAGS = O_RDONLY | O_NOFOLLOW
const APPEND_FLAGS = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW

/** An fs error whose meaning for the client is known: 403 for a symlink, 404 for no file. */
function classify (err) {
  if (err.code === 'ELOOP') err.status = 403
  else if (err.code === 'ENOENT' || err.code === 'EISDIR') err.status = 404
  return err
}

function notAFile () {
  return Object.assign(new Error('not a regular file'), { code: 'EISDIR', status: 404 })
}

function shortWrite (written, length) {
  return new Error(`short write: ${written} of ${length} bytes`)
}

/** The GET work of the historic benchmark: split, sort, join. */
function sortPieces (text, sortSplitString) {
  return text.split(sortSplitString).sort().join(sortSplitString)
}

/**
 * The sync store: open, fstat, read or write, close, each a blocking call.
 * @param {{ dataPath: string, sortSplitString: string }} config
 * @returns {{ kind: 'sync', read(key): string, append(key, Buffer): void }}
 */
function createSyncStore ({ dataPath, sortSplitString }) {
  return {
    kind: 'sync',
    read (key) {
      let fd
      try {
        fd = fs.openSync(resolveKeyPath(dataPath, key), READ_FLAGS)
        if (!fs.fstatSync(fd).isFile()) throw notAFile()
        // Bytes first: Node 20's utf8 fast path reads a 16 KiB file in three read() calls, the
        // async APIs in one; on slow storage that would charge sync three waits per GET.
        return sortPieces(fs.readFileSync(fd).toString('utf8'), sortSplitString)
      } catch (err) {
        throw classify(err)
      } finally {
        if (fd !== undefined) fs.closeSync(fd)
      }
    },
    append (key, body) {
      let fd
      try {
        // One write() on an O_APPEND descriptor: records from several processes never interleave.
        fd = fs.openSync(resolveKeyPath(dataPath, key), APPEND_FLAGS, 0o644)
        const written = fs.writeSync(fd, body)
        if (written !== body.length) throw shortWrite(written, body.length)
      } catch (err) {
        throw classify(err)
      } finally {
        if (fd !== undefined) fs.closeSync(fd)
      }
    }
  }
}

/**
 * The async store on node's callback API: fs.readFile and open + write + close, each step one
 * thread-pool round trip without a promise (the cheaper API, bench/RESULTS.md).
 * @param {{ dataPath: string, sortSplitString: string }} config
 * @returns {{ kind: 'async', api: 'callback', read(key): Promise<string>, append(key, Buffer): Promise<void> }}
 */
function createCallbackStore ({ dataPath, sortSplitString }) {
  return {
    kind: 'async',
    api: 'callback',
    read (key) {
      return new Promise((resolve, reject) => {
        // readFile opens with these flags itself; a directory fails its read with EISDIR.
        fs.readFile(resolveKeyPath(dataPath, key), { encoding: 'utf8', flag: READ_FLAGS }, (err, text) => {
          if (err) reject(classify(err))
          else resolve(sortPieces(text, sortSplitString))
        })
      })
    },
    append (key, body) {
      return new Promise((resolve, reject) => {
        fs.open(resolveKeyPath(dataPath, key), APPEND_FLAGS, 0o644, (err, fd) => {
          if (err) return reject(classify(err))
          // One write() on an O_APPEND descriptor, as in the sync store.
          fs.write(fd, body, (writeErr, written) => {
            const failure = writeErr ? classify(writeErr) : written !== body.length && shortWrite(written, body.length)
            fs.close(fd, (closeErr) => {
              const first = failure || closeErr
              if (first) reject(first)
              else resolve()
            })
          })
        })
      })
    }
  }
}

/**
 * The async store on fs.promises: a FileHandle per request (open, stat, readFile or write, close).
 * @param {{ dataPath: string, sortSplitString: string }} config
 * @returns {{ kind: 'async', api: 'promise', read(key): Promise<string>, append(key, Buffer): Promise<void> }}
 */
function createPromiseStore ({ dataPath, sortSplitString }) {
  const fsp = fs.promises
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
        throw classify(err)
      } finally {
        if (fh !== undefined) await fh.close()
      }
    },
    async append (key, body) {
      let fh
      try {
        // fh.write is one write(); fh.appendFile would split large bodies into several.
        fh = await fsp.open(resolveKeyPath(dataPath, key), APPEND_FLAGS, 0o644)
        const { bytesWritten } = await fh.write(body)
        if (bytesWritten !== body.length) throw shortWrite(bytesWritten, body.length)
      } catch (err) {
        throw classify(err)
      } finally {
        if (fh !== undefined) await fh.close()
      }
    }
  }
}

/**
 * The async store of config.asyncApi.
 * @param {{ dataPath: string, sortSplitString: string, asyncApi: 'callback'|'promise' }} config
 */
function createAsyncStore (config) {
  return config.asyncApi === 'promise' ? createPromiseStore(config) : createCallbackStore(config)
}

module.exports = { createSyncStore, createAsyncStore, createCallbackStore, createPromiseStore, sortPieces }
