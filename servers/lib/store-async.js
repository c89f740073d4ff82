'use strict'
// The async stores: node's callback API (a thread-pool round trip per step, no promise) and
// fs.promises on a FileHandle per request with a stat. Same results and errors as the sync store.

const fs = require('node:fs')
const { resolveKeyPath } = require('./keys')
const { createKeyLock, createFlush } = require('./durability')
const { READ_FLAGS, APPEND_FLAGS, classify, notAFile, writeFailure, sortPieces } = require('./store-shared')

/**
 * The async store on node's callback API: fs.readFile and open + write (+ flush) + close, each
 * step one thread-pool round trip without a promise (the cheaper API, bench/RESULTS.md).
 * @param {{ dataPath: string, sortSplitString: string, fsync?: 'none'|'each'|'group' }} config
 * @param {{ shared?: boolean }} [how] shared: other processes append to the same files (cluster)
 * @returns {{ kind: 'async', api: 'callback', read(key): Promise<string>, readBytes(key): Promise<Buffer>, append(key, Buffer): Promise<void> }}
 *   read: the file's text, sorted (GET /get); readBytes: its bytes (GET /file)
 */
function createCallbackStore ({ dataPath, sortSplitString, fsync = 'none' }, { shared = false } = {}) {
  const turn = createKeyLock()
  const flush = createFlush(fsync)
  // readFile opens with these flags itself; a directory fails its read with EISDIR.
  const readFile = (key, answer) => new Promise((resolve, reject) => {
    fs.readFile(resolveKeyPath(dataPath, key), { flag: READ_FLAGS }, (err, bytes) => {
      if (err) reject(classify(err, true))
      else resolve(answer(bytes))
    })
  })
  return {
    kind: 'async',
    api: 'callback',
    read: (key) => readFile(key, (bytes) => sortPieces(bytes.toString('utf8'), sortSplitString)),
    readBytes: (key) => readFile(key, (bytes) => bytes),
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
 * The async store of asyncApi=filehandle, on fs.promises: a FileHandle per request (open, stat,
 * readFile or write (+ flush), close).
 * @param {{ dataPath: string, sortSplitString: string, fsync?: 'none'|'each'|'group' }} config
 * @param {{ shared?: boolean }} [how] shared: other processes append to the same files (cluster)
 * @returns {{ kind: 'async', api: 'filehandle', read(key): Promise<string>, readBytes(key): Promise<Buffer>, append(key, Buffer): Promise<void> }}
 */
function createFileHandleStore ({ dataPath, sortSplitString, fsync = 'none' }, { shared = false } = {}) {
  const fsp = fs.promises
  const turn = createKeyLock()
  const flush = createFlush(fsync)
  async function readBytes (key) {
    let fh
    try {
      fh = await fsp.open(resolveKeyPath(dataPath, key), READ_FLAGS)
      if (!(await fh.stat()).isFile()) throw notAFile()
      return await fh.readFile()
    } catch (err) {
      throw classify(err, true)
    } finally {
      if (fh !== undefined) await fh.close()
    }
  }
  return {
    kind: 'async',
    api: 'filehandle',
    readBytes,
    read: async (key) => sortPieces((await readBytes(key)).toString('utf8'), sortSplitString),
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
        if (fsync === 'each') await fh.datasync()
        else if (fsync === 'group') await new Promise((resolve, reject) => flush(key, fh.fd, (err) => (err ? reject(err) : resolve())))
      } catch (err) {
        throw classify(err, false)
      } finally {
        if (fh !== undefined) await fh.close()
      }
    }
  }
}

module.exports = { createCallbackStore, createFileHandleStore }
