'use strict'
// `./run_benchmark.sh setup [--check]`: the system packages the optional capabilities need, each checked on this machine;
// as root with apt-get, setup installs the missing ones and builds the delay layer; then it puts Bun and Deno (for
// --runtime) into .node-cache/ from the npm registry. It needs no npm dependency, so it also runs as
// `node sweep/setup.js [--check]` before `npm ci`.

const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { ConfigError, runMain, ROOT } = require('../lib/config')
const { findOnPath } = require('../lib/find-on-path')
const { haproxyBinary } = require('../lib/haproxy-check')
const { checkFuse, buildDelayFs } = require('../storage/check')
const { cachedRuntimes, RUNTIMES } = require('../lib/runtimes')
const { installRuntime } = require('../lib/node-install')

// Debian puts daemons and admin tools (sshd, ip, haproxy) in the sbin folders, which a user's PATH may lack.
const SBIN = ['/usr/sbin', '/usr/local/sbin', '/sbin']

const pkg = (debian, dnf, present) => ({ debian, dnf, present })
const tools = (...names) => (machine) => names.every((name) => machine.find(name))

/** Each need: what it is for, and its packages (Debian and Fedora names) with how to tell each is there on a machine. */
const REQUIREMENTS = [
  {
    for: 'storage latency (the FUSE delay layer)',
    delayLayer: true,
    packages: [pkg('fuse3', 'fuse3', tools('fusermount3')), pkg('libfuse3-dev', 'fuse3-devel', (m) => m.pkgConfig('fuse3')),
      pkg('pkg-config', 'pkgconf-pkg-config', tools('pkg-config')),
      pkg('gcc', 'gcc', tools('cc')), // make and storage/check.js call the compiler cc
      pkg('make', 'make', tools('make'))]
  },
  // HAPROXY may name another build (lib/haproxy-check.js): then no package is needed.
  { for: 'the -lb kinds (HAProxy)', packages: [pkg('haproxy', 'haproxy', (m) => m.find('haproxy') || (m.env.HAPROXY && haproxyBinary(m.env)))] },
  { for: '--hosts=netns (network namespaces)', packages: [pkg('iproute2', 'iproute', tools('ip', 'tc'))] },
  { for: '--storage=cold (the real disk: fio measures it, vmtouch evicts and counts its cached pages)',
    packages: [pkg('fio', 'fio', tools('fio')), pkg('vmtouch', 'vmtouch', tools('vmtouch'))] },
  { for: '--profile\'s stacks of every thread and the kernel (perf)', packages: [pkg('linux-perf', 'perf', tools('perf'))] },
  { for: 'the report\'s browser test (Chromium)', packages: [pkg('chromium', 'chromium', tools('chromium'))] },
  { for: 'other hosts over ssh (client)', packages: [pkg('openssh-client', 'openssh-clients', tools('ssh', 'ssh-keygen'))] },
  { for: 'other hosts over ssh, and their tests (sshd)', packages: [pkg('openssh-server', 'openssh-server', tools('sshd'))] }
]

/**
 * A machine as setup sees it: this one by default; the tests replace any part (a PATH of fake tools, root or not).
 * @param {{ env?: object, sbin?: string[], isRoot?: boolean, fuse?: () => string|null, build?: () => string, runtimes?: object }} [parts]
 *   env: whose PATH is searched (then sbin) and that apt-get runs with; fuse: why the delay layer cannot mount, or null
 *   (storage/check.js checkFuse); build: builds it and returns its path (buildDelayFs); runtimes: cached(name) the version of
 *   Bun or Deno in .node-cache/ (or null), install(name) puts the newest there and returns its version, or throws why not
 * @returns {object} env, isRoot, fuse, build, runtimes, find(name), pkgConfig(module), run(tool, args)
 */
