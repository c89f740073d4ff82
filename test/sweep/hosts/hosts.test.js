'use strict'
// Other hosts over ssh: lib/machine/ssh.js (host forms, --ssh words, the ssh command line), `hosts check`
// and `hosts clean`, and run, quick and peak with their server and client processes on real sshd
// hosts (test/fixtures/sshd.js: network namespaces with their own addresses on one bridge, and an
// sshd on 127.0.0.1 at a high port); lib/machine/ipc-relay.js and client/data-worker.js without ssh. One
// file, run in order: its tests look for what the project names cbench-remote- on this machine.

const { spawn, spawnSync, fork } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const readline = require('node:readline')
const t = require('tap')
const { parseHost, parseHostList, sshWords, sshArgs, shellQuote } = require('../../../lib/machine/ssh')
const { probeHost, localCommit } = require('../../../sweep/hosts/hosts')
const { startSshHosts, sshdProblem } = require('../../fixtures/sshd')
const hdr = require('hdr-histogram-js')
const { createRecord, mergeRecords } = require('../../../client/stats')
const { readSummary } = require('../../fixtures/sweep-run')

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

t.test('hosts check against sshd in network namespaces and on 127.0.0.1', { skip: sshdProblem() }, async (t) => {
  const lab = await startSshHosts({ count: 2, local: true })
  t.teardown(lab.close)
  const ssh = `--ssh=${lab.ssh}`
  const ok = bench('hosts', 'check', `--serverHost=${lab.hosts[0]}`, `--clientHosts=${lab.hosts[1]},${lab.local}`, ssh)
  t.equal(ok.status, 0, ok.stderr)
  const lines = ok.stdout.trim().split('\n').map((l) => l.split('\t'))
  t.same(lines.map((l) => l.slice(0, 3)),
    [[lab.hosts[0], 'server', 'reachable'], [lab.hosts[1], 'client', 'reachable'], [lab.local, 'client', 'reachable']])
  for (const l of lines) {
    t.equal(l[3], `Node ${process.version}`, 'the Node on the host\'s PATH')
    t.equal(l[4], `commit ${localCommit()?.slice(0, 12) ?? '-'}`, 'the checkout is this one')
    t.equal(l[5], `${os.availableParallelism()} cores`)
    t.match(l[6], /^\d+\.\d GiB free$/)
    t.match(l[7], /^clock [+-]\d+ ms$/)
  }

  // Each failure exits 2 with one line naming the host.
  const failing = (args, pattern, what) => {
    const res = bench('hosts', 'check', ...args)
    t.equal(res.status, 2, what)
    t.match(res.stderr, pattern, what)
    t.equal(res.stderr.trim().split('\n').length, 1, `${what}: one line`)
    t.equal(res.stdout, '', `${what}: nothing printed as checked`)
  }
  const nobody = `root@${lab.addresses[0].replace(/\d+$/, (d) => String(Number(d) - 1))}` // this side's own end of the link: no sshd there
  failing([`--serverHost=${lab.hosts[0]}`, `--clientHosts=${nobody}`, ssh],
    new RegExp(`^run_benchmark\\.sh: host ${nobody} \\(client\\): cannot be reached over ssh`), 'a host without sshd')
  failing([`--serverHost=${lab.hosts[0]}`, '--remoteDir=/nonexistent/checkout', ssh],
    new RegExp(`^run_benchmark\\.sh: host ${lab.hosts[0]} \\(server\\): no checkout of this project at /nonexistent/checkout`), 'a host without the checkout')
  failing([`--serverHost=${lab.hosts[0]}`, '--ssh=-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -i /dev/null'],
    /cannot be reached over ssh: .*Permission denied/, 'a key the host does not take: refused, never a prompt')
  failing(['--serverHost=root@bad:host'], /^run_benchmark\.sh: --serverHost must be \[user@\]host\[:port\]/, 'a malformed host')

  const host = parseHost(lab.hosts[1])
  const how = { ssh: sshWords(lab.ssh) }
  t.match(probeHost(host, { ...how, versions: ['v0.0.1'] }), { ok: false, why: /^has no Node v0\.0\.1 \(its node on PATH is v\d+/ },
    'a Node version the host lacks')
  t.match(probeHost(host, { ...how, versions: [process.version] }), { ok: true, probe: { nodes: { [process.version]: process.execPath } } })
  t.match(probeHost(host, { ...how, commit: 'f'.repeat(40) }), { ok: false, why: /is at commit [0-9a-f]{12}, this one at ffffffffffff$/ },
    'another commit')
})

// The run commands over other hosts: `node sweep/index.js ARGS` asynchronously, with its output.
function benchAsync (args, { timeout = 120000 } = {}) {
  const child = spawn(process.execPath, [path.join(ROOT, 'sweep/index.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => { stdout += d })
  child.stderr.on('data', (d) => { stderr += d })
  const timer = setTimeout(() => child.kill('SIGKILL'), timeout)
  const done = new Promise((resolve) => child.on('close', (status) => { clearTimeout(timer); resolve({ status, stdout, stderr }) }))
  return { child, done, stderr: () => stderr }
}

async function until (what, test, ms = 60000) {
  for (const end = Date.now() + ms; !test(); await new Promise((resolve) => setTimeout(resolve, 100))) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms / 1000} s`)
  }
}

// What the project names on a host (this machine, for the test's hosts): processes and data folders.
function leftovers () {
  const processes = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid).flatMap((pid) => {
    try {
      const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')
      return /cbench-remote-|lib\/ipc-relay\.js/.test(command) ? [`${pid} ${command}`] : []
    } catch {
      return []
    }
  })
  const dataDir = path.join(ROOT, 'data')
  const folders = fs.existsSync(dataDir) ? fs.readdirSync(dataDir).filter((name) => name.startsWith('cbench-remote-')) : []
  return { processes, folders }
}

async function gone (t, what) {
  let left
  for (const end = Date.now() + 30000; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 200))) {
    left = leftovers()
    if (left.processes.length === 0 && left.folders.length === 0) break
  }
  t.same(left, { processes: [], folders: [] }, what)
}

t.test('a run with its server on one host and its client processes on two others, over ssh', { skip: sshdProblem() }, async (t) => {
  const lab = await startSshHosts({ count: 3, local: true })
  t.teardown(lab.close)
  const results = t.testdir()
  const ssh = `--ssh=${lab.ssh}`
  const [h1, h2, h3] = lab.hosts

  const run = await benchAsync(['run', 'sync', `--serverHost=${h1}`, `--clientHosts=${h2},${h3}`, ssh, `--results=${results}`,
    '--nOperations=1000', '--nClients=2']).done
  t.equal(run.status, 0, run.stderr)
  const dir = path.join(results, fs.readdirSync(results)[0])
  const [row] = readSummary(dir)
  t.equal(row.valid, 'true')
  t.equal(row.hosts, 'ssh')
  t.equal(row.serverHost, h1)
  t.match(row.clientHosts, new RegExp(`^${h2} \\d+ ops/s GET p99 \\d+ µs \\d+ µs/req; ${h3} \\d+ ops/s GET p99 \\d+ µs \\d+ µs/req$`), 'both client hosts')
  const json = JSON.parse(fs.readFileSync(path.join(dir, row.json), 'utf8'))
  t.match(json.verification, { checked: true, ok: true, lost: 0 }, 'verified')
  t.ok(json.verification.records > 0)
  t.match(json.config.dataPath, /\/cbench-remote-[^/]+\/sync-s1-c2-r1$/, 'the data folder was the run\'s folder on the server host')
  t.same(json.processes.map((p) => p.host), [h2, h3], 'process k on the k-th client host')
  const log = fs.readFileSync(path.join(dir, 'cells', 'sync-s1-c2-r1.log'), 'utf8')
  t.match(log, new RegExp(`^listening http://${lab.addresses[0].replace(/\./g, '\\.')}:\\d+ kind=sync`, 'm'), 'the server listened on the server host')
  // The cell's GET p99 is the p99 of the client hosts' histograms added, not an average of theirs.
  const added = mergeRecords(json.clientHosts.hosts.map((h) => {
    const rec = createRecord()
    rec.histogram = hdr.decodeFromCompressedBase64(h.histograms.GET)
    Object.assign(rec, { count: rec.histogram.totalCount, min: rec.histogram.minNonZeroValue, max: rec.histogram.maxValue })
    return rec
  }))
  t.equal(Number(row.getP99), Math.min(json.latency.GET.max, Math.max(json.latency.GET.min, added.histogram.getValueAtPercentile(99))))
  t.equal(added.histogram.totalCount, json.latency.GET.count)
  // Its ops/s is over the overlapping window: each host's own rate, added.
  const rates = json.clientHosts.hosts.map((h) => h.completed / (h.wallMs / 1000))
  t.ok(rates.every((r) => r > 0))
  t.ok(Math.abs(Number(row.opsPerSec) - (rates[0] + rates[1])) < 1e-6 * Number(row.opsPerSec), 'the hosts\' rates added')
  await gone(t, 'nothing left once the run ended')

  // The same command with every host this machine, through the sshd on 127.0.0.1 at its port.
  const local = await benchAsync(['run', 'sync', `--serverHost=${lab.local}`, `--clientHosts=${lab.local},${lab.local}`, ssh,
    `--results=${results}`, '--nOperations=400', '--nClients=2']).done
  t.equal(local.status, 0, local.stderr)

  // quick over the namespaces, killed by SIGKILL once it measures: its hosts end everything.
  const quick = benchAsync(['quick', `--serverHost=${h1}`, `--clientHosts=${h2},${h3}`, ssh, `--results=${results}`, '--budget=60', '--warmOps=200'])
  await until('quick warmed up', () => /quick: warmed up/.test(quick.stderr()))
  t.ok(leftovers().processes.length > 0, 'servers and client processes ran on the hosts')
  t.equal(leftovers().folders.length, 1, 'the run\'s data folder on the server host')
  quick.child.kill('SIGKILL')
  t.equal((await quick.done).status, null, 'killed')
  await gone(t, 'no server, client process, relay or data folder left after SIGKILL of the control node')
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

t.test('hosts that cannot serve a run stop it before any cell; hosts clean; peak over hosts', { skip: sshdProblem() }, async (t) => {
  const lab = await startSshHosts({ count: 2 })
  t.teardown(lab.close)
  const results = t.testdir()
  const ssh = `--ssh=${lab.ssh}`
  const [h1, h2] = lab.hosts
  // A node binary here whose version no host has: it answers the version probe as v19.99.0.
  const fakeNode = path.join(results, '..', `fake-node-${process.pid}`)
  const probe = '{"node":"v19.99.0","v8":"x","uv":"y"}'
  fs.writeFileSync(fakeNode, `#!/bin/sh\n[ "$1" = -p ] && { echo '${probe}'; exit 0; }\nexec ${process.execPath} "$@"\n`, { mode: 0o755 })
  t.teardown(() => fs.rmSync(fakeNode, { force: true }))
  const nobody = `root@${lab.addresses[0].replace(/\d+$/, '1')}` // this machine's end of the bridge: no sshd there
  for (const [args, pattern] of [
    [[`--serverHost=${nobody}`], new RegExp(`^run_benchmark\\.sh: host ${nobody} \\(server\\): cannot be reached over ssh`)],
    [[`--serverHost=${h1}`, '--remoteDir=/nonexistent'], new RegExp(`^run_benchmark\\.sh: host ${h1} \\(server\\): no checkout of this project at /nonexi`)],
    [[`--serverHost=${h1}`, `--node=${fakeNode}`], new RegExp(`^run_benchmark\\.sh: host ${h1} \\(server\\): has no Node v19\\.99\\.0 `)],
    [[`--clientHosts=${h2},${nobody}`, '--serverHostname=0.0.0.0', '--nClients=2'], new RegExp(`^run_benchmark\\.sh: host ${nobody} \\(client\\): cannot be`)]
  ]) {
    const res = bench('run', 'sync', ...args, ssh, `--results=${results}`)
    t.equal(res.status, 2, args.join(' '))
    t.match(res.stderr, pattern, args.join(' '))
    t.equal(res.stderr.trim().split('\n').length, 1, 'one line')
  }
  t.same(fs.readdirSync(results), [], 'no cell ran')

  // What a crash left on a host: a server started without its watch, and a run's data folder.
  const dataDir = path.join(ROOT, 'data')
  const folder = path.join(dataDir, `cbench-remote-test-${process.pid}`)
  const other = path.join(dataDir, `kept-${process.pid}`)
  fs.mkdirSync(path.join(folder, 'd'), { recursive: true })
  fs.mkdirSync(other, { recursive: true })
  t.teardown(() => fs.rmSync(other, { recursive: true, force: true }))
  const detached = `cd ${ROOT} && (setsid node servers/sync.js --dataPath=${folder}/d --serverPort=0 </dev/null >/dev/null 2>&1 &)`
  const start = spawnSync('ssh', [...sshWords(lab.ssh), h1, detached], { encoding: 'utf8' })
  t.equal(start.status, 0, start.stderr)
  await until('the left server runs', () => leftovers().processes.length === 1)
  const clean = bench('hosts', 'clean', `--serverHost=${h1}`, `--clientHosts=${h2}`, ssh)
  t.equal(clean.status, 0, clean.stderr)
  t.match(clean.stdout, new RegExp(`^${h1}\\tended 1 processes \\(pids \\d+\\)\\tremoved 1 folders \\(${folder}\\)\\n`))
  t.match(clean.stdout, new RegExp(`\\n${h2}\\tended 0 processes\\tremoved 0 folders\\n$`))
  await gone(t, 'the server and the folder are gone')
  t.ok(fs.existsSync(other), 'a folder the project did not name cbench-remote- is left alone')

  // peak: autocannon shards on the client hosts, their histograms added, req/s the sum of theirs.
  const peak = await benchAsync(['peak', '--kinds=sync', '--nServers=1', '--duration=1', `--serverHost=${h1}`, `--clientHosts=${h1},${h2}`,
    ssh, `--results=${results}`]).done
  t.equal(peak.status, 0, peak.stderr)
  const rows = readSummary(path.join(results, fs.readdirSync(results)[0]))
  t.equal(rows.length, 2, 'GET and POST')
  for (const row of rows) {
    const shards = [...row.clientHosts.matchAll(/(\S+) (\d+) req\/s p99 \d+ ms/g)]
    t.same(shards.map((m) => m[1]), [h1, h2], 'both client hosts')
    t.ok(Math.abs(shards.reduce((a, m) => a + Number(m[2]), 0) - Number(row.reqPerSec)) <= 2, 'req/s is the shards\' added')
  }
  await gone(t, 'nothing left after peak')
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
