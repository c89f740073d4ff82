'use strict'
// Other hosts over ssh: lib/ssh.js (host forms, --ssh words, the ssh command line) and
// `./run_benchmark.sh hosts check` against real sshd hosts (test/fixtures/sshd.js): network
// namespaces with their own addresses, and an sshd on 127.0.0.1 at a high port.

const { spawnSync } = require('node:child_process')
const os = require('node:os')
const path = require('node:path')
const t = require('tap')
const { parseHost, parseHostList, sshWords, sshArgs, shellQuote } = require('../lib/ssh')
const { probeHost, localCommit } = require('../sweep/hosts')
const { startSshHosts, sshdProblem } = require('./fixtures/sshd')

const ROOT = path.resolve(__dirname, '..')
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
    [[], /^run_benchmark\.sh: hosts: use hosts check --serverHost=/],
    [['clean'], /^run_benchmark\.sh: hosts: use hosts check .*, got "clean"$/],
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
