'use strict'
// env.json's record of the machine, Node, libuv, cluster policy, git and installed packages, and
// the effective UV_THREADPOOL_SIZE and cluster policy, checked against what Node itself does.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { isDeepStrictEqual } = require('node:util')
const t = require('tap')
const { ROOT } = require('../../../lib/config')
const { collectEnv } = require('../../../sweep/results/env')
const { uvThreadpoolSize, uvUseIoUring, schedPolicy, SCHED_POLICY_DEFAULT } = require('../../../lib/results/environment')

t.test('env records the machine, the run and every installed dependency\'s version', async (t) => {
  const loadAverage = () => os.loadavg().map((x) => Number(x.toFixed(2)))
  const before = loadAverage()
  const env = collectEnv({ command: 'quick', argv: ['quick'], seed: 5, config: { nFiles: 30 } })
  const after = loadAverage()
  t.match(env, {
    node: process.version,
    cpus: os.availableParallelism(),
    cpuModel: String,
    totalMemBytes: os.totalmem(),
    platform: process.platform,
    release: os.release(),
    uvThreadpoolSize: Number,
    schedPolicy: /^(rr|none)$/,
    command: 'quick',
    argv: ['quick'],
    seed: 5,
    config: { nFiles: 30 },
    finishedAt: null
  })
  t.ok(env.gitCommit === null || /^[0-9a-f]{40}$/.test(env.gitCommit))
  // The kernel updates the load average every 5 s: the one recorded is the one read just before or just after.
  t.ok([before, after].some((read) => isDeepStrictEqual(read, env.loadAverage)), `load average ${env.loadAverage} (read ${before} and ${after})`)
  t.ok(env.loadAverage.length === 3 && env.loadAverage.every(Number.isFinite), 'three finite numbers: 1, 5 and 15 min')
  t.ok(Date.parse(env.startedAt) <= Date.now())
  const express = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'express', 'package.json'), 'utf8'))
  t.equal(env.packages.express, express.version)
})

t.test('env.json says which cores count as oversubscribed and what the servers inherit', async (t) => {
  const env = collectEnv({})
  const n = os.availableParallelism()
  t.equal(env.oversubscriptionNote, `with ${n} cores, nServers > ${n} measures oversubscription`)
  t.equal(env.schedPolicyDefault, process.platform === 'win32' ? 'none' : 'rr')
  t.same(env.inheritedEnv, {
    UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? null,
    UV_USE_IO_URING: process.env.UV_USE_IO_URING ?? null,
    NODE_CLUSTER_SCHED_POLICY: process.env.NODE_CLUSTER_SCHED_POLICY ?? null
  })
  t.equal(env.uvThreadpoolSize, uvThreadpoolSize(process.env))
  t.equal(env.schedPolicy, schedPolicy(process.env))
})

t.test('the thread-pool size is read as libuv reads UV_THREADPOOL_SIZE', async (t) => {
  for (const [value, size] of [[undefined, 4], ['16', 16], ['0', 1], ['abc', 1], ['', 1], ['3x', 3], [' 5', 5], ['1024', 1024], ['2000', 1024], ['-3', 1024]]) {
    t.equal(uvThreadpoolSize(value === undefined ? {} : { UV_THREADPOOL_SIZE: value }), size, JSON.stringify(value))
  }
})

t.test('the policy is NODE_CLUSTER_SCHED_POLICY when rr or none, else Node\'s default', async (t) => {
  for (const [value, policy] of [[undefined, SCHED_POLICY_DEFAULT], ['rr', 'rr'], ['none', 'none'], ['NONE', SCHED_POLICY_DEFAULT],
    ['', SCHED_POLICY_DEFAULT]]) {
    t.equal(schedPolicy(value === undefined ? {} : { NODE_CLUSTER_SCHED_POLICY: value }), policy, JSON.stringify(value))
  }
})

// What a node process started with `vars` reports: its cluster policy, and its thread count once
// the libuv pool has started (libuv starts every pool thread at once, on first use).
function probe (vars) {
  const env = { ...process.env }
  delete env.UV_THREADPOOL_SIZE
  delete env.NODE_CLUSTER_SCHED_POLICY
  const script = `const c = require('node:cluster'); require('node:fs').stat('.', () => {
    process.stdout.write(JSON.stringify({ rr: c.schedulingPolicy === c.SCHED_RR, threads: require('node:fs').readdirSync('/proc/self/task').length }))
  })`
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { env: { ...env, ...vars } }).toString())
}

t.test('Node itself agrees: the policy and pool size a child gets are the ones recorded', {
  skip: process.platform !== 'linux' && 'reads /proc'
}, async (t) => {
  const base = probe({ UV_THREADPOOL_SIZE: '1' }).threads - 1 // threads besides the pool
  for (const vars of [{}, { UV_THREADPOOL_SIZE: '3', NODE_CLUSTER_SCHED_POLICY: 'none' }, { UV_THREADPOOL_SIZE: 'abc', NODE_CLUSTER_SCHED_POLICY: 'rr' },
    { UV_THREADPOOL_SIZE: '0', NODE_CLUSTER_SCHED_POLICY: 'bogus' }]) {
    const got = probe(vars)
    t.equal(got.threads - base, uvThreadpoolSize(vars), `pool size with ${JSON.stringify(vars)}`)
    t.equal(got.rr ? 'rr' : 'none', schedPolicy(vars), `policy with ${JSON.stringify(vars)}`)
  }
})

t.test('Node itself agrees: a child uses io_uring exactly when uvUseIoUring says so', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  // libuv's rings show as anon_inode:[io_uring] descriptors once the loop has done file I/O.
  const script = `require('node:fs').stat('.', () => { const fs = require('node:fs')
    process.stdout.write(String(fs.readdirSync('/proc/self/fd').filter((f) => { ` +
    "try { return fs.readlinkSync('/proc/self/fd/' + f).includes('io_uring') } catch { return false } }).length)) })"
  const env = { ...process.env }
  delete env.UV_USE_IO_URING
  for (const vars of [{}, { UV_USE_IO_URING: '0' }, { UV_USE_IO_URING: '1' }, { UV_USE_IO_URING: 'abc' }]) {
    const rings = Number(execFileSync(process.execPath, ['-e', script], { env: { ...env, ...vars } }).toString())
    t.equal(rings > 0 ? 1 : 0, uvUseIoUring(vars), `io_uring with ${JSON.stringify(vars)}`)
  }
})
