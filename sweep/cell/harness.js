'use strict'
// One run of a cell around a fresh server: its data folder (behind the FUSE delay layer when the
// cell has an ioDelay) and config file, its log, the server started (with the cell's libuv and
// cluster settings in its environment, on its cores and host: sweep/cell/placement.js; from a revision's
// worktree for a --rev cell: sweep/plan/revs.js) and stopped, and
// any failure turned into an invalid row.

const fs = require('node:fs')
const path = require('node:path')
const { writeJson, openLog } = require('../results/folder')
const { startServer, serverScript } = require('./server')
const { groupMembers } = require('./process-group')
const { listenMechanism } = require('../../lib/machine/listeners')
const { mountDelayFs } = require('../../storage')
const { writeDataSet, evict } = require('../../storage/cache')
const { makeCgroup } = require('../../storage/cgroup')
const { runBase } = require('../../storage/cgroup-base')
const { placeRun } = require('./placement')
const { KINDS } = require('../../lib/kinds')
const { serverEnv, usesDelayLayer } = require('../../lib/results/dimensions') // serverEnv: the cell's dimensions that reach the server as environment variables
const { remoteServer } = require('../hosts/hosts')
const { openData } = require('../../client/data-host')
const { processCpuUs } = require('../../lib/machine/proc')
const { hasProc, procPath } = require('../../lib/platform')
const { profileEnv, profileSpool, PERF_FLAGS } = require('../../lib/serving/profiler')

/**
 * Starts a fresh server of the cell's kind and config on a fresh data folder (behind the delay
 * layer when the cell has an ioDelay), on its cores and host.
 * @param {{ cell: object, repeat?: number, generation?: number, name?: string, folder?: string }} run without a repeat, the
 *   server serves many rounds: its files are named after the cell alone, or with -gN for its Nth generation from 2; name
 *   and folder (of the results folder, default cells) name its files otherwise (run --profile's runs)
 * @param {{ dir: string, dataRoot: string, options: object, signal: AbortSignal, hosts?: object|null, remote?: object|null }} ctx
 *   hosts: the server's namespace (sweep/cell/placement.js openHosts), null or absent for this host; remote: the
 *   other hosts (sweep/hosts/hosts.js planRemote, with the run's data worker): with a server host, the data folder
 *   and config file are there (dataRoot is the run's folder there) and a copy of the config is in cells/
 * @returns {Promise<{ server: object|null, storage: object|null, placement: object, log: object, dataPath: string,
 *   configFile: string, files: object, error: Error|null, close(): Promise<void> }>} error: why the server
 *   did not start (server null); close() stops and removes everything, whatever happened
 * @throws the abort reason if interrupted, after stopping everything
 */
async function openServer (run, { dir, dataRoot, options, signal, hosts = null, remote = null }) {
  const { cell, repeat, generation = 1, folder = 'cells' } = run
  const name = run.name ?? (repeat !== undefined ? `${cell.id}-r${repeat}` : generation > 1 ? `${cell.id}-g${generation}` : cell.id)
  const files = { csv: `${folder}/${name}.csv`, json: `${folder}/${name}.json`, log: `${folder}/${name}.log` }
  const dataPath = path.join(dataRoot, name)
  const serverConfig = path.join(dataRoot, `${name}.json`)
  const elsewhere = remote?.server ? remoteServer(remote, cell) : null
  const placement = placeRun(cell, hosts, remote)
  const config = { ...cell.config, dataPath, ...(placement.serverHostname && { serverHostname: placement.serverHostname }) }
  // The client's copy of the config, where the client runs: this host.
  const configFile = elsewhere ? path.join(dir, 'cells', `${name}.config.json`) : serverConfig
  if (!elsewhere) fs.mkdirSync(dataPath) // on a server host: made there, first thing below
  writeJson(configFile, config)
  const setEnv = serverEnv(cell)
  const log = openLog(path.join(dir, files.log))
  const settings = Object.entries(setEnv).map(([name, value]) => `${name}=${value}`)
  if (settings.length > 0) log.write(`# server environment: ${settings.join(' ')}\n`)
  const backing = `${dataPath}.backing`
  const opened = { server: null, storage: null, cgroup: null, placement, log, dataPath, configFile, files, remote: Boolean(elsewhere), error: null }
  opened.close = async () => {
    await opened.server?.stop()
    await opened.storage?.unmount() // after the server: it may still hold files open
    const kept = opened.cgroup?.remove()
    if (kept) log.write(`# could not remove the memory cgroup ${opened.cgroup.dir}: ${kept}\n`)
    log.close()
    if (elsewhere && !options.keepData) {
      await remote.data.call('remove', { paths: [dataPath, serverConfig] }).catch(() => {}) // a data worker gone removed them all
    } else if (!options.keepData) {
      fs.rmSync(dataPath, { recursive: true, force: true })
      fs.rmSync(backing, { recursive: true, force: true })
      fs.rmSync(configFile, { force: true })
    }
  }
  let prefix = placement.serverPrefix
  try {
    if (elsewhere) await remote.data.call('make', { dir: dataPath, files: { [serverConfig]: JSON.stringify(config) } })
    if (usesDelayLayer(cell)) fs.mkdirSync(backing)
    // The data set (--fileBytes), written where the server's reads end: the delay layer's backing folder or the data folder.
    if (config.fileBytes > 0 && !elsewhere) await writeDataSet(usesDelayLayer(cell) ? backing : dataPath, config)
    if (cell.storage === 'cold') {
      // Out of the cache before the server reads it, and the server in a memory cgroup of its own from its first instruction.
      await evict(dataPath)
      opened.cgroup = makeCgroup({ base: runBase() })
      prefix = ['/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', opened.cgroup.procs, ...prefix]
      log.write(`# storage: cold, memory cgroup ${opened.cgroup.dir} (v${opened.cgroup.version})\n`)
    }
    if (usesDelayLayer(cell)) {
      const say = (line) => log.write(`# ${line}\n`)
      const ioDelayQd4 = Number.isInteger(cell.ioDelayQd4) ? cell.ioDelayQd4 : null // off: the one delay at every depth
      opened.storage = await mountDelayFs({ backing, mountpoint: dataPath, ioDelay: cell.ioDelay, ioDelayQd4, ioDepth: cell.ioDepth, log: say })
      const qd4 = ioDelayQd4 === null ? '' : `, ${ioDelayQd4} µs at queue depth 4`
      log.write(`# storage: delayfs pid ${opened.storage.pid}, ioDelay ${cell.ioDelay} µs${qd4}, ioDepth ${cell.ioDepth}, backing ${backing}\n`)
    }
    const args = [`--config=${serverConfig}`, ...(KINDS[cell.kind].model === 'lb' && cell.balance ? [`--balance=${cell.balance}`] : [])]
    // Under --profile the servers work in the profiles' folder: Node 26's perf map option also writes V8's log where it runs.
    if (options.profile) {
      fs.mkdirSync(profileSpool(dir), { recursive: true })
      log.write(`# profile: the server starts with the profilers' flags (${PERF_FLAGS.join(' ')}), for the profiled rounds\n`)
    }
    opened.server = await startServer({
      kind: cell.kind, args, env: { ...process.env, ...setEnv, ...(options.profile && profileEnv(profileSpool(dir), process.env)) }, log,
      readyTimeout: options.readyTimeout, signal, cwd: options.profile ? profileSpool(dir) : cell.revDir,
      execPath: cell.runtimeBin, execArgs: cell.runtimeArgs, prefix, ...(cell.revDir && { script: serverScript(cell.kind, cell.revDir) }),
      ...(elsewhere && elsewhere.start(setEnv, args))
    })
    if (!elsewhere) opened.placement.row = { ...opened.placement.row, listenMechanism: mechanismOf(cell.kind, opened.server) }
  } catch (err) {
    if (signal.aborted) {
      await opened.close()
      throw err
    }
    opened.error = err
  }
  return opened
}

