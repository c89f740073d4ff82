'use strict'
// sweep/setup.js on a fake machine: a temp folder of fake tools is its whole PATH, and a fake apt-get records its
// arguments and "installs" a package by adding the tools it provides. Run: npx tap test/sweep/setup.test.js

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { REQUIREMENTS, localMachine, survey, parseSetupCommand, runSetup } = require('../../sweep/setup')
const { ROOT } = require('../../lib/config')

// What each Debian package puts on the fake machine: tools in bin/, or (libfuse3-dev) the .pc file the fake pkg-config reads.
const PROVIDES = {
  fuse3: ['fusermount3'], 'libfuse3-dev': ['fuse3.pc'], 'pkg-config': ['pkg-config'], gcc: ['gcc', 'cc'], make: ['make'], haproxy: ['haproxy'],
  iproute2: ['ip', 'tc'], 'linux-perf': ['perf'], chromium: ['chromium'], 'openssh-client': ['ssh', 'ssh-keygen'], 'openssh-server': ['sshd'],
  fio: ['fio'], vmtouch: ['vmtouch']
}
const ALL = Object.keys(PROVIDES)
const HALF = ['pkg-config', 'gcc', 'make', 'iproute2', 'fio', 'vmtouch', 'linux-perf', 'openssh-client'] // a machine that lacks the other five

// A fake machine with these packages (and dnf instead of apt-get when asked); log: apt-get's calls, one line each.
// runtimes: the Bun and Deno versions cached ({ bun: '1.4.5' }); an install puts 9.9.9 there, or fails without a registry.
function fakeMachine (t, packages, { isRoot = true, aptGet = true, dnf = false, aptFails = false, fuse = null, runtimes = {}, registry = true } = {}) {
  const dir = t.testdir({ bin: {}, lib: {} })
  const bin = path.join(dir, 'bin')
  const log = path.join(dir, 'apt-get.log')
  const tool = (name, text) => fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${text}\n`, { mode: 0o755 })
  const install = (p) => PROVIDES[p].map((f) => f.endsWith('.pc') ? `: > ${dir}/lib/${f}`
    : `cp ${dir}/${f === 'pkg-config' ? f : 'tool'} ${bin}/${f}`).join('; ')
  fs.writeFileSync(path.join(dir, 'tool'), '#!/bin/sh\nexit 0\n', { mode: 0o755 })
  fs.writeFileSync(path.join(dir, 'pkg-config'), `#!/bin/sh\n[ "$1" = --exists ] && [ -f ${dir}/lib/$2.pc ]\n`, { mode: 0o755 })
  for (const p of packages) spawnSync('/bin/sh', ['-c', install(p)])
  if (aptGet) {
    tool('apt-get', [
      'PATH=/usr/bin:/bin', `echo "$DEBIAN_FRONTEND $*" >> ${log}`,
      '[ "$1" = install ] || exit 0',
      aptFails ? 'echo "Reading package lists..." >&2; echo "E: Unable to locate package chromium" >&2; exit 100' : '',
      'for p in "$@"; do case "$p" in',
      ...ALL.map((p) => `  ${p}) ${install(p)} ;;`),
      'esac; done'
    ].join('\n'))
  }
  if (dnf) tool('dnf', 'exit 0')
  const built = []
  const build = () => { built.push(1); return path.join(ROOT, 'storage', 'build', 'delayfs') }
  const cache = { ...runtimes }
  const fetchRuntime = (name) => {
    if (!registry) throw new Error(`cannot reach the npm registry (ENOTFOUND) for ${name}`)
    cache[name] = '9.9.9'
    return cache[name]
  }
  const runtimesHere = { cached: (name) => cache[name] ?? null, install: fetchRuntime }
  const machine = localMachine({ env: { PATH: bin }, sbin: [], isRoot, fuse: () => fuse, build, runtimes: runtimesHere })
  const calls = () => fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []
  return { machine, calls, built }
}

// Runs setup on a machine: its exit status and what it printed on stdout and on stderr.
function setup (machine, check = false) {
  const out = []
  const err = []
  const status = runSetup({ check }, { machine, print: (line) => out.push(line), warn: (line) => err.push(line) })
  return { status, out: out.join('\n'), err: err.join('\n') }
}

