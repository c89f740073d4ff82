'use strict'
// --hosts=netns: the server's namespace and veth pair are made, reach each other, and are always
// removed: by remove(), by the guard when the owner is SIGKILLed, and at the next start otherwise.
// Only names with the project's prefix are ever touched.

const t = require('tap')
const { spawn, spawnSync } = require('node:child_process')
const http = require('node:http')
const path = require('node:path')
const readline = require('node:readline')
const { once } = require('node:events')
const { setTimeout: sleep } = require('node:timers/promises')
const { checkNetns, createHosts, cleanStaleHosts, listNamespaces, listLinks } = require('../../network/netns')
const { startDelayProxy } = require('../../network/delay-proxy')
const { isAlive } = require('../../lib/machine/proc')

const missing = checkNetns()

function get (host, port, reqPath = '/') {
  return new Promise((resolve, reject) => {
    http.get({ host, port, path: reqPath, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (d) => { body += d })
      res.on('end', () => resolve(body))
    }).on('error', reject)
  })
}

// A tiny HTTP server inside the namespace that answers with the path it was asked.
async function serveIn (t, hosts) {
  const [cmd, ...args] = hosts.prefix
  const child = spawn(cmd, [...args, process.execPath, '-e',
    `require('node:http').createServer((q, r) => r.end('in ns ' + q.url)).listen(0, '${hosts.server}', function () { console.log(this.address().port) })`],
  { stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => child.kill())
  const [line] = await once(readline.createInterface({ input: child.stdout }), 'line')
  return { child, port: Number(line) }
}

t.test('the namespace is made, its server answers at its address, and remove() leaves nothing', { skip: missing || false }, async (t) => {
  const hosts = createHosts()
  t.teardown(() => hosts.remove())
  t.equal(hosts.name, `cbench-${process.pid}`)
  t.equal(hosts.link, `cbh${process.pid}`)
  t.ok(listNamespaces().includes(hosts.name))
  t.ok(listLinks().includes(hosts.link))
  t.match(hosts.server, /^10\.213\.\d+\.\d+$/)
  const srv = await serveIn(t, hosts)
  t.equal(await get(hosts.server, srv.port, '/x'), 'in ns /x')
  await t.rejects(get('127.0.0.1', srv.port), { code: 'ECONNREFUSED' }, 'not on this namespace\'s loopback')
  srv.child.kill()
  await once(srv.child, 'exit')
  t.same(hosts.remove(), [])
  t.notOk(listNamespaces().includes(hosts.name))
  t.notOk(listLinks().includes(hosts.link))
})

t.test('a round trip: netem where the kernel has it, else the relay holds each request for it', { skip: missing || false }, async (t) => {
  const hosts = createHosts()
  t.teardown(() => hosts.remove())
  const srv = await serveIn(t, hosts)
  if (hosts.netem) {
    hosts.setRtt(4)
    const qdisc = spawnSync('tc', ['qdisc', 'show', 'dev', hosts.link], { encoding: 'utf8' }).stdout
    t.match(qdisc, /netem .*delay 2ms/, 'half the round trip each way')
    hosts.setRtt(0)
    t.notMatch(spawnSync('tc', ['qdisc', 'show', 'dev', hosts.link], { encoding: 'utf8' }).stdout, /netem/)
  } else {
    t.match(hosts.netemProblem, /qdisc kind is unknown|netem/i, `no netem here: ${hosts.netemProblem}`)
    t.throws(() => hosts.setRtt(4), /netem/)
  }
  const proxy = await startDelayProxy({ host: hosts.client, target: { host: hosts.server, port: srv.port }, delayMs: 3 })
  t.teardown(() => proxy.close())
  const answers = []
  for (let i = 0; i < 5; i++) answers.push(await get(hosts.client, proxy.port, `/r${i}`))
  t.same(answers, ['/r0', '/r1', '/r2', '/r3', '/r4'].map((p) => `in ns ${p}`), 'every answer whole and in order')
  const { chunks, meanDelayUs } = proxy.stats()
  t.equal(chunks, 5)
  t.ok(meanDelayUs >= 3000, `each request held at least the round trip: ${meanDelayUs} µs`)
})

t.test('SIGKILL of the owner: its guard removes the namespace and the link', { skip: missing || false }, async (t) => {
  const owner = spawn(process.execPath, [path.join(__dirname, '..', 'fixtures', 'netns-owner.js')], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => owner.kill('SIGKILL'))
  const [line] = await once(readline.createInterface({ input: owner.stdout }), 'line')
  const made = JSON.parse(line)
  t.ok(listNamespaces().includes(made.name), 'made')
  owner.kill('SIGKILL')
  await once(owner, 'exit')
  for (let i = 0; i < 100 && listNamespaces().includes(made.name); i++) await sleep(50)
  t.notOk(listNamespaces().includes(made.name), 'namespace removed')
  t.notOk(listLinks().includes(made.link), 'link removed')
})

t.test('at the next start, namespaces and links of owners that are gone are removed; others are not', { skip: missing || false }, async (t) => {
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout
  const name = `cbench-${dead}`
  spawnSync('ip', ['netns', 'add', name])
  spawnSync('ip', ['link', 'add', `cbh${dead}`, 'type', 'veth', 'peer', 'name', 'cbench0', 'netns', name])
  spawnSync('ip', ['netns', 'add', 'other-ns-of-someone'])
  t.teardown(() => spawnSync('ip', ['netns', 'del', 'other-ns-of-someone']))
  const mine = createHosts()
  t.teardown(() => mine.remove())
  const lines = []
  const cleaned = cleanStaleHosts((l) => lines.push(l))
  // Another test's sweep may clean it first (each start cleans): then it is gone all the same.
  if (cleaned.includes(Number(dead))) {
    t.ok(lines.includes(`removed namespace ${name} and link cbh${dead}, left by a run (pid ${dead}) that is gone`), 'one line says so')
  }
  t.ok(cleaned.every((pid) => !isAlive(pid)), 'only owners that are gone')
  t.notOk(listNamespaces().includes(name))
  t.notOk(listLinks().includes(`cbh${dead}`))
  t.ok(listNamespaces().includes('other-ns-of-someone'), 'a namespace without the prefix is left alone')
  t.ok(listNamespaces().includes(mine.name), 'a live owner\'s namespace is left alone')
})

t.test('where namespaces cannot be made, checkNetns says why in one line', async (t) => {
  if (missing) return t.match(missing, /needs|not installed|root/)
  t.equal(missing, null)
})
