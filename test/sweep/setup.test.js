'use strict'
// sweep/setup.js on fake machines of Debian, Ubuntu and Fedora: a temp folder of fake tools is its whole PATH, and a fake
// apt-get or dnf records its arguments and "installs" a package by adding the tools it provides. Run: npx tap test/sweep/setup.test.js

const t = require('tap')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { REQUIREMENTS, readDistribution, localMachine, survey, parseSetupCommand, runSetup } = require('../../sweep/setup')
const { ROOT } = require('../../lib/config')

// What each package puts on the fake machine, by its distribution's name: tools in bin/, or the .pc file the fake
// pkg-config reads. Ubuntu's perf is linux-tools-<kernel release>; Fedora's Chromium is called chromium-browser.
const DEBIAN = {
  fuse3: ['fusermount3'], 'libfuse3-dev': ['fuse3.pc'], 'pkg-config': ['pkg-config'], gcc: ['gcc', 'cc'], make: ['make'], haproxy: ['haproxy'],
  iproute2: ['ip', 'tc'], 'linux-perf': ['perf'], chromium: ['chromium'], 'openssh-client': ['ssh', 'ssh-keygen'], 'openssh-server': ['sshd'],
  fio: ['fio'], vmtouch: ['vmtouch'], 'user-mode-linux': ['linux.uml'], e2fsprogs: ['mkfs.ext4']
}
const UBUNTU = { ...DEBIAN, 'linux-tools-common': [], [`linux-tools-${os.release()}`]: ['perf'] }
delete UBUNTU['linux-perf']
delete UBUNTU.chromium
const FEDORA = {
  fuse3: ['fusermount3'], 'fuse3-devel': ['fuse3.pc'], 'pkgconf-pkg-config': ['pkg-config'], gcc: ['gcc', 'cc'], make: ['make'], haproxy: ['haproxy'],
  iproute: ['ip', 'tc'], perf: ['perf'], chromium: ['chromium-browser'], 'openssh-clients': ['ssh', 'ssh-keygen'], 'openssh-server': ['sshd'],
  fio: ['fio'], vmtouch: ['vmtouch'], e2fsprogs: ['mkfs.ext4']
}
const OS_RELEASE = {
  debian: 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n',
  ubuntu: 'PRETTY_NAME="Ubuntu 24.04.1 LTS"\nID=ubuntu\nID_LIKE=debian\n',
  fedora: 'NAME="Fedora Linux"\nPRETTY_NAME="Fedora Linux 41 (Workstation Edition)"\nID=fedora\n'
}
const ALL = Object.keys(DEBIAN)
// A Debian machine that lacks fuse3, libfuse3-dev, haproxy, chromium, openssh-server and the User-mode Linux kernel.
const HALF = ['pkg-config', 'gcc', 'make', 'iproute2', 'fio', 'vmtouch', 'linux-perf', 'openssh-client', 'e2fsprogs']
const HALF_MISSING = ['fuse3', 'libfuse3-dev', 'haproxy', 'chromium', 'openssh-server', 'user-mode-linux']

/**
 * A fake machine of a distribution with these packages. Its installer (apt-get or dnf, or none) records its arguments
 * (log: one line per call) and installs each known package; those in `fails` make it exit 100 as apt-get does.
 * runtimes: the Bun and Deno versions cached ({ bun: '1.4.5' }); an install puts 9.9.9 there, or fails without a registry.
 */
function fakeMachine (t, packages, { distro = 'debian', isRoot = true, installer = true, fails = [], fuse = null, runtimes = {}, registry = true,
  platform = 'linux' } = {}) {
  const provides = { debian: DEBIAN, ubuntu: UBUNTU, fedora: FEDORA }[distro]
  const dir = t.testdir({ bin: {}, lib: {} })
  const bin = path.join(dir, 'bin')
  const log = path.join(dir, 'installer.log')
  const install = (p) => provides[p].map((f) => f.endsWith('.pc') ? `: > ${dir}/lib/${f}`
    : `cp ${dir}/${f === 'pkg-config' ? f : 'tool'} ${bin}/${f}`).join('; ') || ':'
  fs.writeFileSync(path.join(dir, 'tool'), '#!/bin/sh\nexit 0\n', { mode: 0o755 })
  fs.writeFileSync(path.join(dir, 'pkg-config'), `#!/bin/sh\n[ "$1" = --exists ] && [ -f ${dir}/lib/$2.pc ]\n`, { mode: 0o755 })
  for (const p of packages) spawnSync('/bin/sh', ['-c', install(p)])
  if (installer) {
    fs.writeFileSync(path.join(bin, distro === 'fedora' ? 'dnf' : 'apt-get'), [
      '#!/bin/sh', 'PATH=/usr/bin:/bin', `echo "$*" >> ${log}`,
      '[ "$1" = install ] || exit 0',
      'for p in "$@"; do case "$p" in', // all or nothing, as apt-get and dnf
      ...fails.map((p) => `  ${p}) echo "Reading package lists..." >&2; echo "E: Unable to locate package ${p}" >&2; exit 100 ;;`),
      'esac; done',
      'for p in "$@"; do case "$p" in',
      ...Object.keys(provides).map((p) => `  ${p}) ${install(p)} ;;`),
      'esac; done'
    ].join('\n'), { mode: 0o755 })
  }
  const built = []
  const build = () => { built.push(1); return path.join(ROOT, 'storage', 'build', 'delayfs') }
  const cache = { ...runtimes }
  const fetchRuntime = (name) => {
    if (!registry) throw new Error(`cannot reach the npm registry (ENOTFOUND) for ${name}`)
    cache[name] = '9.9.9'
    return cache[name]
  }
  const runtimesHere = { cached: (name) => cache[name] ?? null, install: fetchRuntime }
  const machine = localMachine({ env: { PATH: bin }, sbin: [], isRoot, platform, osRelease: OS_RELEASE[distro], fuse: () => fuse, build,
    runtimes: runtimesHere })
  const calls = () => fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []
  return { machine, calls, built }
}

