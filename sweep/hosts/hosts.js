'use strict'
// The other machines of a run (--serverHost, --clientHosts) and `./run_benchmark.sh hosts check`:
// each host reached over ssh (lib/machine/ssh.js) runs sweep/hosts/probe.js from its checkout (at this
// checkout's path, or --remoteDir) and says what it has. A host that cannot be reached, has no
// checkout, a checkout at another commit, or not the Node a cell needs stops the run before any
// cell, with one line naming it.

const path = require('node:path')
const { ROOT, ConfigError, checked, runMain, loadConfig } = require('../../lib/config')
const { HOST_OPTIONS, runRemote, shellQuote, sshArgs, sshBinary, inDir } = require('../../lib/machine/ssh')
const { commit: localCommit } = require('./probe')
const { usesDelayLayer } = require('../../lib/results/dimensions')
const { splitId } = require('../../lib/install/runtime-specs')

/**
 * The hosts a command names, each with its role.
 * @param {{ serverHost?: object, clientHosts?: object[] }} options parsed
 * @returns {{ role: string, host: object }[]}
 */
function hostsOf ({ serverHost, clientHosts = [] }) {
  return [...(serverHost ? [{ role: 'server', host: serverHost }] : []), ...clientHosts.map((host) => ({ role: 'client', host }))]
}

/**
 * Probes one host: what it has, or why it cannot serve the run.
 * @param {object} host from parseHost
 * @param {{ ssh?: string[], remoteDir?: string, versions?: string[], commit?: string|null }} how versions: the
 *   full Node versions the cells run on; commit: this checkout's (a host at another one is refused)
 * @returns {{ ok: true, probe: object, offsetMs: number } | { ok: false, why: string }}
 */
function probeHost (host, { ssh = [], remoteDir = ROOT, versions = [], commit = localCommit() } = {}) {
  const dir = shellQuote(remoteDir)
  const line = `cd ${dir} 2>/dev/null && [ -f sweep/hosts/probe.js ] || { echo no checkout of this project at ${dir} >&2; exit 3; }; ` +
    `command -v node >/dev/null || { echo "no node on PATH" >&2; exit 4; }; exec node sweep/hosts/probe.js ${versions.map(shellQuote).join(' ')}`
  const res = runRemote(host, line, { ssh })
  const received = Date.now()
  const lastLine = (s) => s.trim().split('\n').filter(Boolean).pop() ?? ''
  if (res.error) return { ok: false, why: res.error }
  if (res.status === 255) return { ok: false, why: `cannot be reached over ssh: ${lastLine(res.stderr) || 'ssh exit 255'}` }
  if (res.status !== 0) return { ok: false, why: lastLine(res.stderr) || `the probe exited ${res.status}` }
  let probe
  try {
    probe = JSON.parse(lastLine(res.stdout))
  } catch {
    return { ok: false, why: `the probe printed no JSON: ${JSON.stringify(lastLine(res.stdout).slice(0, 80))}` }
  }
  if (commit && probe.commit !== commit) {
    const theirs = probe.commit?.slice(0, 12) ?? '(not a git checkout)'
    return { ok: false, why: `its checkout at ${remoteDir} is at commit ${theirs}, this one at ${commit.slice(0, 12)}` }
  }
  const missing = versions.filter((v) => !probe.nodes[v])
  if (missing.length > 0) {
    return { ok: false, why: `has no Node ${missing.join(', ')} (its node on PATH is ${probe.node}; ` +
      `./run_benchmark.sh node install ${missing.map((v) => v.slice(1)).join(' ')} there puts it in its .node-cache/)` }
  }
  // The probe read its clock just before printing it: the offset is off by the one-way trip back, no more.
  return { ok: true, probe, offsetMs: Math.round(probe.clockMs - received) }
}

/**
 * Checks every host in turn; throws on the first that fails.
 * @param {object} options serverHost, clientHosts, ssh, remoteDir
 * @param {{ versions?: { server?: string[], client?: string[] }, commit?: string|null }} [how] versions: the Node
 *   versions each role needs
 * @returns {object[]} per host: role, host, probe, offsetMs
 * @throws {ConfigError} "host TEXT (role): why"
 */
