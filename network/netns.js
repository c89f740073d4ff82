'use strict'
// --hosts=netns: the server side in a network namespace of its own, joined to this one by a veth
// pair, with a round trip added by netem. Everything is named cbench-<owner pid> (the namespace)
// and cbh<owner pid> (the link), so that only our own are ever removed: at the end, by a guard
// process if the owner is killed, and at the next start if even that failed.

const { spawn, spawnSync } = require('node:child_process')
const path = require('node:path')
const { findOnPath } = require('../lib/find-on-path')
const { isAlive } = require('../lib/machine/proc')
const { hasProc, LINUX_ONLY } = require('../lib/platform')

const NS_PREFIX = 'cbench-'
const LINK_PREFIX = 'cbh' // + pid: at most 10 of the 15 characters a link name may have
const NS_LINK = 'cbench0' // the server's end, inside the namespace
const INSTALL = './run_benchmark.sh setup, or apt-get install -y iproute2'
const SUBNETS = 16384 // /30 blocks of 10.213.0.0/16
const NETEM_LIMIT = 100000 // packets netem may hold: far above what a cell has in flight

const tool = (name) => findOnPath(name, [process.env.PATH || '', '/usr/sbin', '/sbin'].join(path.delimiter))

/** Runs a command; returns null on success, else its last line of error. */
function run (cmd, args) {
  const res = spawnSync(tool(cmd) || cmd, args, { encoding: 'utf8' })
  if (res.status === 0) return null
  return (res.error ? res.error.message : `${res.stderr}`.trim().split('\n').pop()) || `exit ${res.status}`
}

function must (cmd, args) {
  const why = run(cmd, args)
  if (why) throw new Error(`${cmd} ${args.join(' ')}: ${why}`)
}

/**
 * Says whether this user can make network namespaces here.
 * @returns {string|null} null when it can, else one line why not
 */
function checkNetns () {
  if (!hasProc()) return LINUX_ONLY.netns
  for (const cmd of ['ip', 'tc']) if (!tool(cmd)) return `${cmd} is not installed: --hosts=netns needs it (${INSTALL})`
  if (process.getuid && process.getuid() !== 0) return 'network namespaces need root (CAP_SYS_ADMIN and CAP_NET_ADMIN): run as root, or use --hosts=local'
  return null
}

// The /30 for an owner: the client's and the server's address, clear of any address in use.
function addresses (pid) {
  const used = spawnSync(tool('ip') || 'ip', ['-o', '-4', 'addr'], { encoding: 'utf8' }).stdout || ''
  for (let k = 0; k < SUBNETS; k++) {
    const block = (pid + k) % SUBNETS
    const base = `10.213.${block >> 6}.${(block & 63) * 4}`
    const [a, b, c, d] = base.split('.').map(Number)
    const client = `${a}.${b}.${c}.${d + 1}`
    const server = `${a}.${b}.${c}.${d + 2}`
    if (!used.includes(` ${client}/`) && !used.includes(` ${server}/`)) return { client, server }
  }
  throw new Error('no free /30 in 10.213.0.0/16')
}

/** Removes the namespace and link of an owner pid; returns what failed, if anything. */
function removeHosts (pid) {
  const link = `${LINK_PREFIX}${pid}`
  const problems = []
  if (listLinks().includes(link)) problems.push(run('ip', ['link', 'del', link]))
  if (listNamespaces().includes(`${NS_PREFIX}${pid}`)) problems.push(run('ip', ['netns', 'del', `${NS_PREFIX}${pid}`]))
  return problems.filter(Boolean)
}

function listNamespaces () {
  const out = spawnSync(tool('ip') || 'ip', ['netns', 'list'], { encoding: 'utf8' }).stdout || ''
  return out.split('\n').map((line) => line.split(' ')[0]).filter(Boolean)
}

