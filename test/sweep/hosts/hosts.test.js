'use strict'
// Other hosts over ssh, what needs no host: lib/machine/ssh.js (host forms, --ssh words, the ssh command line), the
// refusals of `hosts` and of the commands that run cells, and lib/machine/ipc-relay.js and client/data-worker.js run
// here with pipes. The same against real sshd hosts: remote.test.js (npm run test:system).

const { spawn, spawnSync, fork } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const readline = require('node:readline')
const t = require('tap')
const { parseHost, parseHostList, sshWords, sshArgs, shellQuote } = require('../../../lib/machine/ssh')

const ROOT = path.resolve(__dirname, '..', '..', '..')
const bench = (...args) => spawnSync(process.execPath, [path.join(ROOT, 'sweep/index.js'), ...args], { encoding: 'utf8', timeout: 60000 })

t.test('a host is [user@]host[:port]; anything else is refused with the form', async (t) => {
  t.same(parseHost('root@10.0.0.2:2222'), { text: 'root@10.0.0.2:2222', user: 'root', host: '10.0.0.2', port: 2222 })
  t.same(parseHost('db-1.example.com'), { text: 'db-1.example.com', user: null, host: 'db-1.example.com', port: null })
  t.same(parseHost('me@[::1]:22'), { text: 'me@[::1]:22', user: 'me', host: '::1', port: 22 })
  for (const bad of ['', 'root@', '@h', 'h:', 'h:0', 'h:70000', 'a b', 'h;rm -rf /', '-oProxyCommand=x', 'u@h@h', 'h:22:22']) {
    t.throws(() => parseHost(bad), /^must be \[user@\]host\[:port\]/, JSON.stringify(bad))
  }
  t.same(parseHostList('a,b:2').map((h) => h.host), ['a', 'b'])
  t.throws(() => parseHostList('a,,b'), /^must be a comma list/)
})

t.test('--ssh is split into words as a shell would; the ssh command line never prompts', async (t) => {
  t.same(sshWords('-i "/my keys/id" -o \'ProxyJump=a b\''), ['-i', '/my keys/id', '-o', 'ProxyJump=a b'])
  t.same(sshWords('  '), [])
  t.throws(() => sshWords('-i "key'), /an unclosed "/)
  const args = sshArgs(parseHost('u@h:2222'), 'echo hi', { ssh: ['-i', 'K'] })
  t.same(args.slice(0, 2), ['-o', 'BatchMode=yes'])
  t.same(args.slice(-7), ['-p', '2222', '-i', 'K', '--', 'u@h', 'echo hi'], 'the port, the user\'s options, the host, the line')
  t.equal(shellQuote("it's"), "'it'\\''s'")
  t.equal(shellQuote('/a/b-c.js'), '/a/b-c.js')
})

t.test('hosts refuses what it does not take, before reaching any host', async (t) => {
  for (const [args, pattern] of [
    [[], /^run_benchmark\.sh: hosts: use hosts check\|clean --serverHost=/],
    [['wipe'], /^run_benchmark\.sh: hosts: use hosts check\|clean .*, got "wipe"$/],
    [['clean'], /^run_benchmark\.sh: hosts clean: name the hosts with --serverHost and\/or --clientHosts$/],
    [['check'], /^run_benchmark\.sh: hosts check: name the hosts with --serverHost and\/or --clientHosts$/],
    [['check', '--serverHost=h', '--bogus=1'],
      /^run_benchmark\.sh: hosts check: unknown flag "--bogus=1"; it takes --serverHost=, --clientHosts=, --ssh=, --remoteDir=$/],
    [['check', '--serverHost=h', '--remoteDir=relative/dir'], /^run_benchmark\.sh: --remoteDir must be an absolute path, got "relative\/dir"$/],
    [['check', '--serverHost=h', '--ssh=-i "key'], /^run_benchmark\.sh: --ssh must be options for ssh, with every quote closed/]
  ]) {
    const res = bench('hosts', ...args)
    t.equal(res.status, 2, args.join(' '))
    t.match(res.stderr.trim(), pattern, args.join(' '))
  }
})

t.test('the commands that run cells refuse what cannot go with other hosts, before reaching any', async (t) => {
  const results = t.testdir()
  for (const [args, pattern] of [
    [['run', 'sync', '--serverHost=h', '--hosts=netns'], /: --serverHost runs on other machines, --hosts=netns in namespaces of this one: choose one$/],
    [['run', 'sync', '--clientHosts=h', '--cpuset=split'], /: --cpuset=split pins cores of this machine; with --clientHosts the processes run on others$/],
    [['run', 'sync', '--serverHost=h', '--ioDelay=1000'], /: --ioDelay needs the storage layer on this machine; with --serverHost the server writes on h$/],
    [['run', 'sync', '--clientHosts=a,b,c', '--nClients=2'], /: --clientHosts names 3 hosts, but cell sync-s1-c2 has 2 client processes: each host needs one$/],
    [['run', 'sync', '--clientHosts=10.0.0.9'], /: --clientHosts without --serverHost: the server runs here, listening on 127\.0\.0\.1, which other/],
    [['peak', '--kinds=sync', '--clientHosts=a,b', '--connections=1'], /: --clientHosts names 2 hosts for --connections=1: each host needs one at least$/],
    [['quick', '--serverHost=a@b@c'], /^run_benchmark\.sh: --serverHost must be \[user@\]host\[:port\]/]
  ]) {
    const res = bench(...args, `--results=${results}`)
    t.equal(res.status, 2, args.join(' '))
    t.match(res.stderr.trim(), pattern, args.join(' '))
    t.match(res.stderr, /^run_benchmark\.sh: /)
    t.equal(res.stderr.trim().split('\n').length, 1, 'one line')
  }
  t.same(fs.readdirSync(results), [], 'no cell ran')
  const client = spawnSync(process.execPath, [path.join(ROOT, 'client'), '--clientHosts=a,b', '--nClients=1', '--serverPort=1'], { encoding: 'utf8' })
  t.equal(client.status, 2)
  t.match(client.stderr, /^client: --clientHosts names 2 hosts for nClients=1 processes: each host needs one at least\n$/)
})

// lib/machine/ipc-relay.js and client/data-worker.js without ssh: the relay run here with pipes, as sshd would
// run it on another host (in this file: the tests above look for what the project names cbench-remote-).
function startRelay (args) {
  const child = spawn(process.execPath, [path.join(ROOT, 'lib/machine/ipc-relay.js'), ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  const frames = []
  const waiting = []
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    frames.push(JSON.parse(line))
    while (waiting.length > 0 && frames.length > 0) waiting.shift()(frames.shift())
  })
  let stderr = ''
  child.stderr.on('data', (d) => { stderr += d })
  return {
    child,
    send: (frame) => child.stdin.write(`${JSON.stringify(frame)}\n`),
    next: () => new Promise((resolve) => (frames.length > 0 ? resolve(frames.shift()) : waiting.push(resolve))),
    exited: new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })))
  }
}

