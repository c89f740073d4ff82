'use strict'
// The async store of asyncApi=handle, an experiment: each key's descriptors stay open, so a GET is
// one read() and a PUT one write() (+ flush), one thread-pool round trip each. Same results and
// errors as the other stores, as long as nothing removes or replaces a data file under the server.

const fs = require('node:fs')
const { resolveKeyPath } = require('./keys')
const { createKeyLock, createFlush } = require('./durability')
const { READ_FLAGS, APPEND_FLAGS, classify, notAFile, writeFailure, sortPieces } = require('./store-shared')

const MAX_OPEN = 256 // descriptors of each cache: reads, appends
const FIRST_READ_BYTES = 64 * 1024 // doubled when a read fills it, and remembered per descriptor

// Open descriptors by key, at most max, the least recently used evicted. One that left (evicted, or
// dropped after a failure) is closed once no request uses it. A failed open is not kept.
function createDescriptors (open, max) {
  const byKey = new Map() // key -> { key, fd, uses, waiting, gone, size }, in the order of last use
  const closeIfIdle = (entry) => {
    // A close error has no request to go to: the writes through the descriptor were answered already.
    if (entry.gone && entry.uses === 0 && entry.fd !== null) fs.close(entry.fd, () => {})
  }
  const leave = (entry) => {
    if (byKey.get(entry.key) === entry) byKey.delete(entry.key)
    entry.gone = true
    closeIfIdle(entry)
  }
  return {
    // use(err, entry) gets key's open descriptor (entry.fd), then calls release(entry, failed).
    acquire (key, file, use) {
      let entry = byKey.get(key)
      byKey.delete(key)
      if (entry === undefined) {
        entry = { key, fd: null, uses: 0, waiting: [], gone: false, size: FIRST_READ_BYTES }
        open(file, (err, fd) => {
          const waiting = entry.waiting
          entry.waiting = null
          if (err) {
            entry.uses = 0
            leave(entry)
          } else entry.fd = fd
          for (const waiter of waiting) waiter(err, entry)
        })
      }
      byKey.set(key, entry)
      entry.uses++
      for (const old of byKey.values()) {
        if (byKey.size <= max) break
        leave(old)
      }
      if (entry.waiting !== null) entry.waiting.push(use)
      else use(null, entry)
    },
    release (entry, failed) {
      entry.uses--
      if (failed) leave(entry)
      else closeIfIdle(entry)
    }
  }
}

// Opens a key's file for reading, refusing what is not a regular file (a directory) as the other stores do.
const openForRead = (file, cb) => fs.open(file, READ_FLAGS, (err, fd) => {
  if (err) return cb(err)
  fs.fstat(fd, (statErr, stats) => {
    if (!statErr && stats.isFile()) return cb(null, fd)
    fs.close(fd, () => cb(statErr || notAFile()))
  })
})

// The whole file from offset 0: a read that fills the buffer may have left some, so it reads again
// into one twice the size. Files only grow by appends, so the size that held it last time is the guess.
function readWhole (entry, size, done) {
  const buffer = Buffer.allocUnsafe(size)
  fs.read(entry.fd, buffer, 0, size, 0, (err, bytes) => {
    if (err) return done(err)
    if (bytes === size) {
      entry.size = Math.max(entry.size, size * 2)
      return readWhole(entry, size * 2, done)
    }
    done(null, buffer.subarray(0, bytes))
  })
}

/**
 * The async store on cached descriptors: per key a read descriptor (fs.read from 0) and an O_APPEND
 * one (fs.write + flush), at most MAX_OPEN of each, the least recently used closed.
 * @param {{ dataPath: string, sortSplitString: string, fsync?: 'none'|'each'|'group' }} config
 * @param {{ shared?: boolean }} [how] shared: other processes append to the same files (cluster)
 * @returns {{ kind: 'async', api: 'handle', read(key): Promise<string>, readBytes(key): Promise<Buffer>, append(key, Buffer): Promise<void> }}
 */
function createHandleStore ({ dataPath, sortSplitString, fsync = 'none' }, { shared = false } = {}) {
  const turn = createKeyLock()
  const flush = createFlush(fsync)
  const reads = createDescriptors(openForRead, MAX_OPEN)
  const appends = createDescriptors((file, cb) => fs.open(file, APPEND_FLAGS, 0o644, cb), MAX_OPEN)
  const readBytes = (key) => new Promise((resolve, reject) => reads.acquire(key, resolveKeyPath(dataPath, key), (err, entry) => {
    if (err) return reject(classify(err, true))
    readWhole(entry, entry.size, (readErr, bytes) => {
      reads.release(entry, Boolean(readErr))
      if (readErr) reject(classify(readErr, true))
      else resolve(bytes)
    })
  }))
  return {
    kind: 'async',
    api: 'handle',
    readBytes,
    read: async (key) => sortPieces((await readBytes(key)).toString('utf8'), sortSplitString),
    append (key, body) {
      const file = resolveKeyPath(dataPath, key)
      return new Promise((resolve, reject) => appends.acquire(key, file, (err, entry) => {
        if (err) return reject(classify(err, false))
        // A short write was undone and leaves the descriptor sound; any other failure drops it.
        const done = (failure) => {
          appends.release(entry, Boolean(failure) && failure.partial === undefined)
          if (failure) reject(classify(failure, false))
          else resolve()
        }
        // One write() on an O_APPEND descriptor, as in the other stores; one append per key at a time.
        turn(key, (release) => fs.write(entry.fd, body, (writeErr, written) => {
          const failure = writeErr || writeFailure(entry.fd, file, written, body.length, shared)
          release()
          if (failure) done(failure)
          else flush(key, entry.fd, done)
        }))
      }))
    }
  }
}

module.exports = { createHandleStore, MAX_OPEN, FIRST_READ_BYTES }