// Runs setup on a machine: its exit status and what it printed on stdout and on stderr.
function setup (machine, { check = false, strict = false } = {}) {
  const out = []
  const err = []
  const status = runSetup({ check, strict }, { machine, print: (line) => out.push(line), warn: (line) => err.push(line) })
  return { status, out: out.join('\n'), err: err.join('\n') }
}

const missingOf = (machine) => survey(machine).flatMap((need) => need.missing.map((p) => p.name ?? `(none: ${p.why})`))

t.test('the distribution from os-release: its ID, else the first ID_LIKE setup knows', async (t) => {
  const family = (text) => readDistribution(text).family
  t.equal(family(OS_RELEASE.ubuntu), 'ubuntu')
  t.equal(family('ID=linuxmint\nID_LIKE="ubuntu debian"\n'), 'ubuntu', 'Mint installs as Ubuntu')
  t.equal(family('ID="rocky"\nID_LIKE="rhel centos fedora"\n'), 'fedora')
  t.equal(family('ID=rhel\nID_LIKE="fedora"\n'), 'fedora')
  t.equal(family('ID=arch\n'), 'arch')
  t.equal(family('ID=alpine\n'), 'alpine')
  t.equal(family('ID=raspbian\nID_LIKE=debian\n'), 'debian')
  t.same(readDistribution(null), { family: 'debian', name: 'an unknown Linux' }, 'no os-release: Debian\'s names')
  t.equal(readDistribution(OS_RELEASE.fedora).name, 'Fedora Linux 41 (Workstation Edition)')
})

t.test('a requirement is missing exactly where one of its packages\' tools is missing, named as its distribution names it', async (t) => {
  t.same(missingOf(fakeMachine(t, HALF).machine), HALF_MISSING)
  t.same(missingOf(fakeMachine(t, ALL).machine), [], 'every package there: nothing missing')
  t.same(missingOf(fakeMachine(t, ALL.filter((p) => p !== 'pkg-config')).machine), ['libfuse3-dev', 'pkg-config'],
    'without pkg-config the FUSE library cannot be found either')
  const ubuntu = fakeMachine(t, ['gcc'], { distro: 'ubuntu' }).machine
  t.same(missingOf(ubuntu).slice(-6), [`linux-tools-common linux-tools-${os.release()}`,
    '(none: its chromium is a snap, which the browser test cannot drive: that test is skipped)', 'openssh-client', 'openssh-server',
    'user-mode-linux', 'e2fsprogs'])
  t.same(missingOf(fakeMachine(t, [], { distro: 'fedora' }).machine), ['fuse3', 'fuse3-devel', 'pkgconf-pkg-config', 'gcc', 'make', 'haproxy',
    'iproute', 'fio', 'vmtouch', 'perf', 'chromium', 'openssh-clients', 'openssh-server', '(none: it ships no User-mode Linux kernel)', 'e2fsprogs'])
  t.same(missingOf(fakeMachine(t, ['chromium'], { distro: 'fedora' }).machine).filter((n) => n === 'chromium'), [], 'chromium-browser counts')
})

t.test('tools in the sbin folders count even when the PATH lacks them', async (t) => {
  const { machine } = fakeMachine(t, ALL)
  const sbinOnly = localMachine({ env: { PATH: '' }, sbin: [machine.env.PATH], fuse: () => null })
  t.ok(sbinOnly.find('sshd'), 'sshd found in an sbin folder')
  t.notOk(localMachine({ env: { PATH: '' }, sbin: [] }).find('sshd'), 'and not without it')
})

