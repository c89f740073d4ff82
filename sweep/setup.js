'use strict'
// `./run_benchmark.sh setup [--check] [--strict]`: the system packages the optional capabilities need, each checked on
// this machine, named as its distribution names them (/etc/os-release: Debian, Ubuntu, Fedora/RHEL, Arch, Alpine); as
// root, setup installs the missing ones requirement by requirement (one that cannot be had loses only its capability)
// and builds the delay layer; then it puts Bun and Deno (for --runtime) into .node-cache/ from the npm registry. Off
// Linux (lib/platform.js) it says in one line what needs Linux, names Homebrew's packages for the rest on macOS, and
// installs nothing but Bun and Deno. It needs no npm dependency, so it also runs as `node sweep/setup.js [--check]` before `npm ci`.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { ConfigError, runMain, ROOT } = require('../lib/config')
const { findOnPath } = require('../lib/find-on-path')
const { haproxyBinary } = require('../lib/haproxy-check')
const { checkFuse, buildDelayFs } = require('../storage/check')
const { cachedRuntimes, RUNTIMES } = require('../lib/install/runtime-specs')
const { installRuntime } = require('../lib/install/node-install')
const { PLATFORM } = require('../lib/platform')

// Debian puts daemons and admin tools (sshd, ip, haproxy) in the sbin folders, which a user's PATH may lack.
const SBIN = ['/usr/sbin', '/usr/local/sbin', '/sbin']

// Each distribution's installer: the command that installs packages, and one to run first (apt-get's lists).
const FAMILIES = {
  debian: { tool: 'apt-get', install: ['install', '-y', '-qq'], first: ['update', '-qq'] },
  ubuntu: { tool: 'apt-get', install: ['install', '-y', '-qq'], first: ['update', '-qq'] },
  fedora: { tool: 'dnf', install: ['install', '-y', '-q'] },
  arch: { tool: 'pacman', install: ['-S', '--noconfirm', '--needed'] },
  alpine: { tool: 'apk', install: ['add', '-q'] }
}

const TITLES = { darwin: 'macOS', win32: 'Windows', freebsd: 'FreeBSD' }

/**
 * The distribution family of an os-release file: its ID, else the first of ID_LIKE this table knows.
 * @param {string|null} text /etc/os-release
 * @returns {{ family: string, name: string }} family: a FAMILIES key, debian when nothing is known
 */
function readDistribution (text) {
  const field = (key) => new RegExp(`^${key}=(?:"([^"]*)"|(\\S*))$`, 'm').exec(text ?? '')?.slice(1).find((v) => v !== undefined) ?? ''
  const like = { rhel: 'fedora', centos: 'fedora', rocky: 'fedora', almalinux: 'fedora', manjaro: 'arch', endeavouros: 'arch' }
  const ids = [field('ID'), ...field('ID_LIKE').split(/\s+/)].filter(Boolean).map((id) => like[id] ?? id)
  return { family: ids.find((id) => FAMILIES[id]) ?? 'debian', name: field('PRETTY_NAME') || field('ID') || 'an unknown Linux' }
}

const has = (...names) => (machine) => names.every((name) => machine.find(name))
// A package: its name in each family (ubuntu as debian unless given; null: that family ships no real package, why
// says so), and how to tell it is there.
const pkg = (names, present, why = '') => ({ names: { ubuntu: names.debian, ...names }, present, why })
const same = (name, present) => pkg({ debian: name, fedora: name, arch: name, alpine: name }, present)

