'use strict'
// The read idioms a file server is written with, each an async store (asyncApi=promises, promisify, stream, read)
// whose GET reads as its name says and whose PUT is the callback store's: they differ in how they read a file.
// Same answers and errors as the other stores.

const fs = require('node:fs')
const { promisify } = require('node:util')
const { resolveKeyPath } = require('./keys')
const { READ_FLAGS, classify, notAFile, sortPieces } = require('./store-shared')
const { createCallbackStore } = require('./store-async')

const SPARE_BUFFERS = 64 // the read idiom's buffers kept for the next requests

// An idiom's store: readBytes(file) (and readStream) from the idiom, the callback store's append.
function idiomStore (api, config, how, readBytes, more = {}) {
  const { append } = createCallbackStore(config, how)
  const bytesOf = async (key) => {
    try {
      return await readBytes(resolveKeyPath(config.dataPath, key))
    } catch (err) {
      throw classify(err, true)
    }
  }
  return {
    kind: 'async',
    api,
    readBytes: bytesOf,
    read: async (key) => {
      const bytes = await bytesOf(key)
      const text = bytes.toString('utf8')
      more.release?.(bytes)
      return sortPieces(text, config.sortSplitString)
    },
    append,
    ...more
  }
}

/** asyncApi=promises: `await fs.promises.readFile(path)`, as applications write it (no stat of their own). */
function createPromisesStore (config, how) {
  return idiomStore('promises', config, how, (file) => fs.promises.readFile(file, { flag: READ_FLAGS }))
}

/** asyncApi=promisify: `util.promisify(fs.readFile)`, the callback readFile behind a promise. */
function createPromisifyStore (config, how) {
  const readFile = promisify(fs.readFile)
  return idiomStore('promisify', config, how, (file) => readFile(file, { flag: READ_FLAGS }))
}

// A read stream once its first read is done (data, end or error), so that a missing file or a directory fails
// before the answer starts; then piped.
function openedStream (file) {
  const stream = fs.createReadStream(file, { flags: READ_FLAGS })
  return new Promise((resolve, reject) => {
    const failed = (err) => reject(classify(err, true))
    stream.once('error', failed)
    stream.once('readable', () => {
      stream.off('error', failed)
      resolve(stream)
    })
  })
}

/**
 * asyncApi=stream: `fs.createReadStream(path).pipe(res)`, what static-file middleware does: GET /file pipes it
 * (chunked, no stat for a length); GET /get gathers its chunks to sort them.
 */
function createStreamStore (config, how) {
  const gather = async (file) => {
    const chunks = []
    for await (const chunk of await openedStream(file)) chunks.push(chunk)
    return Buffer.concat(chunks)
  }
  return idiomStore('stream', config, how, gather, { readStream: (key) => openedStream(resolveKeyPath(config.dataPath, key)) })
}

const call = (fn, ...args) => new Promise((resolve, reject) => fn(...args, (err, value) => (err ? reject(err) : resolve(value))))

/**
 * asyncApi=read: fs.open, fs.fstat for the size, fs.read into a buffer kept from an earlier request, fs.close. The
 * answer is a view of that buffer: release(bytes) gives the buffer back once the answer is written.
 */
function createReadStore (config, how) {
  const spare = []
  const take = (size) => {
    const i = spare.findIndex((b) => b.length >= size)
    return i === -1 ? Buffer.allocUnsafeSlow(Math.max(size, 4096)) : spare.splice(i, 1)[0]
  }
  const release = (bytes) => { if (spare.length < SPARE_BUFFERS) spare.push(Buffer.from(bytes.buffer)) } // the whole buffer again
  async function readBytes (file) {
    const fd = await call(fs.open, file, READ_FLAGS)
    try {
      const stats = await call(fs.fstat, fd)
      if (!stats.isFile()) throw notAFile()
      // One byte more than the size: a read that fills the buffer means the file grew since fstat, and is read again.
      for (let size = stats.size + 1; ; size *= 2) {
        const buffer = take(size)
        const n = await call(fs.read, fd, buffer, 0, size, 0)
        if (n < size) return buffer.subarray(0, n)
        release(buffer)
      }
    } finally {
      await call(fs.close, fd)
    }
  }
  return idiomStore('read', config, how, readBytes, { release })
}

module.exports = { createPromisesStore, createPromisifyStore, createStreamStore, createReadStore }