const missingOf = (machine) => survey(machine).flatMap((need) => need.missing.map((p) => p.debian))

t.test('a requirement is missing exactly where one of its packages\' tools is missing', async (t) => {
  const { machine } = fakeMachine(t, HALF)
  t.same(missingOf(machine), ['fuse3', 'libfuse3-dev', 'haproxy', 'chromium', 'openssh-server'])
  t.same(missingOf(fakeMachine(t, ALL).machine), [], 'every package there: nothing missing')
  t.same(missingOf(fakeMachine(t, ALL.filter((p) => p !== 'pkg-config')).machine), ['libfuse3-dev', 'pkg-config'],
    'without pkg-config the FUSE library cannot be found either')
  t.same(REQUIREMENTS.flatMap((need) => need.packages.map((p) => p.dnf)),
    ['fuse3', 'fuse3-devel', 'pkgconf-pkg-config', 'gcc', 'make', 'haproxy', 'iproute', 'fio', 'vmtouch', 'perf', 'chromium', 'openssh-clients',
      'openssh-server'])
})

t.test('tools in the sbin folders count even when the PATH lacks them', async (t) => {
  const { machine } = fakeMachine(t, ALL)
  const sbinOnly = localMachine({ env: { PATH: '' }, sbin: [machine.env.PATH], fuse: () => null })
  t.ok(sbinOnly.find('sshd'), 'sshd found in an sbin folder')
  t.notOk(localMachine({ env: { PATH: '' }, sbin: [] }).find('sshd'), 'and not without it')
})

t.test('--check lists each requirement, exits 1 while something is missing and 0 when all are present, and installs nothing', async (t) => {
  const half = fakeMachine(t, HALF)
  const res = setup(half.machine, true)
  t.equal(res.status, 1)
  t.match(res.out, /^missing +the -lb kinds \(HAProxy\): haproxy$/m)
  t.match(res.out, /^present +--hosts=netns \(network namespaces\)$/m)
  t.match(res.out, /^missing: fuse3 libfuse3-dev haproxy chromium openssh-server /m)
  t.same(half.calls(), [], 'no apt-get call')
  const all = fakeMachine(t, ALL)
  const ok = setup(all.machine, true)
  t.equal(ok.status, 0)
  t.equal(ok.out.split('\n').filter((line) => line.startsWith('present')).length, REQUIREMENTS.length, 'every requirement present')
  t.match(ok.out, /^every requirement is present$/m)
  t.same(all.built, [], '--check builds nothing')
})

t.test('setup as root runs apt-get update, then installs exactly the missing packages, then builds the delay layer', async (t) => {
  const { machine, calls, built } = fakeMachine(t, HALF)
  const res = setup(machine)
  t.equal(res.status, 0, res.err)
  t.same(calls(), ['noninteractive update -qq', 'noninteractive install -y -qq fuse3 libfuse3-dev haproxy chromium openssh-server'])
  t.match(res.out, /^installed +storage latency \(the FUSE delay layer\): fuse3 libfuse3-dev$/m)
  t.match(res.out, /^present +other hosts over ssh \(client\)$/m)
  t.match(res.out, /^ready +the delay layer: storage\/build\/delayfs$/m)
  t.same(built, [1], 'built once')
  t.same(missingOf(machine), [], 'nothing missing afterwards')
})

t.test('a second run installs nothing and says so', async (t) => {
  const { machine, calls } = fakeMachine(t, HALF)
  setup(machine)
  const before = calls()
  const res = setup(machine)
  t.equal(res.status, 0)
  t.same(calls(), before, 'no further apt-get call')
  t.match(res.out, /^nothing to install: every requirement is present$/m)
  t.notMatch(res.out, /^installed/m)
})

