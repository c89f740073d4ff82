'use strict'
// Where a run's processes go: --hosts=netns puts the server side in its own network namespace
// (network/netns.js) and --rtt adds a round trip between the client and it (netem, or a relay
// for every rtt where the kernel has none); --cpuset=split pins the server side and the client to disjoint cores.

const { checkNetns, createHosts, cleanStaleHosts } = require('../../network/netns')
const { startDelayProxy } = require('../../network/delay-proxy')
const { planCpuset, pinPrefix, checkCpuset, cpuList } = require('../../lib/machine/cpuset')
const { oneOf } = require('../../lib/config')

const HOSTS = ['local', 'netns']

/** Validator of --hosts. */
const hostsOption = oneOf(...HOSTS)

/**
 * Why the placement a plan asks for cannot be had here, or null: a round trip without a separate
 * host, split cores where there are fewer than two, namespaces where they cannot be made.
 * @param {{ hosts: string, rtts: number[], cpusets: string[] }} asked
 * @returns {string|null} one line
 */
function placementProblem ({ hosts, rtts, cpusets }) {
  if (hosts !== 'netns' && rtts.some((ms) => ms > 0)) {
    return `--rtt above 0 needs --hosts=netns (a round trip between two hosts), got --rtt=${rtts.join(',')} with --hosts=${hosts}`
  }
  if (cpusets.includes('split')) {
    const why = checkCpuset()
    if (why) return why
  }
  if (hosts === 'netns') {
    const why = checkNetns()
    if (why) return `--hosts=netns: ${why}`
  }
  return null
}

/**
 * The server's namespace for a whole plan, after removing any an earlier, killed run left.
 * @param {string} hosts local or netns
 * @param {function(string): void} log
 * @returns {object|null} from network/netns.js createHosts, null for local
 * @throws {Error} saying why the namespace cannot be made
 */
function openHosts (hosts, log) {
  cleanStaleHosts(log)
  if (hosts !== 'netns') return null
  try {
    return createHosts()
  } catch (err) {
    throw new Error(`--hosts=netns: cannot make a network namespace here: ${err.message}`)
  }
}

/**
 * How to start one run's server and client.
 * @param {{ cpuset?: string }} cell
 * @param {object|null} hosts from openHosts
 * @param {object|null} [remote] the other hosts (sweep/hosts/hosts.js planRemote): the server's address is its host's
 * @returns {{ serverPrefix: string[], clientPrefix: string[], serverHostname: string|null, row: object }}
 *   row: the summary columns cpuset, serverCpus, clientCpus, hosts (local, netns or ssh) and serverHost
 */
function placeRun (cell, hosts, remote = null) {
  if (remote) {
    return {
      serverPrefix: [],
      clientPrefix: [],
      serverHostname: remote.server?.host.host ?? null,
      row: { cpuset: 'shared', serverCpus: '', clientCpus: '', hosts: 'ssh', serverHost: remote.server?.host.text ?? '' }
    }
  }
  const cores = planCpuset(cell.cpuset || 'shared')
  return {
    serverPrefix: [...(hosts ? hosts.prefix : []), ...pinPrefix(cores.mode, cores.server)],
    clientPrefix: pinPrefix(cores.mode, cores.client),
    serverHostname: hosts ? hosts.server : null,
    row: { cpuset: cores.mode, serverCpus: cpuList(cores.server), clientCpus: cpuList(cores.client), hosts: hosts ? 'netns' : 'local' }
  }
}

/**
 * The address the client uses for a run, with the cell's round trip set up; close() undoes it.
 * @param {object|null} hosts from openHosts
 * @param {number} rtt ms
 * @param {number} port the server's port
 * @returns {Promise<{ host: string|null, port: number, fields(): object, close(): Promise<object> }>} host null:
 *   the config's; fields() gives the row's rttMethod and rttMeasuredUs so far, close() them at the end
 */
async function connectRun (hosts, rtt, port) {
  if (!hosts) return { host: null, port, fields: () => ({}), close: async () => ({}) }
  if (hosts.netem) {
    hosts.setRtt(rtt)
    return { host: hosts.server, port, fields: () => ({ rttMethod: 'netem' }), close: async () => ({ rttMethod: 'netem' }) }
  }
  // Every round trip through the relay, 0 included, so that its own cost is alike in all of them.
  const relay = await startDelayProxy({ host: hosts.client, target: { host: hosts.server, port }, delayMs: rtt })
  const fields = () => ({ rttMethod: 'relay', rttMeasuredUs: relay.stats().meanDelayUs ?? '' })
  return {
    host: hosts.client,
    port: relay.port,
    fields,
    close: async () => {
      await relay.close()
      return fields()
    }
  }
}

module.exports = { placementProblem, openHosts, placeRun, connectRun, hostsOption }