function checkHosts (options, { versions = {}, ...how } = {}) {
  return hostsOf(options).map(({ role, host }) => {
    const res = probeHost(host, { ssh: options.ssh, remoteDir: options.remoteDir, ...how, versions: versions[role] ?? [] })
    if (!res.ok) throw new ConfigError(`host ${host.text} (${role}): ${res.why}`)
    return { role, host, ...res }
  })
}

const LOOPBACK = /^(127\.|::1$|localhost$)/

/**
 * The other hosts of a command that runs cells, checked before any cell: refuses what cannot go with
 * them, then every host in turn (checkHosts, with the Node versions the cells and the client need).
 * @param {object} options the command's: serverHost, clientHosts, ssh, remoteDir, hosts, and config's serverHostname
 * @param {{ cells: object[], serverHostname: string, clientVersion: string }} plan clientVersion: the Node every client runs on
 * @returns {object|null} null without other hosts; else { server: { host, nodes }|null, clients: host[]|null, ssh, dir,
 *   checked } (checked: what each host said, for env.json)
 * @throws {ConfigError} one line
 */
function planRemote (options, { cells, serverHostname, clientVersion }) {
  const { serverHost, clientHosts } = options
  if (!serverHost && !clientHosts) return null
  const flag = serverHost ? '--serverHost' : '--clientHosts'
  if (options.hosts !== undefined && options.hosts !== 'local') {
    throw new ConfigError(`${flag} runs on other machines, --hosts=${options.hosts} in namespaces of this one: choose one`)
  }
  const pinned = cells.find((c) => c.cpuset === 'split')
  if (pinned) throw new ConfigError(`--cpuset=${pinned.cpuset} pins cores of this machine; with ${flag} the processes run on others`)
  if (serverHost && options.profile) {
    throw new ConfigError(`--profile profiles servers on this machine; with --serverHost the server runs on ${serverHost.text}`)
  }
  const delayed = serverHost && cells.find(usesDelayLayer)
  if (delayed) throw new ConfigError(`--ioDelay needs the storage layer on this machine; with --serverHost the server writes on ${serverHost.text}`)
  const few = clientHosts && cells.find((c) => c.nClients < clientHosts.length)
  if (few) {
    throw new ConfigError(`--clientHosts names ${clientHosts.length} hosts, but cell ${few.id} has ${few.nClients} client processes: each host needs one`)
  }
  if (clientHosts && !serverHost && LOOPBACK.test(serverHostname) && clientHosts.some((h) => !LOOPBACK.test(h.host))) {
    throw new ConfigError(`--clientHosts without --serverHost: the server runs here, listening on ${serverHostname}, ` +
      'which other hosts cannot reach; --serverHostname=AN_ADDRESS_OF_THIS_MACHINE makes it listen where they can')
  }
  const rows = checkHosts(options, { versions: { server: [...new Set(cells.map((c) => splitId(c.runtime).version))], client: [clientVersion] } })
  return {
    server: serverHost ? { host: serverHost, nodes: rows.find((r) => r.role === 'server').probe.nodes } : null,
    clients: clientHosts ?? null,
    ssh: options.ssh ?? [],
    dir: options.remoteDir ?? ROOT,
    checked: rows.map(({ role, host, probe, offsetMs }) => ({
      role, host: host.text, node: probe.node, commit: probe.commit, cores: probe.cores, freeMemBytes: probe.freeMemBytes, clockOffsetMs: offsetMs
    }))
  }
}

/** A path of this machine's checkout as the same path in the other hosts' checkout, dir (others stay as they are). */
function remotePath (dir, p) {
  const rel = path.relative(ROOT, p)
  return rel.startsWith('..') || path.isAbsolute(rel) ? p : path.join(dir, rel)
}

/**
 * How a cell's server starts on the server host: ssh runs `cd DIR && exec env WATCH_PARENT=stdin VAR=...
 * NODE servers/KIND.js ARGS` there. The server watches its stdin (lib/machine/parent-watch.js), which ends
 * with the ssh session: when the run stops it, and when its control node is killed.
 * @param {object} remote from planRemote
 * @param {{ kind: string, node: string }} cell
 * @returns {{ host: object, start(env: object, args: string[]): { prefix: string[], execPath: string, script: string, args: string[] } }}
 */
