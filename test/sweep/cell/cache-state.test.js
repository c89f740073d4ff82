'use strict'
// sweep/cell/cache-state.js: driftOf, a round's cache state against the share asked for, on recorded figures; a delay
// cell's backing folder read in before its round (vmtouch, on a test folder).

const path = require('node:path')
const t = require('tap')
const { driftOf, beginCache, endCache, SLACK_BYTES } = require('../../../sweep/cell/cache-state')
const { evict, residency, vmtouchProblem } = require('../../../storage/cache')

t.test('a cold round drifted when its start was not the share asked for, or its end held more than the share and the margin', async (t) => {
  t.equal(driftOf({ residencyBefore: 0, residencyAfter: 1.7 }, 0), '', 'cold and stayed cold')
  t.equal(driftOf({ residencyBefore: 50.1, residencyAfter: 57 }, 50), '', 'half warm and about so after')
  t.equal(driftOf({ residencyBefore: 3.5, residencyAfter: 4 }, 0),
    'cache drifted: 3.5% of the data set was cached at the round\'s start (0% ± 2 asked)')
  t.equal(driftOf({ residencyBefore: 41, residencyAfter: 45 }, 50),
    'cache drifted: 41% of the data set was cached at the round\'s start (50% ± 2 asked)', 'a warm share lost before the round')
  t.equal(driftOf({ residencyBefore: 0.4, residencyAfter: 12.5 }, 0),
    'cache drifted: 12.5% of the data set was cached at the round\'s end (bound 10%)')
  t.equal(driftOf({ residencyBefore: 100, residencyAfter: 100 }, 100), '', 'all of it')
})

t.test('a cache round drifted when its data set was not all cached at its start; its end is as it came', async (t) => {
  t.equal(driftOf({ residencyBefore: 99.4, residencyAfter: 61 }, null), '', 'what the machine paged out during the round is recorded, not refused')
  t.equal(driftOf({ residencyBefore: 47.3, residencyAfter: 48.7 }, null),
    'cache drifted: 47.3% of the data set was cached at the round\'s start (100% ± 2 asked)')
})

t.test('a delay cell\'s backing folder is read into the cache before its round, and its residency recorded', { skip: vmtouchProblem() }, async (t) => {
  const files = () => Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`file-${i}`, 'x'.repeat(65536)]))
  const dir = t.testdir({ backing: files(), data: files() })
  const [backing, data] = [path.join(dir, 'backing'), path.join(dir, 'data')]
  for (const folder of [backing, data]) await evict(folder)
  t.ok(residency(backing).percent < 100, `${residency(backing).percent}% cached after eviction`)
  // The data folder stands in for the mount point: the daemon reads the backing folder, so that is the one to read in.
  const c = {
    cell: { kind: 'sync', ioDelay: 65, storage: 'delay', config: { readsPerWrite: 'inf' } },
    opened: { remote: false, server: {}, dataPath: data, storage: { backing, pid: process.pid } }
  }
  const start = await beginCache(c)
  t.equal(residency(backing).percent, 100, 'the backing folder read in')
  t.ok(residency(data).percent < 100, 'not the mount point')
  t.equal(start.percent, 100, 'and its residency noted at the round\'s start')
  const { fields, drift } = endCache(start, c, 10)
  t.match(fields, { residencyBefore: 100, residencyAfter: 100, deviceBytesPerGet: Number, cacheLimitBytes: '' })
  t.equal(drift, '')
})

t.test('a cold cell\'s limit: the most its server used besides the cache at a round\'s start or end; a kill at it is said', { skip: vmtouchProblem() },
  async (t) => {
    const MIB = 2 ** 20
    const dir = t.testdir({ data: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`file-${i}`, 'x'.repeat(65536)])) })
    let other = 60 * MIB
    let ooms = 0
    const cgroup = { setLimit: () => {}, memory: () => ({ usage: other, cache: 0, other }), ooms: () => ooms, pids: () => [process.pid] }
    const c = {
      cell: { kind: 'async', storage: 'cold', cacheShare: 0, config: { readsPerWrite: 'inf', nFiles: 8 } },
      opened: { remote: false, server: {}, dataPath: path.join(dir, 'data'), cgroup }
    }
    const first = await beginCache(c)
    t.equal(first.limitBytes, 60 * MIB + SLACK_BYTES, 'the first round: what it uses now')
    other = 90 * MIB // under load
    t.equal(endCache(first, c, 10).drift, '')
    other = 20 * MIB // idle between rounds: V8 gave memory back that the next round takes again
    const second = await beginCache(c)
    t.equal(second.limitBytes, 90 * MIB + SLACK_BYTES, 'the most seen at the first round\'s end, not the idle 20 MiB')
    ooms = 1
    const end = endCache(second, c, 10)
    t.same([end.oom, end.drift], [true, 'the memory cgroup killed 1 server process at its limit of 122 MiB'])
  })
