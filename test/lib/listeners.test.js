'use strict'
// How a server's processes share its port, read from /proc: the listening sockets on the port and who holds them.
// Synthetic /proc/net tables here; test/servers/runtimes.test.js reads real servers'. Run: npx tap test/lib/listeners.test.js

const fs = require('node:fs')
const path = require('node:path')
const t = require('tap')
const { listenMechanism, listeningInodes } = require('../../lib/machine/listeners')

const HEAD = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n'
// A /proc/net/tcp line: the local port, the state (0A listen, 01 established) and the socket's inode.
const line = (n, port, st, inode) => `   ${n}: 0100007F:${port.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 ${st} ` +
  `00000000:00000000 00:00000000 00000000     0        0 ${inode} 1 0\n`

let tables = 0
function procNet (root, lines) {
  const dir = path.join(root, String(tables++))
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'tcp'), HEAD + lines.join(''))
  return dir // no tcp6: a host without IPv6
}

t.test('the listening sockets of a port are its LISTEN rows, not its connections nor other ports', async (t) => {
  const dir = procNet(t.testdir(), [line(0, 8080, '0A', 111), line(1, 8080, '01', 222), line(2, 8081, '0A', 333), line(3, 8080, '0A', 444)])
  t.same(listeningInodes(8080, dir), ['111', '444'])
  t.same(listeningInodes(9999, dir), [])
})

t.test('the mechanism follows from how many sockets listen and which processes hold them', async (t) => {
  const held = (map) => ({ socketsOf: (pid) => new Set(map[pid] ?? []) })
  const root = t.testdir()
  const one = procNet(root, [line(0, 8080, '0A', 111)])
  const two = procNet(root, [line(0, 8080, '0A', 111), line(1, 8080, '0A', 112)])
  const none = procNet(root, [])
  // node:cluster's default: the primary (1) holds the socket, the workers (2, 3) only their connections.
  t.match(listenMechanism(8080, 1, [1, 2, 3], { procNet: one, ...held({ 1: ['111'], 2: ['900'], 3: ['901'] }) }),
    { mechanism: 'primary round-robin', sockets: 1, holders: 1 })
  // SCHED_NONE: the workers hold the primary's socket too and accept from it.
  t.match(listenMechanism(8080, 1, [1, 2, 3], { procNet: one, ...held({ 1: ['111'], 2: ['111'], 3: ['111'] }) }),
    { mechanism: 'shared socket', holders: 3 })
  // SO_REUSEPORT: a socket per worker, none in the primary.
  t.match(listenMechanism(8080, 1, [1, 2, 3], { procNet: two, ...held({ 2: ['111'], 3: ['112'] }) }), { mechanism: 'reusePort', sockets: 2, holders: 2 })
  // A cluster whose second worker listens elsewhere (listen(0) not shared): only one worker gets connections.
  t.match(listenMechanism(8080, 1, [1, 2, 3], { procNet: one, ...held({ 2: ['111'] }) }), { mechanism: 'one worker listens' })
  t.match(listenMechanism(8080, 1, [1], { procNet: one, ...held({ 1: ['111'] }) }), { mechanism: 'one process' })
  t.match(listenMechanism(8080, 1, [1], { procNet: none, ...held({}) }), { mechanism: 'unknown', sockets: 0 })
})

t.test('this process listening on a port is one process holding one socket, read from the real /proc', async (t) => {
  const server = require('node:http').createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  t.same(listenMechanism(server.address().port, process.pid, [process.pid]), { mechanism: 'one process', sockets: 1, holders: 1 })
})
