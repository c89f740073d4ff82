'use strict'
// Where a serving process waits on its files, while a profiled window lasts (lib/serving/profiler.js): the
// wall time of synchronous fs calls (the event loop can do nothing else) and of asynchronous ones in
// the thread pool, split into busy (while at most the pool's size were outstanding) and queued (the excess); and the
// pool trips libuv made for them, counted.

const fs = require('node:fs')
const { createHook } = require('node:async_hooks')

// The async resources of one libuv fs request each: a call of the callback API, of fs.promises, a FileHandle's close.
// A call from JS is not a trip: fs.readFile is open, fstat, a read per 512 KiB and close, four trips or more.
const POOL_TRIPS = new Set(['FSREQCALLBACK', 'FSREQPROMISE', 'FILEHANDLECLOSEREQ'])

const SYNC = ['openSync', 'closeSync', 'readSync', 'writeSync', 'fstatSync', 'statSync', 'readFileSync', 'writeFileSync',
  'appendFileSync', 'fsyncSync', 'fdatasyncSync']
const CALLBACK = ['open', 'close', 'read', 'write', 'fstat', 'stat', 'readFile', 'writeFile', 'appendFile', 'fsync', 'fdatasync']
const PROMISE = ['open', 'stat', 'readFile', 'writeFile', 'appendFile']
const HANDLE = ['stat', 'read', 'readFile', 'write', 'datasync', 'sync'] // and close, a handle's own property

/**
 * Starts timing this process's fs calls: wraps fs's functions (and fs.promises', and FileHandle's
 * methods) until stop() puts the originals back.
 * @param {number} [poolSize] libuv's thread pool size
 * @returns {{ stop(): { syncUs: number, syncCalls: number, poolBusyUs: number, poolQueuedUs: number, poolCalls: number, poolTrips: number } }}
 *   poolCalls: the fs calls made from JS; poolTrips: the libuv requests they made
 */
function watchFs (poolSize = Number(process.env.UV_THREADPOOL_SIZE) || 4) {
  const now = () => performance.now() * 1000
  const saved = []
  const swap = (target, name, make) => {
    const original = target[name]
    if (typeof original !== 'function') return
    saved.push([target, name, original])
    target[name] = make(original)
  }
  let watching = true
  let depth = 0 // a sync call made inside another (readFileSync calls readSync) counts once
  let syncUs = 0
  let syncCalls = 0
  let outstanding = 0
  let last = now()
  let busyUs = 0
  let queuedUs = 0
  let poolCalls = 0
  let poolTrips = 0
  const trips = createHook({ init (id, type) { if (POOL_TRIPS.has(type)) poolTrips++ } }).enable()
  const tick = () => {
    const t = now()
    busyUs += Math.min(outstanding, poolSize) * (t - last)
    queuedUs += Math.max(0, outstanding - poolSize) * (t - last)
    last = t
  }
  // One call into the pool: counted from its submission to its completion, if both fall while watching.
  const submit = () => {
    tick()
    outstanding++
    poolCalls++
    let open = true
    return () => {
      if (!open || !watching) return
      open = false
      tick()
      outstanding--
    }
  }
  for (const name of SYNC) {
    swap(fs, name, (original) => function (...args) {
      const t0 = now()
      depth++
      try {
        return original.apply(this, args)
      } finally {
        if (--depth === 0 && watching) {
          syncUs += now() - t0
          syncCalls++
        }
      }
    })
  }
  for (const name of CALLBACK) {
    swap(fs, name, (original) => function (...args) {
      const k = args.findLastIndex((a) => typeof a === 'function')
      if (k < 0) return original.apply(this, args)
      const done = submit()
      const callback = args[k]
      args[k] = function (...results) { done(); return callback.apply(this, results) }
      return original.apply(this, args)
    })
  }
  const timed = (original) => function (...args) {
    const done = submit()
    return original.apply(this, args).finally(done)
  }
  for (const name of PROMISE) swap(fs.promises, name, timed)
  // FileHandle's class is reached through a handle: its methods are wrapped at the first open.
  let handles = false
  const open = fs.promises.open
  fs.promises.open = async function (...args) {
    const handle = await open.apply(this, args)
    if (!handles && watching) {
      handles = true
      for (const name of HANDLE) swap(Object.getPrototypeOf(handle), name, timed)
    }
    if (watching) handle.close = timed(handle.close)
    return handle
  }
  saved.push([fs.promises, 'open', open])
  return {
    stop () {
      tick()
      watching = false
      trips.disable()
      for (const [target, name, original] of saved.reverse()) target[name] = original
      return { syncUs: Math.round(syncUs), syncCalls, poolBusyUs: Math.round(busyUs), poolQueuedUs: Math.round(queuedUs), poolCalls, poolTrips }
    }
  }
}

module.exports = { watchFs }
