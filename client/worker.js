'use strict'
// One client process, forked by client/index.js with its task as a JSON argument: runs the phases
// the primary asks for (create the files, warm up, measure) and sends back what it measured.

const { createClient } = require('./load')

const PROGRESS_MS = 250

/**
 * Serves the primary over IPC: each { phase, t0? } is answered by { type: 'ran', phase, endedAt,
 * announced } when done (t0 and endedAt: process.hrtime.bigint() as text; announced: the server's
 * X-Bench-Stats value, or null); after 'measure' comes
 * { type: 'result', ..., cpuUs, maxRssKb } and the process ends. { expect } (what the GETs from
 * then on must answer, client/get-check.js) is answered by { type: 'expecting' }.
 * @param {{ config: object, index: number, runId: string, progress: boolean }} task
 */
function serve (task) {
  const client = createClient(task)
  process.on('disconnect', () => process.exit(0)) // never outlive the primary
  const ran = (phase) => process.send({ type: 'ran', phase, endedAt: String(process.hrtime.bigint()), announced: client.announced() })
  process.on('message', async ({ phase, t0, expect }) => {
    if (expect !== undefined) {
      client.expect(expect)
      return process.send({ type: 'expecting' })
    }
    if (phase !== 'measure') {
      await client.run(phase)
      return ran(phase)
    }
    const cpu = process.cpuUsage()
    const progress = task.progress && setInterval(() => process.send({ type: 'progress', done: client.progress() }), PROGRESS_MS)
    await client.run(phase, BigInt(t0))
    ran(phase)
    const cpuUs = process.cpuUsage(cpu)
    clearInterval(progress)
    const result = { type: 'result', ...client.result(), cpuUs }
    result.maxRssKb = process.resourceUsage().maxRSS // peak resident set, the result built
    client.close()
    process.send(result, () => process.disconnect())
  })
}

if (require.main === module) serve(JSON.parse(process.argv[2]))

module.exports = { serve }