function listLinks () {
  const out = spawnSync(tool('ip') || 'ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).stdout || ''
  return out.split('\n').map((line) => (/^\d+: ([^:@]+)/.exec(line) || [])[1]).filter(Boolean)
}

/**
 * Creates the server's namespace and the veth pair, and starts a guard process that removes them
 * if this process dies without doing so.
 * @returns {{ name: string, link: string, client: string, server: string, prefix: string[], netem: boolean,
 *   netemProblem: string|null, setRtt(ms: number): void, remove(): string[] }} prefix: the command that
 *   runs a program in the namespace; netem: whether setRtt can work here; remove() returns what failed
 * @throws {Error} naming the command that failed, after removing what was made
 */
function createHosts () {
  const pid = process.pid
  const name = `${NS_PREFIX}${pid}`
  const link = `${LINK_PREFIX}${pid}`
  removeHosts(pid)
  const { client, server } = addresses(pid)
  try {
    must('ip', ['netns', 'add', name])
    must('ip', ['link', 'add', link, 'type', 'veth', 'peer', 'name', NS_LINK, 'netns', name])
    must('ip', ['addr', 'add', `${client}/30`, 'dev', link])
    must('ip', ['link', 'set', link, 'up'])
    must('ip', ['-n', name, 'addr', 'add', `${server}/30`, 'dev', NS_LINK])
    must('ip', ['-n', name, 'link', 'set', NS_LINK, 'up'])
    must('ip', ['-n', name, 'link', 'set', 'lo', 'up'])
  } catch (err) {
    removeHosts(pid)
    throw err
  }
  // Some kernels are built without netem (CONFIG_NET_SCH_NETEM): then the round trip needs a relay.
  const netemProblem = run('tc', ['qdisc', 'add', 'dev', link, 'root', 'netem', 'delay', '1ms'])
  if (!netemProblem) run('tc', ['qdisc', 'del', 'dev', link, 'root'])
  const guard = spawn(process.execPath, [path.join(__dirname, 'netns-guard.js'), String(pid)], { detached: true, stdio: ['pipe', 'ignore', 'inherit'] })
  guard.unref()
  guard.stdin.on('error', () => {})
  let removed = null
  return {
    name,
    link,
    client,
    server,
    prefix: [tool('ip'), 'netns', 'exec', name],
    netem: !netemProblem,
    netemProblem,
    setRtt (ms) {
      // Half of the round trip on each side's way out, so both directions wait alike.
      for (const args of [['qdisc', 'del', 'dev', link, 'root'], ['-n', name, 'qdisc', 'del', 'dev', NS_LINK, 'root']]) run('tc', args)
      if (ms === 0) return
      const delay = ['root', 'netem', 'delay', `${ms / 2}ms`, 'limit', String(NETEM_LIMIT)]
      must('tc', ['qdisc', 'add', 'dev', link, ...delay])
      must('tc', ['-n', name, 'qdisc', 'add', 'dev', NS_LINK, ...delay])
    },
    remove () {
      removed ||= removeHosts(pid)
      guard.stdin.end('x') // removed: the guard leaves without removing (a later namespace of this pid is not its)
      return removed
    }
  }
}

/**
 * Removes namespaces and links whose owner process is gone.
 * @param {function(string): void} log one line per owner
 * @returns {number[]} the owner pids cleaned
 */
function cleanStaleHosts (log) {
  if (!hasProc() || !tool('ip')) return []
  const owners = new Set()
  for (const ns of listNamespaces()) if (new RegExp(`^${NS_PREFIX}\\d+$`).test(ns)) owners.add(Number(ns.slice(NS_PREFIX.length)))
  for (const l of listLinks()) if (new RegExp(`^${LINK_PREFIX}\\d+$`).test(l)) owners.add(Number(l.slice(LINK_PREFIX.length)))
  const cleaned = []
  for (const pid of owners) {
    if (isAlive(pid)) continue
    const failed = removeHosts(pid)
    log(failed.length ? `could not remove namespace ${NS_PREFIX}${pid} of a run that is gone: ${failed.join('; ')}`
      : `removed namespace ${NS_PREFIX}${pid} and link ${LINK_PREFIX}${pid}, left by a run (pid ${pid}) that is gone`)
    if (!failed.length) cleaned.push(pid)
  }
  return cleaned
}

module.exports = { checkNetns, createHosts, removeHosts, cleanStaleHosts, listNamespaces, listLinks }
