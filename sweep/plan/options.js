'use strict'
// The flags of the commands that run cells, as validator tables (lib/config.js's `extra`): those every
// such command takes, the interleaved commands' (rounds, passes, budget), capacity's, and the grid's
// list flags (one per dimension, lib/results/dimensions.js); with the defaults no preset overrides.

const crypto = require('node:crypto')
const { rule, refuse, int, str, bool } = require('../../lib/config')
const { VALIDATORS } = require('../../lib/results/dimensions')
const { nodeSpec } = require('../../lib/install/node-versions')
const { parseSlo } = require('../../lib/slo')
const { HOST_OPTIONS } = require('../../lib/machine/ssh')
const { parseAa } = require('./aa')
const { hostsOption } = require('../cell/placement')

/** Flags every command that runs cells takes. */
const RUN_OPTIONS = {
  rounds: int(1, 1000),
  repeats: () => refuse('is now --rounds (rounds hold every cell once)'),
  seed: int(0, 2 ** 32 - 1),
  results: str,
  readyTimeout: int(1),
  keepData: bool,
  quiet: bool,
  ...HOST_OPTIONS
}
const RUN_DEFAULTS = { readyTimeout: 15000, keepData: false, quiet: false, hosts: 'local' } // and a random seed
const CELL_TIMEOUT_MS = 300000
// A duration: seconds, or a number with s, m or h.
const duration = rule('a duration above 0 such as 90, 90s, 2m or 1.5h', (v) => {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(String(v))
  return m && Number(m[1]) > 0 ? Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] ?? 's'] : undefined
})
const share = (low, high) => rule(`a number above ${low} and at most ${high}`, (v) => {
  const n = Number(v)
  return String(v).trim() !== '' && Number.isFinite(n) && n > low && n <= high ? n : undefined
})
/** The interleaved commands' own flags (sweep/interleaved/rounds.js, sweep/interleaved/passes.js). */
const ROUND_OPTIONS = {
  maxRounds: int(1, 10000),
  budget: duration,
  margin: share(0, 1),
  maxInterference: share(0, 1),
  window: int(1, 1000000),
  fairWindows: bool,
  passes: int(1, 1000),
  warmOps: int(0),
  restartEvery: int(0),
  freshFiles: bool,
  profile: bool,
  profileRounds: int(1, 100)
}
// The capacity command's own flags (sweep/capacity/).
const RATES = 'a comma list of rates in requests per second (whole numbers above 0)'
const rateList = Object.assign((v) => String(v).split(',').map((part, k, parts) => {
  if (!/^\d+$/.test(part) || Number(part) < 1) refuse(`must be ${RATES}${parts.length > 1 ? `, got ${JSON.stringify(part)} in it` : ''}`)
  return Number(part)
}), { takes: RATES })
/** The capacity command's own flags. */
const CAPACITY_OPTIONS = { slo: parseSlo, precision: share(0, 1), startRate: int(1, 1000000), endRate: int(1, 1000000), probe: int(1, 60), rates: rateList }
// --fail-on=slower (with --rev): exit 1 when this tree is slower than a revision beyond noise (sweep/rev-gate.js).
const failOn = rule('slower', (v) => (v === 'slower' ? v : undefined))
/** Every flag of sweep, quick, versions, capacity and run but the list flags. */
const SWEEP_OPTIONS = { ...RUN_OPTIONS, ...ROUND_OPTIONS, ...CAPACITY_OPTIONS, cellTimeout: int(1), aa: parseAa, clientNode: nodeSpec, hosts: hostsOption,
  'fail-on': failOn }
/** The list flags: one per dimension of lib/results/dimensions.js, and --node, which is --runtime=node@... (sweep/plan/grid.js). */
const SWEEP_LISTS = { ...VALIDATORS, node: nodeSpec }
/** A free port for every server, unless the user names one. */
const COMMON_FLAGS = ['--serverPort=0']

/**
 * The options of a command that runs cells: its defaults, then the flags given.
 * @param {object} given options from the flags
 * @param {object} defaults the command's own defaults
 * @returns {object}
 */
function runOptions (given, defaults) {
  return { ...RUN_DEFAULTS, seed: crypto.randomInt(2 ** 32), ...defaults, ...given }
}

module.exports = {
  RUN_OPTIONS, RUN_DEFAULTS, CELL_TIMEOUT_MS, ROUND_OPTIONS, CAPACITY_OPTIONS, SWEEP_OPTIONS, SWEEP_LISTS, COMMON_FLAGS, runOptions
}
