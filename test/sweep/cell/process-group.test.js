'use strict'
// Process groups: a run is stopped at its time limit or on abort, with every process of its
// group, by SIGTERM or, for one that ignores it, by SIGKILL after the grace period.

const fs = require('node:fs')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')
const t = require('tap')
const { runGroup, groupMembers, groupCpuUs } = require('../../../sweep/cell/process-group')
const { openLog } = require('../../../sweep/results/folder')
const { isGone } = require('../../fixtures/sweep-run')

const FIXTURE = path.join(__dirname, '..', '..', 'fixtures', 'sweep-group.js')

async function loggedPids (log) {
  for (let i = 0; i < 200; i++) {
    const m = /pids (\d+) (\d+)/.exec(fs.readFileSync(log.path, 'utf8'))
    if (m) return [Number(m[1]), Number(m[2])]
    await sleep(50)
  }
  throw new Error('the fixture printed no pids')
}

t.test('a run that outlives its time limit is stopped with its whole group', async (t) => {
  const log = openLog(path.join(t.testdir(), 'run.log'))
  t.teardown(log.close)
  const run = runGroup(FIXTURE, [], { log, timeoutMs: 3000, signal: new AbortController().signal })
  const pids = await loggedPids(log)
  t.same(groupMembers(pids[0]).map((m) => m.pid).sort(), [...pids].sort(), 'both are in the leader\'s group')
  // The leader has started Node and printed: tens of ms of CPU at least, counted in whole 10 ms ticks.
  const cpuUs = groupCpuUs(pids[0])
  t.ok(Number.isFinite(cpuUs) && cpuUs > 0 && cpuUs % 10000 === 0, `the group's CPU time: ${cpuUs} µs`)
  t.match(await run, { timedOut: true, code: null, signal: 'SIGTERM' })
  t.ok(pids.every(isGone), 'no process is left')
  t.match(fs.readFileSync(log.path, 'utf8'), /started pid \d+ .*\n[^]*# stopping group \d+: pids \d+ \d+\n[^]*ended \(SIGTERM\)/)
})

t.test('an aborted run that ignores SIGTERM is killed, and the abort reason is thrown', async (t) => {
  const log = openLog(path.join(t.testdir(), 'run.log'))
  t.teardown(log.close)
  const controller = new AbortController()
  const run = runGroup(FIXTURE, ['stubborn'], { log, timeoutMs: 60000, signal: controller.signal })
  const pids = await loggedPids(log)
  controller.abort(new Error('interrupted'))
  await t.rejects(run, { message: 'interrupted' })
  t.ok(pids.every(isGone), 'no process is left')
  t.match(fs.readFileSync(log.path, 'utf8'), /still running 5 s after SIGTERM; sending SIGKILL[^]*ended \(SIGKILL\)/)
})