/** Each need: what it is for, its packages; essential: what quick needs (the storage slice's delay layer). */
const REQUIREMENTS = [
  {
    for: 'storage latency (the FUSE delay layer)',
    essential: true,
    linux: true,
    packages: [same('fuse3', has('fusermount3')),
      pkg({ debian: 'libfuse3-dev', fedora: 'fuse3-devel', arch: 'fuse3', alpine: 'fuse3-dev' }, (m) => m.pkgConfig('fuse3')),
      pkg({ debian: 'pkg-config', fedora: 'pkgconf-pkg-config', arch: 'pkgconf', alpine: 'pkgconf' }, has('pkg-config')),
      same('gcc', has('cc')), // make and storage/check.js call the compiler cc
      same('make', has('make'))]
  },
  // HAPROXY may name another build (lib/haproxy-check.js): then no package is needed.
  { for: 'the -lb kinds (HAProxy)', linux: true, packages: [same('haproxy', (m) => m.find('haproxy') || (m.env.HAPROXY && haproxyBinary(m.env)))] },
  {
    for: '--hosts=netns (network namespaces)',
    linux: true,
    packages: [pkg({ debian: 'iproute2', fedora: 'iproute', arch: 'iproute2', alpine: 'iproute2' }, has('ip', 'tc'))]
  },
  {
    for: '--storage=cold (the real disk: fio measures it, vmtouch evicts and counts its cached pages)',
    linux: true,
    packages: [same('fio', has('fio')),
      pkg({ debian: 'vmtouch', fedora: 'vmtouch', arch: null, alpine: null }, has('vmtouch'), 'vmtouch is not in its repositories (build it from source)')]
  },
  {
    for: '--profile\'s stacks of every thread and the kernel (perf)',
    linux: true,
    packages: [pkg({ debian: 'linux-perf', ubuntu: `linux-tools-common linux-tools-${os.release()}`, fedora: 'perf', arch: 'perf', alpine: 'perf' },
      has('perf'))]
  },
  {
    for: 'the report\'s browser test (Chromium)',
    packages: [pkg({ debian: 'chromium', ubuntu: null, fedora: 'chromium', arch: 'chromium', alpine: 'chromium', darwin: '--cask chromium' },
      (m) => m.find('chromium') || m.find('chromium-browser'), 'its chromium is a snap, which the browser test cannot drive: that test is skipped')]
  },
  {
    for: 'other hosts over ssh (client)',
    packages: [pkg({ debian: 'openssh-client', fedora: 'openssh-clients', arch: 'openssh', alpine: 'openssh-client', darwin: 'openssh' },
      has('ssh', 'ssh-keygen'))]
  },
  {
    for: 'other hosts over ssh, and their tests (sshd)',
    packages: [pkg({ debian: 'openssh-server', fedora: 'openssh-server', arch: 'openssh', alpine: 'openssh-server', darwin: 'openssh' }, has('sshd'))]
  },
  {
    for: 'the cgroup v2 tests (a User-mode Linux guest)',
    linux: true,
    packages: [pkg({ debian: 'user-mode-linux', fedora: null, arch: null, alpine: null }, has('linux.uml'), 'it ships no User-mode Linux kernel'),
      pkg({ debian: 'e2fsprogs', fedora: 'e2fsprogs', arch: 'e2fsprogs', alpine: 'e2fsprogs' }, has('mkfs.ext4'))]
  }
]

/**
 * A machine as setup sees it: this one by default; the tests replace any part (a PATH of fake tools, root or not).
 * @param {{ env?: object, sbin?: string[], isRoot?: boolean, platform?: string, osRelease?: string|null, fuse?: () => string|null, build?: () => string,
 *   runtimes?: object }} [parts] env: whose PATH is searched (then sbin) and that the installer runs with; osRelease: the text of
 *   /etc/os-release; fuse: why the delay layer cannot mount, or null (storage/check.js checkFuse); build: builds it and returns
 *   its path (buildDelayFs); platform: as lib/platform.js says (off Linux: no distribution, no installs); runtimes:
 *   cached(name) the version of Bun or Deno in .node-cache/ (or null), install(name) puts
 *   the newest there and returns its version, or throws why not
 * @returns {object} env, isRoot, platform, distribution, fuse, build, runtimes, find(name), pkgConfig(module), run(tool, args)
 */
