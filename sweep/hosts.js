'use strict'
// The other machines of a run (--serverHost, --clientHosts) and `./run_benchmark.sh hosts check`:
// each host reached over ssh (lib/ssh.js) runs sweep/host-probe.js from its checkout (at this
// checkout's path, or --remoteDir) and says what it has. A host that cannot be reached, has no
// checkout, a checkout at another commit, or not the Node a cell needs stops the run before any
// cell, with one line naming it.

const { ROOT, ConfigError, checked, rule, runMain } = require('../lib/config')
const { parseHost, parseHostList, parseSshOptions, runRemote, shellQuote } = require('../lib/ssh')
const { commit: localCommit } = require('./host-probe')

/** The flags of the hosts, as lib/config.js validators. */
const absolute = rule('an absolute path', (v) => (typeof v === 'string' && v.startsWith('/') ? v : undefined))
const HOST_OPTIONS = { serverHost: parseHost, clientHosts: parseHostList, ssh: parseSshOptions, remoteDir: absolute }

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
  const line = `cd ${dir} 2>/dev/null && [ -f sweep/host-probe.js ] || { echo no checkout of this project at ${dir} >&2; exit 3; }; ` +
    `command -v node >/dev/null || { echo "no node on PATH" >&2; exit 4; }; exec node sweep/host-probe.js ${versions.map(shellQuote).join(' ')}`
  const sent = Date.now()
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
  return { ok: true, probe, offsetMs: Math.round(probe.clockMs - (sent + received) / 2) }
}

/**
 * Checks every host in turn; throws on the first that fails.
 * @returns {object[]} per host: role, host, probe, offsetMs
 * @throws {ConfigError} "host TEXT (role): why"
 */
function checkHosts (options, how = {}) {
  return hostsOf(options).map(({ role, host }) => {
    const res = probeHost(host, { ssh: options.ssh, remoteDir: options.remoteDir, ...how })
    if (!res.ok) throw new ConfigError(`host ${host.text} (${role}): ${res.why}`)
    return { role, host, ...res }
  })
}

/** One line per checked host. */
function hostLine ({ role, host, probe, offsetMs }) {
  const gib = (probe.freeMemBytes / 2 ** 30).toFixed(1)
  return `${host.text}\t${role}\treachable\tNode ${probe.node}\tcommit ${probe.commit?.slice(0, 12) ?? '-'}\t${probe.cores} cores\t` +
    `${gib} GiB free\tclock ${offsetMs >= 0 ? '+' : ''}${offsetMs} ms`
}

/**
 * `hosts check --serverHost=... --clientHosts=... [--ssh=...] [--remoteDir=...]`.
 * @param {string[]} args after `hosts`
 * @returns {{ action: 'check', options: object }}
 * @throws {ConfigError}
 */
function parseHostsCommand ([action, ...flags]) {
  if (action !== 'check') {
    const got = action ? `, got ${JSON.stringify(action)}` : ''
    throw new ConfigError(`hosts: use hosts check --serverHost=[user@]host[:port] --clientHosts=HOST,... [--ssh="..."] [--remoteDir=DIR]${got}`)
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

/** Runs `hosts check`: a line per host on stdout; the first failure is thrown. */
function runHostsCommand ({ options }) {
  const rows = runMain('run_benchmark.sh', () => checkHosts(options)) // exits 2 naming the first host that fails
  for (const row of rows) process.stdout.write(`${hostLine(row)}\n`)
  return 0
}

module.exports = { HOST_OPTIONS, probeHost, localCommit, parseHostsCommand, runHostsCommand }
