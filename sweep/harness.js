'use strict'
// One run of a cell around a fresh server: its data folder (behind the FUSE delay layer when the
// cell has an ioDelay) and config file, its log, the server started (with the cell's libuv and
// cluster settings in its environment, on its cores and host: sweep/placement.js) and stopped, and
// any failure turned into an invalid row.

const fs = require('node:fs')
const path = require('node:path')
const { writeJson, openLog } = require('./results')
const { startServer } = require('./server')
const { mountDelayFs } = require('../storage')
const { placeRun } = require('./placement')
const { KINDS } = require('../lib/kinds')

// The cell fields the server gets as environment variables, when the cell has them.
const ENV_OF_CELL = { uvThreadpoolSize: 'UV_THREADPOOL_SIZE', uvUseIoUring: 'UV_USE_IO_URING', schedPolicy: 'NODE_CLUSTER_SCHED_POLICY' }

function serverEnv (cell) {
  const set = Object.entries(ENV_OF_CELL).filter(([field]) => cell[field] !== undefined)
  return Object.fromEntries(set.map(([field, name]) => [name, String(cell[field])]))
}

/**
 * Runs `work` against a fresh server of the cell's kind and config.
 * @param {{ cell: object, repeat: number }} run
 * @param {{ dir: string, dataRoot: string, options: object, signal: AbortSignal, hosts?: object|null }} ctx hosts:
 *   the server's namespace (sweep/placement.js openHosts), null or absent for this host
 * @param {(s: { server: object, storage: object|null, placement: object, log: object, dataPath: string, configFile: string, files: object }) => Promise<object>} work
 *   storage: the mounted delay layer (storage/), null for a plain folder; placement: placeRun's
 *   measures the cell; returns row fields, with `reason` set if the cell is invalid
 * @returns {Promise<object>} the row fields, with valid and reason
 * @throws the abort reason if interrupted, after stopping everything
 */
async function withServer ({ cell, repeat }, { dir, dataRoot, options, signal, hosts = null }, work) {
  const name = `${cell.id}-r${repeat}`
  const files = { csv: `cells/${name}.csv`, json: `cells/${name}.json`, log: `cells/${name}.log` }
  const dataPath = path.join(dataRoot, name)
  const configFile = path.join(dataRoot, `${name}.json`)
  fs.mkdirSync(dataPath)
  const placement = placeRun(cell, hosts)
  writeJson(configFile, { ...cell.config, dataPath, ...(placement.serverHostname && { serverHostname: placement.serverHostname }) })
  const setEnv = serverEnv(cell)
  const log = openLog(path.join(dir, files.log))
  const settings = Object.entries(setEnv).map(([name, value]) => `${name}=${value}`)
  if (settings.length > 0) log.write(`# server environment: ${settings.join(' ')}\n`)
  const backing = `${dataPath}.backing`
  let server
  let storage = null
  try {
    if (cell.ioDelay !== undefined && cell.ioDelay !== 'off') {
      fs.mkdirSync(backing)
      storage = await mountDelayFs({ backing, mountpoint: dataPath, ioDelay: cell.ioDelay, ioDepth: cell.ioDepth, log: (line) => log.write(`# ${line}\n`) })
      log.write(`# storage: delayfs pid ${storage.pid}, ioDelay ${cell.ioDelay} µs, ioDepth ${cell.ioDepth}, backing ${backing}\n`)
    }
    const args = [`--config=${configFile}`, ...(KINDS[cell.kind].model === 'lb' && cell.balance ? [`--balance=${cell.balance}`] : [])]
    server = await startServer({ kind: cell.kind, args, env: { ...process.env, ...setEnv }, log, readyTimeout: options.readyTimeout, signal, execPath: cell.nodeBin, prefix: placement.serverPrefix })
    const fields = { ...placement.row, ...await work({ server, storage, placement, log, dataPath, configFile, files }) }
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      fields.reason ||= `server exited during the cell: ${log.lastLine()}`
    }
    return { ...fields, valid: !fields.reason, reason: fields.reason || '' }
  } catch (err) {
    if (signal.aborted) throw err
    return { ...placement.row, valid: false, reason: err.message }
  } finally {
    await server?.stop()
    await storage?.unmount() // after the server: it may still hold files open
    log.close()
    if (!options.keepData) {
      fs.rmSync(dataPath, { recursive: true, force: true })
      fs.rmSync(backing, { recursive: true, force: true })
      fs.rmSync(configFile, { force: true })
    }
  }
}

module.exports = { withServer }
