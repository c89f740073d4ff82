'use strict'
// One process of a client pool (client/pool.js), forked by the sweep for a round: it holds a load
// generator per cell (client/load.js) and does what the sweep asks of each, one request at a time:
// create the files, warm up, run a window of measured operations, keep or drop a pass's windows,
// hand over a cell's result.

const { monitorEventLoopDelay } = require('node:perf_hooks')
const { createClient } = require('./load')
const { PERCENTILES } = require('../lib/slo')

const now = process.hrtime.bigint
const DELAY_RESOLUTION_MS = 1 // the event-loop delay's sampling during a probe: fine enough for a target of a few ms

/**
 * Serves the pool over IPC. Every message { id, op, ... } is answered by { id, ... } when done.
 *   open { cell, task }: a load generator for the cell (task as client/load.js takes it)
 *   phase { cell, phase }: create or warm; answers { failed, announced }
 *   expect { cell, expected }: what the cell's GETs must answer from now on (client/get-check.js)
 *   window { cell, from, to, t0 }: measured operations from..to-1, the open loop's origin t0
 *     (hrtime as text); answers { failed, failures (by kind), endedAt, cpuUs }
 *   probe { cell, rate, seconds, t0, lateMs? }: a capacity probe of `seconds` at `rate` (client/load.js probe);
 *     answers { failed, late, lagS, sent, slices, endedAt, cpu, delayUs }: cpu the process's CPU time over the
 *     probe's wall time (1: a whole core), delayUs its event-loop delay at p50, p90, p99 and p999 (µs)
 *   settle { keep }: every cell's pending windows kept or dropped
 *   drop { cell }: forgets the cell (closing its connections), if it has it
 *   take { cell }: answers { result } (client/load.js's take(), with this process's peak memory): the
 *     measured records since the last take; the cell's next window opens fresh connections
 */
function serve () {
  const clients = new Map()
  process.on('disconnect', () => process.exit(0)) // never outlive the pool
  const ops = {
    open: ({ cell, task }) => { clients.set(cell, createClient(task)) },
    phase: async ({ cell, phase }) => {
      const failed = await clients.get(cell).run(phase)
      return { failed, announced: clients.get(cell).announced() }
    },
    expect: ({ cell, expected }) => { clients.get(cell).expect(expected) },
    window: async ({ cell, from, to, t0 }) => {
      const cpu = process.cpuUsage()
      const failed = await clients.get(cell).window(from, to, BigInt(t0))
      return { failed, failures: clients.get(cell).failures(), endedAt: String(now()), cpuUs: process.cpuUsage(cpu) }
    },
    probe: async ({ cell, rate, seconds, t0, to, lateMs }) => {
      const cpu = process.cpuUsage()
      const started = now()
      const loop = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS })
      loop.enable()
      const measured = await clients.get(cell).probe(0, to, BigInt(t0), rate, seconds, lateMs)
      loop.disable()
      const used = process.cpuUsage(cpu)
      // A sample is the time between two checks resolution ms apart: the delay is what is beyond the resolution.
      const delayUs = Object.fromEntries(Object.entries(PERCENTILES).map(([name, p]) =>
        [name, loop.count > 0 ? Math.max(0, Math.round(loop.percentile(p) / 1000) - DELAY_RESOLUTION_MS * 1000) : 0]))
      const wallUs = Number(now() - started) / 1000
      return { ...measured, sent: to, endedAt: String(now()), cpu: (used.user + used.system) / Math.max(1, wallUs), delayUs }
    },
    settle: ({ keep }) => { for (const client of clients.values()) client.settle(keep) },
    drop: ({ cell }) => {
      clients.get(cell)?.close()
      clients.delete(cell)
    },
    take: ({ cell }) => ({ result: { ...clients.get(cell).take(), maxRssKb: process.resourceUsage().maxRSS } })
  }
  process.on('message', async (msg) => {
    const answer = await ops[msg.op](msg)
    process.send({ id: msg.id, ...answer })
  })
}

if (require.main === module) serve()

module.exports = { serve }
