'use strict'
// The two groups of tests, declared once: `npm test` runs every test file not named here (the code's
// logic, servers answering, one short quick; a few minutes), `npm run test:system` runs the files
// below, need by need, in this order. test/README.md says which is which and why.

const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.join(__dirname, '..', '..')

// What a system file needs beyond the code, how many of its files run at once, and its lane: lane 0 runs
// first with the machine to itself; then lanes 1 and 2 run side by side, each need by need. No need in them
// judges a time, and each uses about one core (load 0.9, guest 1.3, hosts 0.9, user 1.4, runtimes 1.1: CPU
// seconds per second on the AMD EPYC VM), so two lanes keep 2 cores busy instead of one.
const NEEDS = {
  alone: { jobs: 1, lane: 0, about: 'the machine to itself: 1,000 connections, timing, memory or a profile read against the clock' },
  load: { jobs: 1, lane: 1, about: 'minutes of load: kills and full disks mid-run, capacity searches' },
  guest: { jobs: 1, lane: 2, about: 'a guest kernel with cgroup v2 (User-mode Linux)' },
  hosts: { jobs: 1, lane: 1, about: 'hosts in network namespaces, reached over ssh' },
  user: { jobs: 1, lane: 2, about: 'another user (nobody) running the commands' },
  runtimes: { jobs: 1, lane: 1, about: 'Bun and Deno, which setup downloads into .node-cache/' }
}

const SYSTEM = {
  'test/balancer/launch.test.js': 'alone',
  'test/profile/known-cost.test.js': 'alone',
  'test/servers/durability.test.js': 'alone',
  'test/servers/hostile.test.js': 'alone',
  'test/servers/idle-connections.test.js': 'alone',
  'test/servers/slowloris.test.js': 'alone',
  'test/storage/storage.test.js': 'alone',
  'test/storage/cold.test.js': 'alone',
  'test/sweep/capacity/probe.test.js': 'alone',
  'test/sweep/chaos.test.js': 'load',
  'test/servers/disk-full.test.js': 'load',
  'test/servers/lifecycle.test.js': 'load',
  'test/sweep/capacity/run.test.js': 'load',
  'test/sweep/rev.test.js': 'load',
  'test/sweep/hosts/remote.test.js': 'hosts',
  'test/sweep/as-user.test.js': 'user',
  'test/servers/runtimes.test.js': 'runtimes',
  'test/storage/cgroup-v2.test.js': 'guest'
}

// The unit files that test what only Linux has (lib/platform.js: no /proc, cgroups, FUSE, perf or namespaces elsewhere,
// and Linux's packages of Node, Bun and Deno): off Linux the runner skips each, saying why in one line.
const LINUX = {
  'test/lib/interference.test.js': 'every process\'s CPU time from /proc',
  'test/lib/kinds.test.js': 'the -lb kinds and SO_REUSEPORT as Linux has them',
  'test/lib/proc.test.js': '/proc/PID/stat and its threads',
  'test/lib/node-versions.test.js': 'Node\'s Linux packages in .node-cache/',
  'test/lib/runtimes.test.js': 'Bun\'s and Deno\'s Linux packages in .node-cache/',
  'test/network/netns.test.js': 'network namespaces',
  'test/storage/cache.test.js': 'a folder\'s mount, from /proc/mounts',
  'test/sweep/cell/cache-state.test.js': 'bytes read from the device, from /proc/PID/io',
  'test/sweep/cell/process-group.test.js': 'a process group\'s members and CPU time, from /proc',
  'test/sweep/cell/profiled.test.js': '--profile (/proc and perf)',
  'test/sweep/interleaved/profiled.test.js': '--profile (/proc and perf)',
  'test/sweep/hosts/hosts.test.js': '--hosts=netns and --cpuset=split beside other hosts',
  'test/sweep/node-command.test.js': 'Node\'s Linux packages in .node-cache/',
  'test/sweep/plan/fsapi.test.js': 'the storage-latency cells (FUSE)',
  'test/sweep/plan/grid.test.js': 'the storage-latency cells (FUSE)',
  'test/sweep/plan/storage.test.js': 'the storage-latency cells (FUSE)',
  'test/sweep/plan/revs.test.js': 'the storage-latency cells (FUSE)',
  'test/sweep/plan/runtimes.test.js': 'Node\'s Linux packages in .node-cache/',
  'test/sweep/placed-runs.test.js': 'the -lb kinds and --cpuset=split',
  'test/sweep/results/data-root.test.js': 'a reused pid told from its owner by its start time in /proc',
  'test/sweep/results/env.test.js': 'the environment of a Linux machine'
}

// Every *.test.js under test/ but fixtures and tools, relative to the checkout, sorted.
function testFiles (dir = 'test') {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`
    if (e.isDirectory()) return ['test/fixtures', 'test/tools'].includes(rel) ? [] : testFiles(rel)
    return e.name.endsWith('.test.js') ? [rel] : []
  }).sort()
}

/**
 * The group of a test file: 'unit' (npm test), a need of NEEDS (npm run test:system), or null.
 * @param {string} file relative to the checkout
 */
function groupOf (file) {
  if (!testFiles().includes(file)) return null
  return SYSTEM[file] ?? 'unit'
}

module.exports = { NEEDS, SYSTEM, LINUX, testFiles, groupOf }