t.test('the relay answers clock pings, carries the channel, and ends with its stdin', async (t) => {
  const root = path.join(t.testdir(), 'cbench-remote-relay')
  const relay = startRelay(['-', 'client/data-worker.js', root, 'false'])
  const before = process.hrtime.bigint()
  relay.send(['t'])
  const [type, at] = await relay.next()
  t.equal(type, 't')
  t.ok(BigInt(at) >= before && BigInt(at) <= process.hrtime.bigint(), 'this host\'s hrtime, at once')
  relay.send(['m', { id: 1, op: 'make', dir: path.join(root, 'cell'), files: { [path.join(root, 'cell.json')]: '{}' } }])
  t.same(await relay.next(), ['m', { id: 1, result: null }])
  t.ok(fs.existsSync(path.join(root, 'cell.json')))
  relay.send(['m', { id: 2, op: 'sizes', config: { dataPath: path.join(root, 'cell'), nFiles: 2 } }])
  t.same(await relay.next(), ['m', { id: 2, result: [0, 0] }])
  relay.send(['m', { id: 3, op: 'remove', paths: [ROOT] }])
  t.same(await relay.next(), ['m', { id: 3, error: `${ROOT} is outside this run's folder ${root}` }], 'nothing outside its folder')
  t.ok(fs.existsSync(path.join(ROOT, 'package.json')))
  relay.child.stdin.end() // the ssh session ends
  t.equal((await relay.exited).code, 0)
  t.notOk(fs.existsSync(root), 'the data worker removed the run\'s folder as it ended')
})

t.test('the relay refuses a Node version this host lacks', async (t) => {
  const relay = startRelay(['v0.0.1', 'client/data-worker.js', '/tmp/cbench-remote-x', 'false'])
  const { code, stderr } = await relay.exited
  t.equal(code, 4)
  t.match(stderr, /^ipc-relay: no Node v0\.0\.1 on this host \(\.\/run_benchmark\.sh node install 0\.0\.1 puts it in \.node-cache\/\)\n$/)
})

t.test('a data worker removes only a folder named cbench-remote-*, and keeps one when asked', async (t) => {
  const dir = t.testdir()
  const refused = fork(path.join(ROOT, 'client/data-worker.js'), [path.join(dir, 'mine'), 'false'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  let stderr = ''
  refused.stderr.on('data', (d) => { stderr += d })
  const [code] = await new Promise((resolve) => refused.on('exit', (...a) => resolve(a)))
  t.equal(code, 2)
  t.match(stderr, /is not an absolute path to a folder named cbench-remote-\*/)
  t.notOk(fs.existsSync(path.join(dir, 'mine')))

  const kept = path.join(dir, 'data')
  const worker = fork(path.join(ROOT, 'client/data-worker.js'), [kept, 'true'])
  worker.send({ id: 7, op: 'make', dir: kept, files: { [path.join(kept, 'file-0')]: 'x\n' } })
  t.same(await new Promise((resolve) => worker.once('message', resolve)), { id: 7, result: null })
  worker.disconnect()
  await new Promise((resolve) => worker.on('exit', resolve))
  t.equal(fs.readFileSync(path.join(kept, 'file-0'), 'utf8'), 'x\n', 'kept (node client --dataHost keeps the sweep\'s folder)')
})