function localMachine ({ env = process.env, sbin = SBIN, isRoot = process.getuid?.() === 0, platform = PLATFORM, osRelease = readOsRelease(),
  fuse = () => checkFuse(env), build = buildDelayFs,
  runtimes = { cached: (name) => cachedRuntimes(name)[0]?.version ?? null, install: (name) => installRuntime(name, '').version } } = {}) {
  const dirs = [env.PATH || '', ...sbin].join(path.delimiter)
  const find = (name) => findOnPath(name, dirs)
  const pkgConfig = (module) => {
    const bin = find('pkg-config')
    return bin !== null && spawnSync(bin, ['--exists', module], { env, stdio: 'ignore' }).status === 0
  }
  // The installer's stdout (a line per unpacked package) is dropped; its stderr says why it failed.
  const run = (tool, args) => spawnSync(find(tool), args, {
    env: { ...env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 256 * 1024 * 1024
  })
  const distribution = platform === 'linux' ? readDistribution(osRelease) : { family: platform, name: `${TITLES[platform] ?? platform} (${platform})` }
  return { env, isRoot, platform, distribution, fuse, build, runtimes, find, pkgConfig, run }
}

function readOsRelease () {
  for (const file of ['/etc/os-release', '/usr/lib/os-release']) {
    try {
      return fs.readFileSync(file, 'utf8')
    } catch {}
  }
  return null
}

/**
 * Each requirement with the packages a machine lacks, named for its distribution (off Linux: those that run there, named
 * as Homebrew names them on macOS).
 * @param {object} machine from localMachine
 * @returns {object[]} REQUIREMENTS' entries, each with missing: [{ name, why }] (name null: no package to install)
 */
function survey (machine) {
  const { family } = machine.distribution
  return REQUIREMENTS.filter((need) => machine.platform === 'linux' || !need.linux).map((need) => ({
    ...need,
    missing: need.packages.filter((p) => !p.present(machine)).map((p) => ({ name: p.names[family], why: p.why }))
  }))
}

/**
 * `setup`, `setup --check`, `setup --strict`.
 * @param {string[]} args after `setup`
 * @returns {{ check: boolean, strict: boolean }}
 * @throws {ConfigError} for anything else
 */
function parseSetupCommand (args) {
  const bad = args.filter((a) => a !== '--check' && a !== '--strict')
  if (bad.length === 0) return { check: args.includes('--check'), strict: args.includes('--strict') }
  throw new ConfigError('setup: use setup (install what is missing), setup --check (only say what is missing) or setup --strict ' +
    `(fail when any install fails, for CI), got ${JSON.stringify(bad.join(' '))}`)
}

const installable = (missing) => missing.filter((p) => p.name)
const names = (missing) => installable(missing).map((p) => p.name).join(' ')
function row (status, need, missing = []) {
  const what = [names(missing), ...missing.filter((p) => !p.name).map((p) => `no package here: ${p.why}`)].filter(Boolean).join('; ')
  return `${status.padEnd(10)} ${need.for}${what ? `: ${what}` : ''}`
}

// The command a person runs where setup cannot install: not root, or no installer.
function installAdvice (machine, missing) {
  const family = FAMILIES[machine.distribution.family]
  if (!machine.find(family.tool)) {
    return `there is no ${family.tool} here (${machine.distribution.name}); install these with its package manager: ${names(missing)}`
  }
  const sudo = machine.isRoot ? '' : 'sudo '
  const first = family.first ? `${sudo}${family.tool} ${family.first[0]} && ` : ''
  const install = family.install.filter((a) => a !== '-qq' && a !== '-q').join(' ')
  return `only root can install packages; run: ${first}${sudo}${family.tool} ${install} ${names(missing)}`
}

// Builds the delay layer where FUSE can mount; a machine without /dev/fuse is a limit no package lifts, said in a note.
function delayLayer (machine, build, print, warn) {
  const why = machine.fuse()
  if (why) {
    print(`${'note'.padEnd(10)} the delay layer cannot mount here, and no package changes that: ${why.replace(/ \([^()]*install[^()]*\)$/, '')}`)
    return 0
  }
  if (!build) return 0
  try {
    print(`${'ready'.padEnd(10)} the delay layer: ${path.relative(ROOT, machine.build())}`)
    return 0
  } catch (err) {
    warn(`setup: ${err.message}`)
    return 1
  }
}

/**
 * Bun and Deno for --runtime, from the npm registry into .node-cache/ (no root needed). One that cannot be had is a
 * note, not a failure: the commands skip that runtime saying why, and everything else runs.
 */
function runtimesStep (machine, check, print) {
  for (const name of ['bun', 'deno']) {
    const what = `--runtime=${name} (${RUNTIMES[name].title}, from the npm registry into .node-cache/)`
    const cached = machine.runtimes.cached(name)
    if (cached || check) {
      print(`${(cached ? 'present' : 'missing').padEnd(10)} ${what}${cached ? `: ${name}-${cached}` : ''}`)
      continue
    }
    try {
      print(`${'installed'.padEnd(10)} ${what}: ${name}-${machine.runtimes.install(name)}`)
    } catch (err) {
      print(`${'note'.padEnd(10)} ${what} cannot be installed: ${err.message}`)
    }
  }
}

const writer = (stream) => (line) => stream.write(`${line}\n`)

/**
 * Runs setup: a line per requirement on stdout (present, missing, installed), what went wrong on stderr.
 * @param {{ check: boolean, strict?: boolean }} todo from parseSetupCommand
 * @param {{ machine?: object, print?: (line: string) => void, warn?: (line: string) => void }} [how]
 * @returns {number} exit status: --check 1 while anything is missing; --strict 1 when anything is still missing after the
 *   installs (or the build failed); else 1 only when what quick needs (the delay layer's packages) is missing
 */
function runSetup ({ check, strict = false }, { machine = localMachine(), print = writer(process.stdout), warn = writer(process.stderr) } = {}) {
  const status = (machine.platform === 'linux' ? packagesStep : elsewhereStep)({ check, strict }, machine, print, warn)
  runtimesStep(machine, check, print)
  return status
}

// The system packages and the delay layer: runSetup's status.
function packagesStep ({ check, strict }, machine, print, warn) {
  print(`${'system'.padEnd(10)} ${machine.distribution.name} (packages as ${machine.distribution.family} names them)`)
  const before = survey(machine)
  const family = FAMILIES[machine.distribution.family]
  const toInstall = before.flatMap((need) => installable(need.missing))
  const canInstall = !check && machine.isRoot && machine.find(family.tool) && toInstall.length > 0
  if (canInstall) installEach(machine, family, before, warn)
  const after = canInstall ? survey(machine) : before
  after.forEach((need, k) => print(row(need.missing.length ? 'missing' : before[k].missing.length ? 'installed' : 'present', need,
    need.missing.length ? need.missing : before[k].missing)))
  const missing = after.flatMap((need) => need.missing)
  const essential = after.some((need) => need.essential && need.missing.length)
  const built = essential ? 0 : delayLayer(machine, !check, print, warn)
  const left = names(missing)
  if (missing.length === 0 && !canInstall) print(check ? 'every requirement is present' : 'nothing to install: every requirement is present')
  if (left && check) print(`missing: ${left} (./run_benchmark.sh setup installs them)`)
  else if (left && !canInstall) warn(`setup: nothing was installed: ${installAdvice(machine, missing)}`)
  else if (left) warn(`setup: still missing after the installs: ${left}`)
  if (check) return missing.length > 0 ? 1 : 0
  return essential || (strict && left) ? 1 : built
}

// Off Linux: what needs Linux in one line, then what runs here checked and named (Homebrew's names on macOS); nothing is
// installed (Homebrew runs as the user who owns it: the line says the command). Exit 0 but for --check or --strict with
// something missing: quick needs none of it.
function elsewhereStep ({ check, strict }, machine, print, warn) {
  print(`${'system'.padEnd(10)} ${machine.distribution.name}: setup, quick, sweep, run, compare and report run here`)
  print(`${'linux'.padEnd(10)} these need Linux, and no package here brings them: ${REQUIREMENTS.filter((r) => r.linux).map((r) => r.for).join('; ')}`)
  const needs = survey(machine)
  for (const need of needs) print(row(need.missing.length ? 'missing' : 'present', need, need.missing))
  const missing = needs.flatMap((need) => need.missing)
  const brew = [...new Set(installable(missing).map((p) => `brew install ${p.name}`))].join(' && ')
  if (missing.length === 0) print('every requirement that runs here is present')
  else if (machine.platform === 'darwin') warn(`setup: nothing was installed; with Homebrew: ${brew}`)
  else warn(`setup: nothing was installed; install them with this system's package manager: ${names(missing)}`)
  return (check || strict) && missing.length > 0 ? 1 : 0
}

// One install per requirement: a package that cannot be had costs only its own capability, said in one line.
function installEach (machine, family, needs, warn) {
  if (family.first) {
    const res = machine.run(family.tool, family.first)
    if (res.status !== 0) warn(`setup: ${family.tool} ${family.first[0]} failed (${why(res)}); installing from the lists there are`)
  }
  for (const need of needs) {
    const list = installable(need.missing).flatMap((p) => p.name.split(' '))
    if (list.length === 0) continue
    warn(`setup: ${family.tool} ${family.install[0]} ${list.join(' ')}`)
    const res = machine.run(family.tool, [...family.install, ...list])
    if (res.status !== 0) warn(`setup: could not install ${list.join(' ')}, so ${need.for} is missing: ${why(res)}`)
  }
}

function why (res) {
  const last = (res.stderr || '').trim().split('\n').filter(Boolean).pop()
  return `${res.error ? res.error.message : `exit ${res.status}`}${last ? `: ${last}` : ''}`
}

if (require.main === module) {
  process.exitCode = runSetup(runMain('sweep/setup.js', () => parseSetupCommand(process.argv.slice(2))))
}

module.exports = { REQUIREMENTS, FAMILIES, readDistribution, localMachine, survey, parseSetupCommand, runSetup }
