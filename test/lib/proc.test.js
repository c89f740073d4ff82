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
