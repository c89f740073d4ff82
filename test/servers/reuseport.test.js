'use strict'
// The reuseport kinds: each of nServers processes binds its own socket on one port (the primary
// none) and serves; a Node without reusePort makes the kind exit 2 saying why. The lifecycle,
// HTTP and equivalence tables cover them with the other kinds (test/fixtures/server.js).

const fs = require('node:fs')
const net = require('node:net')
const t = require('tap')
const { MISSING, startServer, spawnServer, request } = require('../fixtures/server')
const { reusePortProblem } = require('../../lib/kinds')
const { probeNode, systemNode } = require('../../lib/install/node-versions')

const KIND = 'sync-reuseport'
const skip = MISSING[KIND] && `no Node here runs ${KIND}: ${MISSING[KIND]}`

// pid → inodes of the sockets it holds, and the inodes listening on a TCP port (/proc/net/tcp).
const socketsOf = (pid) => fs.readdirSync(`/proc/${pid}/fd`).map((fd) => {
  try {
    return /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]
  } catch {
    return undefined
  }
}).filter(Boolean)
const listeningOn = (port) => fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)
  .map((line) => line.trim().split(/\s+/))
  .filter((f) => f.length > 9 && f[3] === '0A' && parseInt(f[1].split(':')[1], 16) === port).map((f) => f[9])
const childrenOf = (pid) => fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)

async function freshConnections (srv, n) {
  for (let i = 0; i < n; i++) await request(srv, { method: 'POST', path: '/put?key=k', body: `r${i}\n` })
}

t.test(`${KIND}: each worker binds its own listening socket on the one port, and each serves`, { skip }, async (t) => {
  const srv = await startServer(t, KIND, { dataPath: t.testdir(), args: ['--nServers=3'] })
  t.equal(srv.workers, 3)
  const workers = childrenOf(srv.pid)
  const listening = listeningOn(srv.port)
  t.equal(listening.length, 3, 'three listening sockets on the port')
  t.same(socketsOf(srv.pid).filter((s) => listening.includes(s)), [], 'the primary holds none of them')
  t.same(workers.map((pid) => socketsOf(pid).filter((s) => listening.includes(s)).length), [1, 1, 1], 'each worker holds one')
  await request(srv, { method: 'POST', path: '/_stats/reset' })
  await freshConnections(srv, 60) // the kernel picks a socket per connection, by its address hash
  const stats = JSON.parse((await request(srv, { path: '/_stats' })).body)
  const served = stats.processes.filter((p) => p.role === 'worker').map((p) => p.requests)
  t.equal(served.length, 3)
  t.equal(served.reduce((a, b) => a + b, 0), 60)
  t.ok(served.every((n) => n > 0), `every worker served some of 60 connections: ${served}`)
})

t.test(`${KIND}: a port given is the port every worker binds`, { skip }, async (t) => {
  const port = await new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
  const srv = await startServer(t, KIND, { dataPath: t.testdir(), args: [`--serverPort=${port}`] })
  t.equal(srv.port, port)
  t.equal(listeningOn(port).length, 2)
  t.equal((await request(srv, { method: 'POST', path: '/put?key=k', body: 'x' })).body, 'success')
})

const OLD = [process.execPath, systemNode()].filter(Boolean).find((bin) => reusePortProblem({ version: probeNode(bin).node }))

t.test('on a Node without reusePort the reuseport kinds exit 2 with one line saying why', { skip: !OLD && 'every Node here has reusePort' }, async (t) => {
  const version = probeNode(OLD).node
  for (const kind of ['sync-reuseport', 'async-reuseport']) {
    const srv = spawnServer(t, kind, ['--serverPort=0', `--dataPath=${t.testdir()}`], { execPath: OLD })
    const { code } = await srv.exit
    t.equal(code, 2)
    t.equal(srv.stderr, `${kind}: server.listen({ reusePort }) needs Node >= 22.12.0 (22.x) or >= 23.1.0; this is ${version}\n`)
    t.equal(srv.stdout, '', 'no ready line')
  }
})