t.test('not root, setup prints the sudo command, runs nothing and exits 1', async (t) => {
  const { machine, calls, built } = fakeMachine(t, HALF, { isRoot: false })
  const res = setup(machine)
  t.equal(res.status, 1)
  t.match(res.err, 'sudo apt-get install -y fuse3 libfuse3-dev haproxy chromium openssh-server')
  t.same(calls(), [], 'no apt-get call')
  t.same(built, [], 'no build')
  t.same(missingOf(machine), ['fuse3', 'libfuse3-dev', 'haproxy', 'chromium', 'openssh-server'], 'nothing changed')
})

t.test('without apt-get, setup prints the dnf command with Fedora\'s names, or else the Debian names, and exits 1', async (t) => {
  const fedora = setup(fakeMachine(t, HALF, { aptGet: false, dnf: true, isRoot: false }).machine)
  t.equal(fedora.status, 1)
  t.match(fedora.err, /sudo dnf install -y fuse3 fuse3-devel haproxy chromium openssh-server$/)
  const other = setup(fakeMachine(t, HALF, { aptGet: false }).machine)
  t.equal(other.status, 1)
  t.match(other.err, /no apt-get or dnf here; .*: fuse3 libfuse3-dev haproxy chromium openssh-server$/)
})

t.test('a failing apt-get exits 1 with its message and builds nothing', async (t) => {
  const { machine, calls, built } = fakeMachine(t, HALF, { aptFails: true })
  const res = setup(machine)
  t.equal(res.status, 1)
  t.match(res.err, /apt-get install failed \(exit 100\):\nReading package lists...\nE: Unable to locate package chromium$/)
  t.equal(calls().length, 2, 'update, then the install that failed')
  t.notMatch(res.out, /^installed(?! +--runtime)/m, 'no package said to be installed')
  t.same(built, [])
})

t.test('Bun and Deno go into the cache from the registry: present ones are said, missing ones installed, none without a registry', async (t) => {
  const line = (status, name, version) => new RegExp(`^${status} +--runtime=${name} \\([A-Z][a-z]+, from the npm registry into \\.node-cache/\\)` +
    `${version ? `: ${name}-${version.replace(/\./g, '\\.')}` : ''}$`, 'm')
  const cached = setup(fakeMachine(t, ALL, { runtimes: { bun: '1.4.5' } }).machine)
  t.equal(cached.status, 0)
  t.match(cached.out, line('present', 'bun', '1.4.5'))
  t.match(cached.out, line('installed', 'deno', '9.9.9'), 'the missing one installed')
  const checked = setup(fakeMachine(t, ALL).machine, true)
  t.equal(checked.status, 0, '--check: runtimes are not system packages, so their absence is no failure')
  t.match(checked.out, line('missing', 'bun'))
  t.notMatch(checked.out, /^installed/m, '--check installs nothing')
  const offline = setup(fakeMachine(t, ALL, { registry: false }).machine)
  t.equal(offline.status, 0, 'no registry: a note each, and the rest still passes')
  t.match(offline.out, /^note +--runtime=bun .* cannot be installed: cannot reach the npm registry \(ENOTFOUND\) for bun$/m)
  t.match(offline.out, /^note +--runtime=deno /m)
})

t.test('where FUSE cannot mount, setup says so in a note, builds nothing and still exits 0', async (t) => {
  const fuse = '/dev/fuse is missing: storage latency needs FUSE (./run_benchmark.sh setup, or apt-get install -y fuse3 libfuse3-dev pkg-config gcc make)'
  const { machine, built } = fakeMachine(t, ALL, { fuse })
  const res = setup(machine)
  t.equal(res.status, 0)
  t.match(res.out, /^note +the delay layer cannot mount here, and no package changes that: \/dev\/fuse is missing: storage latency needs FUSE$/m)
  t.same(built, [])
})

t.test('a bad argument exits 2 with one line, run alone or through run_benchmark.sh', async (t) => {
  t.throws(() => parseSetupCommand(['--check', 'now']), /setup: use setup/)
  t.same(parseSetupCommand(['--check']), { check: true })
  for (const args of [['sweep/setup.js', '--force'], ['sweep/index.js', 'setup', '--force']]) {
    const res = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' })
    t.equal(res.status, 2, args.join(' '))
    t.match(res.stderr, /^[\w/.]+: setup: use setup .*, got "--force"\n$/)
    t.equal(res.stdout, '')
  }
})
