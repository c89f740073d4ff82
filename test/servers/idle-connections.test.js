'use strict'
// 1,000 idle keep-alive connections against all four servers: the server keeps serving, its memory
// stays bounded, and it closes them after keepAliveTimeout.

const t = require('tap')
const { KINDS, startServer, request } = require('../fixtures/server')
const { openConnections, serverRss, serverFds, openFileLimit } = require('../fixtures/raw-http')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const WANTED = 1000
const JOBS = 3 // servers tested at once: each test mostly waits for the keep-alive timeout
// This process holds one descriptor per connection of every server at once, plus ~100 of its own.
const CONNECTIONS = Math.min(WANTED, Math.floor((openFileLimit() - 200) / (2 * JOBS)))
// Longer than opening 1,000 connections takes (this file runs in the system group, with the machine to itself).
const KEEP_ALIVE = 3000

if (CONNECTIONS < WANTED) t.comment(`ulimit -n is ${openFileLimit()}: ${CONNECTIONS} connections instead of ${WANTED}`)

// The server's descriptors once they hold still: a thread pool still starting (sync-pool's 4 threads
// on a loaded machine) opens and closes its own, which a single reading would count as connections'.
async function steadyFds (pid) {
  let last = serverFds(pid)
  for (let same = 0, i = 0; same < 5 && i < 100; i++) {
    await sleep(50)
    const now = serverFds(pid)
    same = now === last ? same + 1 : 0
    last = now
  }
  return last
}

const MiB = (n) => `${(n / 2 ** 20).toFixed(1)} MiB`

t.jobs = JOBS
for (const kind of KINDS) {
  t.test(`${kind}: ${CONNECTIONS} idle keep-alive connections: still serving, memory bounded, closed after keepAliveTimeout`, async (t) => {
    const dataPath = t.testdir({ k: 'idle\n' })
    const srv = await startServer(t, kind, { dataPath, args: [`--keepAliveTimeout=${KEEP_ALIVE}`] })
    await request(srv, { path: '/get?key=k' })
    const rssBefore = serverRss(srv.pid)
    const fdsBefore = await steadyFds(srv.pid)
    const idle = await openConnections(srv.port, CONNECTIONS, 'GET /get?key=k HTTP/1.1\r\nHost: x\r\n\r\n')
    t.teardown(() => idle.forEach((s) => s.destroy()))
    for (let i = 0; i < 500 && !idle.every((s) => s.reply.endsWith('idle\n')); i++) await sleep(20)
    t.ok(idle.every((s) => /^HTTP\/1\.1 200 [^]*idle\n$/.test(s.reply)), 'each got its answer')
    // Descriptors first, then (once any close the server made by then has reached us) the open ones.
    // On a very loaded machine opening 1,000 can take longer than keepAliveTimeout: the first are
    // then closed already, rightly (checked per connection below).
    const fdsOpen = serverFds(srv.pid)
    await sleep(200)
    const open = idle.filter((s) => s.closedAt === undefined).length
    t.ok(fdsOpen >= fdsBefore + open - 5, `the server holds the ${open} still open (${fdsBefore} descriptors before, ${fdsOpen} with them)`)
    const rssGrowth = serverRss(srv.pid) - rssBefore
    t.ok(rssGrowth < 64 * 2 ** 20, `memory grew by ${MiB(rssGrowth)} for ${CONNECTIONS} idle connections (bound 64 MiB)`)
    for (let i = 0; i < 5; i++) t.equal((await request(srv, { path: '/get?key=k' })).body, 'idle\n', 'a new client is served meanwhile')
    await Promise.race([Promise.all(idle.map((s) => s.ended)), sleep(KEEP_ALIVE + 6000)])
    const closed = idle.filter((s) => s.closedAt !== undefined)
    t.equal(closed.length, CONNECTIONS, 'the server closed every one')
    const after = closed.map((s) => s.closedAt - s.lastDataAt) // idle since its answer
    t.ok(Math.min(...after) >= KEEP_ALIVE * 0.8, `none before keepAliveTimeout (first after ${Math.min(...after)} ms)`)
    t.ok(Math.max(...after) <= KEEP_ALIVE + 6000, `all soon after it (last after ${Math.max(...after)} ms)`)
    for (let i = 0; i < 50 && serverFds(srv.pid) > fdsBefore + 10; i++) await sleep(100)
    t.ok(serverFds(srv.pid) <= fdsBefore + 10, 'their descriptors are released')
  })
}
