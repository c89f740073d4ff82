'use strict'
// Slowloris against every kind: 1,000 connections that trickle their headers do not stop a normal
// client from being served, and each gets 408 and is closed. (How much they slow it is speed, not
// behaviour: it is not asserted here.)

const t = require('tap')
const { KINDS, startServer } = require('../fixtures/server')
const { openConnections, openFileLimit, trickle } = require('../fixtures/raw-http')
const { startProbe } = require('../fixtures/latency-probe')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const WANTED = 1000
// This process and the server each hold one descriptor per connection, plus ~100 of their own.
const CONNECTIONS = Math.min(WANTED, Math.floor((openFileLimit() - 200) / 6)) // three servers at once, below
const HEADERS_TIMEOUT = 2000
const PROBE_GETS = 200

if (CONNECTIONS < WANTED) t.comment(`ulimit -n is ${openFileLimit()}: ${CONNECTIONS} connections instead of ${WANTED}`)

// Each server is tested alone and the tests mostly wait on its timers: three servers at a time.
t.jobs = 3
for (const kind of KINDS) {
  t.test(`${kind}: ${CONNECTIONS} slowloris connections leave a normal client served, and each gets 408`, async (t) => {
    const dataPath = t.testdir({ k: 'some text to sort and send back\n'.repeat(50) })
    const srv = await startServer(t, kind, { dataPath, args: [`--headersTimeout=${HEADERS_TIMEOUT}`, '--requestTimeout=4000'] })
    const probe = startProbe(t)
    const slow = await openConnections(srv.port, CONNECTIONS, 'GET /get?key=k HTTP/1.1\r\nHost: x\r\n')
    t.teardown(() => slow.forEach((s) => s.destroy()))
    const stop = trickle(slow)
    const served = await probe.run(srv.port, 'k', PROBE_GETS) // each answer a 200, or the probe fails
    t.equal(served.length, PROBE_GETS, `a normal client got all ${PROBE_GETS} answers during the attack`)
    await Promise.race([Promise.all(slow.map((s) => s.ended)), sleep(HEADERS_TIMEOUT + 4000)])
    stop()
    const got408 = slow.filter((s) => /^HTTP\/1\.1 408 /.test(s.reply)).length
    t.equal(got408, CONNECTIONS, `every slow connection got 408 (${got408})`)
    t.ok(slow.every((s) => s.closedAt !== undefined), 'and was closed')
  })
}
