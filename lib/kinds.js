'use strict'
// The server kinds: which store each uses (sync or async fs) and how it runs (one process or a
// node:cluster primary with workers). Servers, sweep, report and tests all take the list from here.

/** name → { store: 'sync'|'async', model: 'single'|'cluster' }, in the order reports show them. */
const KINDS = {
  sync: { store: 'sync', model: 'single' },
  async: { store: 'async', model: 'single' },
  'sync-cluster': { store: 'sync', model: 'cluster' },
  'async-cluster': { store: 'async', model: 'cluster' }
}

const KIND_NAMES = Object.keys(KINDS)

/**
 * Whether a kind forks workers, so that nServers applies to it.
 * @param {string} kind a key of KINDS
 * @returns {boolean}
 */
function isCluster (kind) {
  return KINDS[kind].model !== 'single'
}

module.exports = { KINDS, KIND_NAMES, isCluster }
