'use strict'
// Other hosts over ssh, for real: `hosts check` and `hosts clean`, and run, quick and peak with their server and client
// processes on sshd hosts (test/fixtures/sshd.js: network namespaces with their own addresses on one bridge, and an
// sshd on 127.0.0.1 at a high port). One file, run in order: its tests look for what the project names cbench-remote-
// on this machine. What needs no host: hosts.test.js.

const { spawn, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const t = require('tap')
const { parseHost, sshWords } = require('../../../lib/machine/ssh')
const { probeHost, localCommit } = require('../../../sweep/hosts/hosts')
const { startSshHosts, sshdProblem } = require('../../fixtures/sshd')
const hdr = require('hdr-histogram-js')
const { createRecord, mergeRecords } = require('../../../client/stats')
const { readSummary } = require('../../fixtures/sweep-run')

const ROOT = path.resolve(__dirname, '..', '..', '..')
const bench = (...args) => spawnSync(process.execPath, [path.join(ROOT, 'sweep/index.js'), ...args], { encoding: 'utf8', timeout: 60000 })

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
