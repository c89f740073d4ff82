'use strict'
// lib/machine/proc.js: the one reader of /proc/PID/stat and of the threads' schedstat and status (Linux).

const t = require('tap')
const { spawn } = require('node:child_process')
const { once } = require('node:events')
const { readStat, isAlive, processCpuUs, threadsCpuNs, threadCpuNs, threadsSleeps } = require('../../lib/machine/proc')

t.test('this process: its parent, group, a running state and CPU time it has spent', async (t) => {
  const stat = readStat(process.pid)
  t.equal(stat.ppid, process.ppid)
  t.equal(stat.comm.length > 0, true)
  t.match(stat.state, /^[RS]$/)
  t.ok(Number.isInteger(stat.pgrp) && stat.pgrp > 0, `pgrp ${stat.pgrp}`)
  t.match(stat.startTime, /^\d+$/)
  for (let i = 0; i < 2e7; i++); // spend a few ticks
  t.ok(processCpuUs(process.pid) > 0, 'some CPU time')
  t.equal(processCpuUs(process.pid) % 10000, 0, 'counted in whole 10 ms ticks')
})

t.test('a name with spaces and parentheses does not shift the fields', async (t) => {
  const child = spawn(process.execPath, ['-e', 'process.title = "a (b) c"; console.log("ready"); setTimeout(() => {}, 30000)'],
    { stdio: ['ignore', 'pipe', 'ignore'] })
  t.teardown(() => child.kill())
  await once(child.stdout, 'data')
  const stat = readStat(child.pid)
  t.equal(stat.comm, 'a (b) c')
  t.equal(stat.ppid, process.pid)
  t.ok(isAlive(child.pid))
})

t.test('a process that ended is not alive, first as a zombie, then gone', async (t) => {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  const pid = child.pid
  await once(child, 'exit')
  t.notOk(isAlive(pid))
  t.equal(readStat(999999999), null, 'no such process')
  t.notOk(isAlive(999999999))
  t.throws(() => processCpuUs(999999999), /no process 999999999/)
})

t.test('the threads\' CPU to the ns and their sleeps grow as this process works and sleeps; a gone process has none', async (t) => {
  const [cpu, main, sleeps] = [threadsCpuNs(process.pid), threadCpuNs(process.pid, process.pid), threadsSleeps(process.pid)]
  const start = process.cpuUsage()
  const spent = () => process.cpuUsage(start).user + process.cpuUsage(start).system
  while (spent() < 20000); // 20 ms of CPU, however busy the machine
  await new Promise((resolve) => setTimeout(resolve, 20))
  const mainNow = threadCpuNs(process.pid, process.pid) // first: every thread's, read after, holds it
  t.ok(mainNow - main >= 10e6, `the main thread's part of 20 ms of the process's CPU (${Math.round((mainNow - main) / 1e6)} ms)`)
  t.ok(threadsCpuNs(process.pid) - cpu >= mainNow - main, 'every thread\'s: at least the main one\'s')
  t.ok(threadsSleeps(process.pid) > sleeps, 'a sleep in epoll counted')
  t.same([threadsCpuNs(2 ** 22 + 1), threadCpuNs(2 ** 22 + 1, 1), threadsSleeps(2 ** 22 + 1)], [0, 0, 0], 'no such process')
})