function remoteServer (remote, cell) {
  const { host, nodes } = remote.server
  return {
    host,
    start: (env, args) => {
      const vars = Object.entries({ WATCH_PARENT: 'stdin', ...env }).map(([k, v]) => `${k}=${v}`)
      return {
        prefix: [sshBinary() ?? 'ssh', ...sshArgs(host, inDir(remote.dir, ['env', ...vars]), { ssh: remote.ssh })],
        execPath: shellQuote(nodes[splitId(cell.runtime).version]),
        script: shellQuote(path.join(remote.dir, 'servers', `${cell.kind}.js`)),
        args: args.map(shellQuote)
      }
    }
  }
}

/** One line per checked host. */
function hostLine ({ role, host, probe, offsetMs }) {
  const gib = (probe.freeMemBytes / 2 ** 30).toFixed(1)
  return `${host.text}\t${role}\treachable\tNode ${probe.node}\tcommit ${probe.commit?.slice(0, 12) ?? '-'}\t${probe.cores} cores\t` +
    `${gib} GiB free\tclock ${offsetMs >= 0 ? '+' : ''}${offsetMs} ms`
}

/**
 * Ends on every host what a run that is gone left there (sweep/hosts/clean.js run over ssh): processes
 * and folders the project named cbench-remote-, and relays.
 * @returns {Array<{ host: object, ended: object[], removed: string[] }>}
 * @throws {ConfigError} "host TEXT (role): why" for the first host that cannot be cleaned
 */
function cleanHosts (options) {
  const dir = options.remoteDir ?? ROOT
  const dataDir = remotePath(dir, loadConfig([]).config.dataPath)
  return hostsOf(options).map(({ role, host }) => {
    const res = runRemote(host, inDir(dir, ['node', 'sweep/hosts/clean.js', dataDir]), { ssh: options.ssh })
    const last = res.stdout.trim().split('\n').pop()
    if (res.error || res.status !== 0 || !last?.startsWith('{')) {
      const why = res.error ?? (res.status === 255 ? 'cannot be reached over ssh' : `the cleaner exited ${res.status}`)
      throw new ConfigError(`host ${host.text} (${role}): ${why}: ${res.stderr.trim().split('\n').pop() ?? ''}`)
    }
    return { host, ...JSON.parse(last) }
  })
}

/**
 * `hosts check|clean --serverHost=... --clientHosts=... [--ssh=...] [--remoteDir=...]`.
 * @param {string[]} args after `hosts`
 * @returns {{ action: 'check'|'clean', options: object }}
 * @throws {ConfigError}
 */
function parseHostsCommand ([action, ...flags]) {
  if (action !== 'check' && action !== 'clean') {
    const got = action ? `, got ${JSON.stringify(action)}` : ''
    throw new ConfigError(`hosts: use hosts check|clean --serverHost=[user@]host[:port] --clientHosts=HOST,... [--ssh="..."] [--remoteDir=DIR]${got}`)
  }
  const options = {}
  for (const flag of flags) {
    const m = /^--([A-Za-z]+)=(.*)$/s.exec(flag)
    if (!m || !Object.hasOwn(HOST_OPTIONS, m[1])) {
      throw new ConfigError(`hosts ${action}: unknown flag ${JSON.stringify(flag)}; it takes --${Object.keys(HOST_OPTIONS).join('=, --')}=`)
    }
    options[m[1]] = checked(`--${m[1]}`, HOST_OPTIONS[m[1]], m[2])
  }
  if (!options.serverHost && !options.clientHosts) throw new ConfigError(`hosts ${action}: name the hosts with --serverHost and/or --clientHosts`)
  return { action, options }
}

/** Runs `hosts check` or `hosts clean`: a line per host on stdout; the first failure exits 2 with a line naming it. */
function runHostsCommand ({ action, options }) {
  if (action === 'clean') {
    for (const { host, ended, removed } of runMain('run_benchmark.sh', () => cleanHosts(options))) {
      process.stdout.write(`${host.text}\tended ${ended.length} processes${ended.length ? ` (pids ${ended.map((p) => p.pid).join(' ')})` : ''}\t` +
        `removed ${removed.length} folders${removed.length ? ` (${removed.join(' ')})` : ''}\n`)
    }
    return 0
  }
  const rows = runMain('run_benchmark.sh', () => checkHosts(options)) // exits 2 naming the first host that fails
  for (const row of rows) process.stdout.write(`${hostLine(row)}\n`)
  return 0
}

module.exports = { probeHost, localCommit, planRemote, remotePath, remoteServer, parseHostsCommand, runHostsCommand }
