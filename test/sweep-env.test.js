'use strict'
// env.json's record of the machine, Node, libuv, cluster policy, git and installed packages.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const t = require('tap')
const { ROOT } = require('../lib/config')
const { collectEnv, uvThreadpoolSize, schedPolicy } = require('../sweep/env')

t.test('env records the machine, the run and every installed dependency\'s version', async (t) => {
  const env = collectEnv({ command: 'quick', argv: ['quick'], seed: 5, config: { nFiles: 30 } })
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
  t.ok(Date.parse(env.startedAt) <= Date.now())
  const express = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'express', 'package.json'), 'utf8'))
  t.equal(env.packages.express, express.version)
})

t.test('the thread-pool size is UV_THREADPOOL_SIZE or libuv\'s default 4; the policy is the cluster\'s', async (t) => {
  const saved = process.env.UV_THREADPOOL_SIZE
  t.teardown(() => { if (saved === undefined) delete process.env.UV_THREADPOOL_SIZE; else process.env.UV_THREADPOOL_SIZE = saved })
  delete process.env.UV_THREADPOOL_SIZE
  t.equal(uvThreadpoolSize(), 4)
  process.env.UV_THREADPOOL_SIZE = '16'
  t.equal(uvThreadpoolSize(), 16)
  const none = process.env.NODE_CLUSTER_SCHED_POLICY === 'none' || process.platform === 'win32'
  t.equal(schedPolicy(), none ? 'none' : 'rr')
})