function localMachine ({ env = process.env, sbin = SBIN, isRoot = process.getuid?.() === 0, fuse = () => checkFuse(env), build = buildDelayFs,
  runtimes = { cached: (name) => cachedRuntimes(name)[0]?.version ?? null, install: (name) => installRuntime(name, '').version } } = {}) {
  const dirs = [env.PATH || '', ...sbin].join(path.delimiter)
  const find = (name) => findOnPath(name, dirs)
  const pkgConfig = (module) => {
    const bin = find('pkg-config')
    return bin !== null && spawnSync(bin, ['--exists', module], { env, stdio: 'ignore' }).status === 0
  }
  // apt-get's stdout (a line per unpacked package) is dropped, as .ci/run did; its stderr says why it failed.
  const run = (tool, args) => spawnSync(find(tool), args, {
    env: { ...env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 256 * 1024 * 1024
  })
  return { env, isRoot, fuse, build, runtimes, find, pkgConfig, run }
}

/**
 * Each requirement with the packages a machine lacks.
 * @param {object} machine from localMachine
 * @returns {object[]} REQUIREMENTS' entries, each with `missing`: its packages that are not there
 */
function survey (machine) {
  return REQUIREMENTS.map((need) => ({ ...need, missing: need.packages.filter((p) => !p.present(machine)) }))
}

/**
 * `setup` or `setup --check`.
 * @param {string[]} args after `setup`
 * @returns {{ check: boolean }}
 * @throws {ConfigError} for anything else
 */
function parseSetupCommand (args) {
  if (args.length === 0 || (args.length === 1 && args[0] === '--check')) return { check: args.length === 1 }
  throw new ConfigError(`setup: use setup (install what is missing) or setup --check (only say what is missing), got ${JSON.stringify(args.join(' '))}`)
}

const names = (packages, key = 'debian') => packages.map((p) => p[key]).join(' ')
const row = (status, need, packages = []) => `${status.padEnd(10)} ${need.for}${packages.length ? `: ${names(packages)}` : ''}`

// The command a person runs where setup cannot install: not root, or no apt-get.
function installAdvice (machine, missing) {
  const sudo = machine.isRoot ? '' : 'sudo '
  if (machine.find('apt-get')) return `only root can install packages; run: ${sudo}apt-get update && ${sudo}apt-get install -y ${names(missing)}`
  if (machine.find('dnf')) return `setup installs with apt-get, this machine has dnf; run: ${sudo}dnf install -y ${names(missing, 'dnf')}`
  return `there is no apt-get or dnf here; install these packages (their Debian names) with this system's package manager: ${names(missing)}`
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
 * @param {{ check: boolean }} todo from parseSetupCommand
 * @param {{ machine?: object, print?: (line: string) => void, warn?: (line: string) => void }} [how]
 * @returns {number} exit status: 0 all present (or installed), 1 something missing, or apt-get or the build failed
 */
function runSetup ({ check }, { machine = localMachine(), print = writer(process.stdout), warn = writer(process.stderr) } = {}) {
  const status = packagesStep(check, machine, print, warn)
  runtimesStep(machine, check, print)
  return status
}

// The system packages and the delay layer: runSetup's status.
function packagesStep (check, machine, print, warn) {
  const before = survey(machine)
  const missing = before.flatMap((need) => need.missing)
  if (check || missing.length === 0 || !machine.isRoot || !machine.find('apt-get')) {
    for (const need of before) print(row(need.missing.length ? 'missing' : 'present', need, need.missing))
    // The note on FUSE as soon as its packages are there; the build only when setup has nothing left to do.
    const fuseReady = before.every((need) => !need.delayLayer || need.missing.length === 0)
    const built = fuseReady ? delayLayer(machine, !check && missing.length === 0, print, warn) : 0
    if (missing.length === 0) {
      print(check ? 'every requirement is present' : 'nothing to install: every requirement is present')
      return built
    }
    if (check) print(`missing: ${names(missing)} (./run_benchmark.sh setup installs them)`)
    else warn(`setup: nothing was installed: ${installAdvice(machine, missing)}`)
    return 1
  }
  warn(`setup: apt-get install -y -qq ${names(missing)} (this may take minutes)`)
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', ...missing.map((p) => p.debian)]]) {
    const res = machine.run('apt-get', args)
    if (res.status !== 0) {
      const tail = (res.stderr || '').trim().split('\n').slice(-5).join('\n')
      warn(`setup: apt-get ${args[0]} failed (${res.error ? res.error.message : `exit ${res.status}`})${tail ? `:\n${tail}` : ''}`)
      return 1
    }
  }
  const after = survey(machine)
  after.forEach((need, k) => print(row(need.missing.length ? 'missing' : before[k].missing.length ? 'installed' : 'present', need,
    need.missing.length ? need.missing : before[k].missing)))
  const still = after.flatMap((need) => need.missing)
  if (still.length > 0) {
    warn(`setup: apt-get installed, yet these are still missing: ${names(still)}`)
    return 1
  }
  return delayLayer(machine, true, print, warn)
}

if (require.main === module) {
  process.exitCode = runSetup(runMain('sweep/setup.js', () => parseSetupCommand(process.argv.slice(2))))
}

module.exports = { REQUIREMENTS, localMachine, survey, parseSetupCommand, runSetup }
