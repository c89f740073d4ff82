'use strict'
// Server lifecycle: ready line, graceful stop with a request in flight, re-fork of a killed
// worker, giving up after repeated deaths, orphan-free SIGKILL of a primary, busy port.

const t = require('tap')
const fs = require('node:fs')
const net = require('node:net')
const { KINDS, spawnServer, startServer, request, isAlive } = require('../fixtures/server')
const { isMultiProcess } = require('../../lib/kinds')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const childrenOf = (pid) => fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
async function until (what, check, ms = 8000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(25)) if (check()) return
  throw new Error(`timed out waiting for ${what}`)
}

// Each test has servers of its own and mostly waits on them (a kill, a re-fork, a stop): three at a time.
t.jobs = 3

for (const kind of KINDS) {
  const cluster = isMultiProcess(kind)
  t.test(`${kind}: one ready line, then a graceful stop that finishes the request in flight`, async (t) => {
    const dataPath = t.testdir()
    const srv = await startServer(t, kind, { dataPath })
    t.equal(srv.stdout.split('\n').filter(Boolean).length, 1, 'exactly one stdout line')
    t.match(srv.stdout, new RegExp(`^listening http://127\\.0\\.0\\.1:${srv.port} kind=${kind} workers=${cluster ? 2 : kind === 'sync-pool' ? 4 : 1} pid=${srv.child.pid}\\n$`))
    t.ok(srv.port > 0, 'the real port is printed')

    // Half a POST is in flight when SIGTERM arrives; the rest follows; it must still succeed.
    const socket = net.connect(srv.port, '127.0.0.1')
    let reply = ''
    socket.setEncoding('utf8').on('data', (d) => { reply += d })
    const closed = new Promise((resolve) => socket.once('close', resolve))
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write('POST /put?key=inflight HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nfirst')
    await sleep(200)
    const signalled = Date.now()
    srv.child.kill('SIGTERM')
    await sleep(200)
    socket.write('-half') // no end(): a half-closed HTTP/1.1 socket aborts its request
    const { code } = await srv.exit
    t.equal(code, 0, 'exit status 0')
    // The promise (lib/serving/process-io.js STOP_GRACE_MS): SIGTERM to exit under 5 s. The graceful stop takes about
    // 0.3 s here, the request's 200 ms included: the bound is over ten times that.
    t.ok(Date.now() - signalled < 5000, `exits within 5 s (${Date.now() - signalled} ms)`)
    await closed
    t.match(reply, /^HTTP\/1\.1 200 [^]*success$/, 'the in-flight request was answered')
    t.equal(fs.readFileSync(`${dataPath}/inflight`, 'utf8'), 'first-half')
  })
}

// The kinds whose nServers are processes of their own (sync-pool's threads: test/servers/sync-pool.test.js).
for (const kind of KINDS.filter(isMultiProcess)) {
  t.test(`${kind}: a killed worker is re-forked and the server keeps answering`, async (t) => {
    const srv = await startServer(t, kind, { dataPath: t.testdir() })
    const [victim, other] = childrenOf(srv.pid)
    t.ok(victim && other, 'two workers')
    process.kill(victim, 'SIGKILL')
    await until('a new worker', () => childrenOf(srv.pid).length === 2 && !childrenOf(srv.pid).includes(victim))
    // The primary's log reaches us through a pipe, maybe after the new worker shows: wait for it too.
    const said = new RegExp(`worker ${victim} died \\(code null, signal SIGKILL\\); re-forking`)
    await until('the primary\'s line', () => said.test(srv.stderr)).catch(() => {})
    t.match(srv.stderr, said)
    t.equal((await request(srv, { method: 'POST', path: '/put?key=k', body: 'x' })).body, 'success')
    t.equal(srv.exited, null, 'the primary lives on')
  })

  t.test(`${kind}: more than 5 worker deaths in 10 s end the primary with an error`, async (t) => {
    const srv = await startServer(t, kind, { dataPath: t.testdir() })
    const killed = new Set()
    while (!srv.exited && killed.size < 8) {
      const pid = childrenOf(srv.pid).find((p) => !killed.has(p))
      if (pid) { killed.add(pid); process.kill(pid, 'SIGKILL') }
      await sleep(50)
    }
    const { code } = await srv.exit
    t.equal(code, 1)
    t.match(srv.stderr, /more than 5 worker deaths in 10 s; giving up/)
  })

  t.test(`${kind}: after SIGKILL of the primary no worker outlives it for long`, async (t) => {
    const srv = await startServer(t, kind, { dataPath: t.testdir() })
    const workers = childrenOf(srv.pid)
    process.kill(srv.pid, 'SIGKILL')
    // Idle workers hear the primary's end at once (IPC): 5 s is the promise, and many times what it takes.
    await until('workers to exit', () => workers.every((pid) => !isAlive(pid)), 5000)
    t.pass('workers gone within 5 s')
  })
}

for (const kind of KINDS) {
  t.test(`${kind}: a busy port is a one-line error naming the port, exit 1`, async (t) => {
    const blocker = net.createServer().listen(0, '127.0.0.1')
    await new Promise((resolve) => blocker.once('listening', resolve))
    t.teardown(() => blocker.close())
    const { port } = blocker.address()
    const srv = spawnServer(t, kind, [`--serverPort=${port}`, '--nServers=2', `--dataPath=${t.testdir()}`])
    const { code } = await srv.exit
    t.equal(code, 1)
    t.equal(srv.stdout, '', 'no ready line')
    t.equal(srv.stderr, `${kind}: port ${port} on 127.0.0.1 is already in use\n`)
  })
}

t.test('bad config values exit 2 with a message naming the field and the value', async (t) => {
  const dir = t.testdir({ 'bad.json': '{ nope', 'list.json': '[1]', file: 'x' })
  const cases = [
    [['--nServers=0'], /nServers must be an integer from 1 to 256, or auto, got "0"/],
    [['--serverPort=70000'], /serverPort must be an integer from 0 to 65535, got "70000"/],
    [['--bodyLimit=abc'], /bodyLimit must be an integer/],
    [['--nope=1'], /unknown flag --nope; valid keys: config, dataPath, /],
    [['serverPort'], /bad argument "serverPort": use --KEY=VALUE/],
    [[`--config=${dir}/bad.json`], /config file .*bad\.json is not a JSON object/],
    [[`--config=${dir}/list.json`], /is not a JSON object/],
    [[`--config=${dir}/missing.json`], /cannot read config file .*missing\.json: ENOENT/],
    [[`--dataPath=${dir}/file`], /dataPath .*file is not a usable folder: EEXIST/],
    [['--headersTimeout=5000', '--requestTimeout=1000'], /headersTimeout must not exceed requestTimeout \(1000\), got 5000/],
    [['--fsync=group'], /fsync=group needs an async kind: a sync-cluster server handles one request at a time/]
  ]
  for (const [args, message] of cases) {
    const srv = spawnServer(t, 'sync-cluster', ['--serverPort=0', `--dataPath=${dir}/data`, ...args])
    const { code } = await srv.exit
    t.equal(code, 2, `${args.join(' ')}: exit 2`)
    t.match(srv.stderr, message, `${args.join(' ')}: message`)
    t.equal(srv.stderr.trim().split('\n').length, 1, 'one line')
  }
  t.notOk(fs.existsSync(`${dir}/data`), 'nothing created')
})
