'use strict'
// The start of every server kind (servers/lib/launch.js, balancer/launch.js): the kind can run here,
// its config loads, its fsync setting suits its store, and its data folder can be made.

const fs = require('node:fs')
const { loadConfig, ConfigError } = require('../config')
const { kindProblem, fsyncProblem } = require('../kinds')

/**
 * Loads a server's config and checks that the kind can serve it here.
 * @param {string} kind a name in lib/kinds.js
 * @param {string[]} argv --config=FILE and --KEY=VALUE arguments
 * @param {{ extra?: object, checkKind?: boolean }} [how] extra: the entry's own flags (lib/config.js loadConfig);
 *   checkKind: whether to ask if this Node, kernel and machine can run the kind (a cluster worker's primary did)
 * @returns {{ config: object, options: object }}
 * @throws {ConfigError} naming what is wrong
 */
function loadServerConfig (kind, argv, { extra, checkKind = true } = {}) {
  const problem = checkKind && kindProblem(kind)
  if (problem) throw new ConfigError(problem)
  const loaded = loadConfig(argv, extra)
  const unflushable = fsyncProblem(kind, loaded.config.fsync)
  if (unflushable) throw new ConfigError(unflushable)
  try {
    fs.mkdirSync(loaded.config.dataPath, { recursive: true })
  } catch (err) {
    throw new ConfigError(`dataPath ${loaded.config.dataPath} is not a usable folder: ${err.code}`)
  }
  return loaded
}

module.exports = { loadServerConfig }
