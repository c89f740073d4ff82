'use strict'
// One backend of a balanced kind, started by balancer/backends.js:
// `node servers/lib/backend.js KIND [--KEY=VALUE ...]`. A single-process server of KIND's store that
// appends knowing other processes append to the same files (lib/kinds.js: the -lb kinds are multi-process).

const { loadConfig, runMain, ConfigError } = require('../../lib/config')
const { KINDS } = require('../../lib/kinds')
const { runSingle } = require('./launch')

const [kind, ...argv] = process.argv.slice(2)
const { config } = runMain(`${kind} backend`, () => {
  if (KINDS[kind]?.model !== 'lb') throw new ConfigError(`needs a balanced kind first (sync-lb, async-lb), got ${JSON.stringify(kind)}`)
  return loadConfig(argv)
})
runSingle(kind, config)
