'use strict'
// The A/A pair of a sweep: one configuration's cell and a copy of it, variant B (its own server and
// data), scheduled like any other cell; the two must come out the same. Set by --aa=KIND:nServers:nClients.

const os = require('node:os')
const { SCHEMA, ValueError, refuse } = require('../../lib/config')
const { KINDS, isMultiProcess } = require('../../lib/kinds')

const FORM = 'off or KIND:nServers:nClients (e.g. async-cluster:2:4)'

/**
 * The A/A cell the sweep command runs unless --aa=off: async-cluster, min(2, cores) workers, 4 clients.
 * @returns {{ kind: string, nServers: number, nClients: number }}
 */
function defaultAa () {
  return { kind: 'async-cluster', nServers: Math.min(2, os.availableParallelism()), nClients: 4 }
}

/**
 * Validates --aa (a lib/config.js validator: returns the value or throws a ValueError).
 * @param {string} text off, or KIND:nServers:nClients (nServers may be auto)
 * @returns {{ kind: string, nServers: number, nClients: number } | null} null for off
 */
function parseAa (text) {
  if (text === 'off') return null
  const parts = String(text).split(':')
  if (parts.length !== 3) refuse(`must be ${FORM}`)
  const [kind, nServers, nClients] = parts
  if (!Object.hasOwn(KINDS, kind)) refuse(`must be ${FORM}; KIND must be one of ${Object.keys(KINDS).join(', ')}`)
  const check = (name, value) => {
    try {
      return SCHEMA[name](value)
    } catch (why) {
      if (!(why instanceof ValueError)) throw why
      refuse(`must be ${FORM}; its ${name} ${why.message}`)
    }
  }
  const servers = check('nServers', nServers)
  return { kind, nServers: isMultiProcess(kind) ? servers : 1, nClients: check('nClients', nClients) }
}
parseAa.takes = FORM

/**
 * The A/A pair's cells, each with the first value of every other dimension: the configuration's own
 * cell (one of the grid's, or added to it) and its copy, variant B. Two copies beside the grid's cell
 * would measure the same thing three times.
 * @param {{ kind: string, nServers: number, nClients: number }} aa
 * @param {object} base values of the other dimensions
 * @returns {object[]} combos with kind, nServers, nClients; the copy's variant is 'B'
 */
function aaCombos (aa, base) {
  return [{ ...base, ...aa }, { ...base, ...aa, variant: 'B' }]
}

module.exports = { defaultAa, parseAa, aaCombos }
