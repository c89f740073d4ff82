'use strict'
// Other machines over OpenSSH: a host as `[user@]host[:port]`, the `ssh` command line that reaches it
// (BatchMode, so it never prompts; the user's --ssh words and ~/.ssh/config apply), and a command
// run there with its output. The remote side needs only the project's checkout and Node.

const { spawnSync } = require('node:child_process')
const { rule, refuse } = require('../config')
const { findOnPath } = require('../find-on-path')

const HOST_FORM = '[user@]host[:port] (host a name, an IPv4 address or [IPv6])'
const INSTALL = './run_benchmark.sh setup, or apt-get install -y openssh-client'
const CONNECT_TIMEOUT_S = 5

/**
 * Parses one host (a lib/config.js validator).
 * @param {string} text [user@]host[:port]
 * @returns {{ text: string, user: string|null, host: string, port: number|null }}
 */
function parseHost (text) {
  const m = /^(?:([A-Za-z_][A-Za-z0-9_.-]*)@)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::(\d{1,5}))?$/.exec(String(text))
  if (!m) refuse(`must be ${HOST_FORM}`)
  const port = m[3] === undefined ? null : Number(m[3])
  if (port !== null && (port < 1 || port > 65535)) refuse(`must be ${HOST_FORM}; its port must be from 1 to 65535`)
  return { text, user: m[1] ?? null, host: m[2].replace(/^\[|\]$/g, ''), port }
}
parseHost.takes = HOST_FORM

/** A comma list of hosts (a lib/config.js validator). */
const parseHostList = rule(`a comma list of ${HOST_FORM}`, (v) => {
  const parts = String(v).split(',')
  if (parts.some((p) => p === '')) return undefined
  return parts.map(parseHost)
})

/**
 * Splits --ssh into words as a shell would: spaces separate, single and double quotes group.
 * @param {string} text
 * @returns {string[]}
 */
function sshWords (text) {
  const words = []
  let word = null
  let quote = null
  for (const ch of String(text)) {
    if (quote) {
      if (ch === quote) quote = null
      else word += ch
    } else if (ch === '"' || ch === "'") {
      quote = ch
      word ??= ''
    } else if (/\s/.test(ch)) {
      if (word !== null) words.push(word)
      word = null
    } else {
      word = (word ?? '') + ch
    }
  }
  if (quote) refuse(`must be options for ssh, with every quote closed (an unclosed ${quote})`)
  if (word !== null) words.push(word)
  return words
}
const parseSshOptions = Object.assign((v) => sshWords(v), { takes: 'options for ssh, e.g. "-i KEY" (quotes group words)' })

const absolute = rule('an absolute path', (v) => (typeof v === 'string' && v.startsWith('/') ? v : undefined))
/** The flags that name other hosts, as lib/config.js validators (hosts check, the commands that run cells, node client). */
const HOST_OPTIONS = { serverHost: parseHost, clientHosts: parseHostList, ssh: parseSshOptions, remoteDir: absolute }

/** A word quoted for the remote shell. */
const shellQuote = (word) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${String(word).replace(/'/g, "'\\''")}'`)

/** The shell line that runs a command (words, quoted here) in a folder of the host. */
const inDir = (dir, words) => `cd ${shellQuote(dir)} && exec ${words.map(shellQuote).join(' ')}`

/**
 * The ssh command line that runs a shell line on a host.
 * @param {{ user: string|null, host: string, port: number|null }} host
 * @param {string} line for the remote shell (shellQuote quotes a word for it)
 * @param {{ ssh?: string[] }} [how] ssh: the --ssh words
 * @returns {string[]} ssh's arguments
 */
function sshArgs (host, line, { ssh = [] } = {}) {
  return ['-o', 'BatchMode=yes', '-o', `ConnectTimeout=${CONNECT_TIMEOUT_S}`, '-o', 'ServerAliveInterval=5', '-o', 'ServerAliveCountMax=3',
    ...(host.port ? ['-p', String(host.port)] : []), ...ssh, '--', host.user ? `${host.user}@${host.host}` : host.host, line]
}

/** The ssh binary, or null when there is none. */
function sshBinary () {
  return findOnPath('ssh', process.env.PATH || '')
}

/**
 * Runs a shell line on a host and waits for it.
 * @param {object} host from parseHost
 * @param {string} line
 * @param {{ ssh?: string[], timeoutMs?: number }} [how]
 * @returns {{ status: number|null, stdout: string, stderr: string, error: string|null }} error: why it
 *   could not run or finish (no ssh, a timeout)
 */
function runRemote (host, line, { ssh = [], timeoutMs = 30000 } = {}) {
  const bin = sshBinary()
  if (!bin) return { status: null, stdout: '', stderr: '', error: `ssh is not installed (${INSTALL})` }
  const res = spawnSync(bin, sshArgs(host, line, { ssh }), { encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'] })
  const error = res.error ? (res.error.code === 'ETIMEDOUT' ? `no answer within ${timeoutMs / 1000} s` : res.error.message) : null
  return { status: res.status, stdout: res.stdout ?? '', stderr: res.stderr ?? '', error }
}

module.exports = { HOST_OPTIONS, sshBinary, parseHost, parseHostList, sshWords, sshArgs, shellQuote, inDir, runRemote }