t.test('--check lists each requirement, exits 1 while something is missing and 0 when all are present, and installs nothing', async (t) => {
  const half = fakeMachine(t, HALF)
  const res = setup(half.machine, { check: true })
  t.equal(res.status, 1)
  t.match(res.out, /^system +Debian GNU\/Linux 12 \(bookworm\) \(packages as debian names them\)$/m)
  t.match(res.out, /^missing +the -lb kinds \(HAProxy\): haproxy$/m)
  t.match(res.out, /^present +--hosts=netns \(network namespaces\)$/m)
  t.match(res.out, /^missing: fuse3 libfuse3-dev haproxy chromium openssh-server user-mode-linux /m)
  t.same(half.calls(), [], 'no installer call')
  const ubuntu = setup(fakeMachine(t, ALL.filter((p) => UBUNTU[p]), { distro: 'ubuntu' }).machine, { check: true })
  t.equal(ubuntu.status, 1)
  t.match(ubuntu.out, new RegExp(`^missing +--profile's stacks .*: linux-tools-common linux-tools-${os.release().replace(/[.+]/g, '\\$&')}$`, 'm'))
  t.notMatch(ubuntu.out, /linux-perf/, 'never Debian\'s name')
  const all = fakeMachine(t, ALL)
  const ok = setup(all.machine, { check: true })
  t.equal(ok.status, 0)
  t.equal(ok.out.split('\n').filter((line) => line.startsWith('present')).length, REQUIREMENTS.length, 'every requirement present')
  t.match(ok.out, /^every requirement is present$/m)
  t.same(all.built, [], '--check builds nothing')
})

t.test('setup as root installs requirement by requirement, then builds the delay layer', async (t) => {
  const { machine, calls, built } = fakeMachine(t, HALF)
  const res = setup(machine)
  t.equal(res.status, 0, res.err)
  t.same(calls(), ['update -qq', 'install -y -qq fuse3 libfuse3-dev', 'install -y -qq haproxy', 'install -y -qq chromium',
    'install -y -qq openssh-server', 'install -y -qq user-mode-linux'])
  t.match(res.out, /^installed +storage latency \(the FUSE delay layer\): fuse3 libfuse3-dev$/m)
  t.match(res.out, /^present +other hosts over ssh \(client\)$/m)
  t.match(res.out, /^ready +the delay layer: storage\/build\/delayfs$/m)
  t.same(built, [1], 'built once')
  t.same(missingOf(machine), [], 'nothing missing afterwards')
  const fedora = fakeMachine(t, ['gcc', 'make', 'fio', 'vmtouch', 'perf', 'e2fsprogs'], { distro: 'fedora' })
  t.equal(setup(fedora.machine).status, 0)
  t.same(fedora.calls(), ['install -y -q fuse3 fuse3-devel pkgconf-pkg-config', 'install -y -q haproxy', 'install -y -q iproute',
    'install -y -q chromium', 'install -y -q openssh-clients', 'install -y -q openssh-server'], 'dnf with Fedora\'s names, no User-mode Linux')
})

t.test('a package that cannot be installed loses only its capability, in one line; --strict makes that exit 1', async (t) => {
  const { machine, calls } = fakeMachine(t, HALF, { fails: ['haproxy'] })
  const res = setup(machine)
  t.equal(res.status, 0, 'what quick needs is there')
  t.match(res.err, /^setup: could not install haproxy, so the -lb kinds \(HAProxy\) is missing: exit 100: E: Unable to locate package haproxy$/m)
  t.equal(calls().length, 6, 'update, then each requirement')
  t.same(missingOf(machine), ['haproxy'], 'every other package installed')
  t.match(res.out, /^missing +the -lb kinds \(HAProxy\): haproxy$/m)
  t.match(res.err, /^setup: still missing after the installs: haproxy$/m)
  t.equal(setup(fakeMachine(t, HALF, { fails: ['haproxy'] }).machine, { strict: true }).status, 1, '--strict')
  const fuseFails = fakeMachine(t, HALF, { fails: ['libfuse3-dev'] })
  t.equal(setup(fuseFails.machine).status, 1, 'without the delay layer\'s packages quick cannot run: exit 1')
  t.same(missingOf(fuseFails.machine), ['fuse3', 'libfuse3-dev'])
})

t.test('a second run installs nothing and says so', async (t) => {
  const { machine, calls } = fakeMachine(t, HALF)
  setup(machine)
  const before = calls()
  const res = setup(machine)
  t.equal(res.status, 0)
  t.same(calls(), before, 'no further installer call')
  t.match(res.out, /^nothing to install: every requirement is present$/m)
  t.notMatch(res.out, /^installed/m)
})