// A node process with a pool of 3 whose first call into the pool opens a FIFO for reading: the call holds its thread, asleep
// in the kernel (wait_for_partner, S), until the test opens the FIFO's other end.
t.test('pool threads: the pool\'s own, and a call asleep in the kernel holds one of them until it returns', async (t) => {
  const fs = require('node:fs')
  const path = require('node:path')
  const { poolThreads, busyThreads } = require('../../lib/machine/proc')
  const { samplePool } = require('../../sweep/interleaved/profiled')
  const fifo = path.join(t.testdir(), 'fifo')
  require('node:child_process').execFileSync('mkfifo', [fifo])
  // env -i: without tap's loaders, which start the pool (and threads of their own) before the first call.
  const child = spawn('/usr/bin/env', ['-i', 'UV_THREADPOOL_SIZE=3', process.execPath, '-e',
    'const fs = require("fs"); console.log(fs.readdirSync("/proc/self/task").join(" ")); fs.stat(".", () => console.log("pooled")); ' +
    `process.stdin.once("data", () => fs.open(${JSON.stringify(fifo)}, "r", (err) => console.log(err ? err.code : "opened")))`],
  { stdio: ['pipe', 'pipe', 'inherit'] })
  t.teardown(() => child.kill())
  const lines = child.stdout.setEncoding('utf8')
  let out = ''
  const line = async (text) => { while (!out.includes(text)) out += (await once(lines, 'data'))[0] }
  await line('pooled')
  const before = out.split('\n')[0]
  const stop = samplePool([child.pid], 3) // the pool started: a call into it came first
  const started = performance.now()
  child.stdin.write('\n')
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
  let pool = []
  for (let k = 0; k < 200 && busyThreads(child.pid, pool) === 0; k++, await sleep(10)) pool = poolThreads(child.pid, 3)
  const blocked = performance.now()
  const startup = before.trim().split(' ')
  t.equal(pool.length, 3)
  t.same(pool.filter((tid) => startup.includes(tid)), [], `the 3 threads started at the first call, not node's own (${startup.join(' ')}; ${pool.join(' ')})`)
  t.equal(busyThreads(child.pid, pool), 1, 'one thread holds the call')
  t.equal(busyThreads(child.pid, poolThreads(child.pid, 7).filter((tid) => !pool.includes(tid))), 0, 'node\'s own threads idle')
  await sleep(300)
  const writer = fs.openSync(fifo, 'w') // the reader's open returns
  const released = performance.now()
  await line('opened')
  fs.closeSync(writer)
  const { heldUs, boundUs } = stop()
  const ended = performance.now()
  t.equal(boundUs, 0, 'its loop waited, but on a pool with 2 threads free: never held up by the pool alone')
  t.ok(heldUs >= (released - blocked) * 1000 - 20000 && heldUs <= (ended - started) * 1000 + 20000,
    `the sampler counted ${Math.round(heldUs / 1000)} ms of work: the call held its thread at least ${Math.round(released - blocked)} ms, ` +
    `at most ${Math.round(ended - started)}`)
  // The callback can run before the pool thread that signalled it is back asleep: it goes idle within moments.
  let busy = busyThreads(child.pid, pool)
  for (let k = 0; k < 100 && busy > 0; k++, await sleep(10)) busy = busyThreads(child.pid, pool)
  t.equal(busy, 0, 'none once it returned (within a second)')
  t.same(poolThreads(2 ** 22 + 1, 3), [], 'a process that is gone has none')
})

// A pool of 1 whose call blocks on a FIFO, while its loop first spins 400 ms and then waits: the pool alone holds the
// process up only while the loop waits and the one thread is held.
t.test('the event loop waits on a full pool: only while its loop waits and every pool thread holds a call', async (t) => {
  const fs = require('node:fs')
  const path = require('node:path')
  const { busyThreads, poolThreads, loopWaits } = require('../../lib/machine/proc')
  const { samplePool } = require('../../sweep/interleaved/profiled')
  const fifo = path.join(t.testdir(), 'fifo')
  require('node:child_process').execFileSync('mkfifo', [fifo])
  const child = spawn('/usr/bin/env', ['-i', 'UV_THREADPOOL_SIZE=1', process.execPath, '-e',
    'const fs = require("fs"); fs.stat(".", () => console.log("pooled")); process.stdin.once("data", () => { ' +
    `fs.open(${JSON.stringify(fifo)}, "r", (err) => console.log(err ? err.code : "opened")); ` +
    'const until = Date.now() + 400; while (Date.now() < until); console.log("spun") })'],
  { stdio: ['pipe', 'pipe', 'inherit'] })
  t.teardown(() => child.kill())
  const lines = child.stdout.setEncoding('utf8')
  let out = ''
  const line = async (text) => { while (!out.includes(text)) out += (await once(lines, 'data'))[0] }
  await line('pooled')
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
  for (let k = 0; k < 200 && !loopWaits(child.pid); k++) await sleep(10)
  t.ok(loopWaits(child.pid), 'an idle loop waits in epoll')
  const stop = samplePool([child.pid], 1)
  child.stdin.write('\n')
  const pool = poolThreads(child.pid, 1)
  for (let k = 0; k < 200 && busyThreads(child.pid, pool) === 0; k++) await sleep(5)
  const blocked = performance.now()
  t.notOk(loopWaits(child.pid), 'a spinning loop does not wait')
  await line('spun')
  const spun = performance.now()
  await sleep(300)
  t.ok(loopWaits(child.pid), 'it waits again, its one thread held')
  const writer = fs.openSync(fifo, 'w')
  const released = performance.now()
  await line('opened')
  fs.closeSync(writer)
  const { heldUs, boundUs } = stop()
  const ms = (us) => Math.round(us / 1000)
  t.ok(Math.abs(boundUs / 1000 - (released - spun)) <= 60,
    `held up by the pool alone ${ms(boundUs)} ms: the ${Math.round(released - spun)} ms from the spin's end to the release, not the ` +
    `${Math.round(released - blocked)} ms its thread was held (${ms(heldUs)} sampled)`)
  t.equal(loopWaits(2 ** 22 + 1), false, 'a process that is gone does not wait')
})