/**
 * How the server's processes share its port, read from the kernel once it listens (lib/machine/listeners.js): a runtime's
 * cluster need not be Node's (Bun's binds a socket per worker); HAProxy for the balanced kinds.
 */
function mechanismOf (kind, server) {
  if (KINDS[kind].model === 'lb') return 'HAProxy'
  if (!hasProc()) return null // not measured here
  const pids = groupMembers(server.child.pid).map((m) => m.pid)
  return listenMechanism(server.port, server.child.pid, pids, { procNet: procPath(server.child.pid, 'net') }).mechanism
}

const HERE = openData(null)

/** The run's data files (client/data-host.js): on the server host when there is one, else here. */
const dataOf = (ctx) => ctx.remote?.data ?? HERE

/** The delay layer's counters and its daemon's CPU now, or null for a plain folder. */
const storageNow = async (storage) => storage && { counters: await storage.stats(), cpuUs: processCpuUs(storage.pid) }

/** Why the server is gone, or '' while it runs. */
function serverGone (opened) {
  const child = opened.server.child
  return child.exitCode !== null || child.signalCode !== null ? `server exited during the cell: ${opened.log.lastLine()}` : ''
}

/**
 * Runs `work` against a fresh server of the cell's kind and config (openServer).
 * @param {{ cell: object, repeat: number }} run
 * @param {object} ctx as openServer takes it
 * @param {(s: { server: object, storage: object|null, placement: object, log: object, dataPath: string, configFile: string,
 *   files: object }) => Promise<object>} work
 *   storage: the mounted delay layer (storage/), null for a plain folder; placement: placeRun's
 *   measures the cell; returns row fields, with `reason` set if the cell is invalid
 * @returns {Promise<object>} the row fields, with valid and reason
 * @throws the abort reason if interrupted, after stopping everything
 */
async function withServer (run, ctx, work) {
  const opened = await openServer(run, ctx)
  try {
    if (opened.error) return { ...opened.placement.row, valid: false, reason: opened.error.message }
    const fields = { ...opened.placement.row, ...await work(opened) }
    fields.reason ||= serverGone(opened)
    return { ...fields, valid: !fields.reason, reason: fields.reason || '' }
  } catch (err) {
    if (ctx.signal.aborted) throw err
    return { ...opened.placement.row, valid: false, reason: err.message }
  } finally {
    await opened.close()
  }
}

/**
 * --freshFiles: a cell's data set (--fileBytes) written again, in place, where its server's start wrote it (openServer).
 * @param {object} cell
 * @param {object} opened from openServer
 * @param {object} config the cell's client config (nFiles, fileBytes, value)
 * @returns {Promise<void>}
 */
function rewriteDataSet (cell, opened, config) {
  return writeDataSet(usesDelayLayer(cell) ? opened.storage.backing : opened.dataPath, config)
}

module.exports = { withServer, openServer, serverGone, dataOf, storageNow, rewriteDataSet }