t.test('not root, setup prints the sudo command, runs nothing; exit 1 only when what quick needs is missing', async (t) => {
  const { machine, calls, built } = fakeMachine(t, HALF, { isRoot: false })
  const res = setup(machine)
  t.equal(res.status, 1)
  t.match(res.err, 'sudo apt-get update && sudo apt-get install -y fuse3 libfuse3-dev haproxy chromium openssh-server user-mode-linux')
  t.same(calls(), [], 'no installer call')
  t.same(built, [], 'no build')
  t.same(missingOf(machine), HALF_MISSING, 'nothing changed')
  const most = setup(fakeMachine(t, ALL.filter((p) => p !== 'haproxy'), { isRoot: false }).machine)
  t.equal(most.status, 0, 'only HAProxy missing: quick runs')
  t.match(most.err, /sudo apt-get install -y haproxy$/)
  const fedora = setup(fakeMachine(t, [], { distro: 'fedora', isRoot: false }).machine)
  t.match(fedora.err, /run: sudo dnf install -y fuse3 fuse3-devel pkgconf-pkg-config gcc make haproxy iproute fio vmtouch perf chromium /)
  const none = setup(fakeMachine(t, [], { installer: false }).machine)
  t.match(none.err, /there is no apt-get here \(Debian GNU\/Linux 12 \(bookworm\)\); install these with its package manager: fuse3 /)
})

t.test('Bun and Deno go into the cache from the registry: present ones are said, missing ones installed, none without a registry', async (t) => {
  const line = (status, name, version) => new RegExp(`^${status} +--runtime=${name} \\([A-Z][a-z]+, from the npm registry into \\.node-cache/\\)` +
    `${version ? `: ${name}-${version.replace(/\./g, '\\.')}` : ''}$`, 'm')
  const cached = setup(fakeMachine(t, ALL, { runtimes: { bun: '1.4.5' } }).machine)
  t.equal(cached.status, 0)
  t.match(cached.out, line('present', 'bun', '1.4.5'))
  t.match(cached.out, line('installed', 'deno', '9.9.9'), 'the missing one installed')
  const checked = setup(fakeMachine(t, ALL).machine, { check: true })
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

t.test('off Linux, setup names what needs Linux in one line, Homebrew\'s packages for the rest, installs none; exit 0', async (t) => {
  const { machine, calls, built } = fakeMachine(t, [], { platform: 'darwin', fuse: 'no FUSE here' })
  const res = setup(machine)
  t.equal(res.status, 0, 'quick needs none of them')
  t.match(res.out, /^system +macOS \(darwin\): setup, quick, sweep, run, compare and report run here$/m)
  const linux = res.out.split('\n').filter((l) => l.startsWith('linux '))
  t.equal(linux.length, 1, 'one line')
  t.match(linux[0], 'storage latency (the FUSE delay layer); the -lb kinds (HAProxy); --hosts=netns (network namespaces); --storage=cold ')
  t.match(res.out, /^missing +the report's browser test \(Chromium\): --cask chromium$/m)
  t.match(res.out, /^missing +other hosts over ssh \(client\): openssh$/m)
  t.equal(res.out.split('\n').filter((l) => /^(missing|present) /.test(l)).length, 3, 'only what runs here is checked')
  t.match(res.err, /^setup: nothing was installed; with Homebrew: brew install --cask chromium && brew install openssh$/m, 'each once')
  t.notMatch(res.out + res.err, /apt-get|sudo|fuse3|haproxy |linux-perf|user-mode-linux/, 'no Linux package, no sudo')
  t.same(calls(), [], 'no installer call')
  t.same(built, [], 'no build')
  t.match(res.out, /^installed +--runtime=bun /m, 'Bun and Deno still installed')
  t.equal(setup(machine, { check: true }).status, 1, '--check: 1 while something that runs here is missing')
  const other = setup(fakeMachine(t, [], { platform: 'freebsd' }).machine)
  t.equal(other.status, 0)
  t.match(other.err, /^setup: nothing was installed; install them with this system's package manager: /m)
  t.notMatch(other.err, /brew/)
})

t.test('a bad argument exits 2 with one line, run alone or through run_benchmark.sh', async (t) => {
  t.throws(() => parseSetupCommand(['--check', 'now']), /setup: use setup/)
  t.same(parseSetupCommand(['--check']), { check: true, strict: false })
  t.same(parseSetupCommand(['--strict']), { check: false, strict: true })
  for (const args of [['sweep/setup.js', '--force'], ['sweep/index.js', 'setup', '--force']]) {
    const res = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' })
    t.equal(res.status, 2, args.join(' '))
    t.match(res.stderr, /^[\w/.]+: setup: use setup .*, got "--force"\n$/)
    t.equal(res.stdout, '')
  }
})
