'use strict'
// The sync-pool server: run as `node servers/sync-pool.js [--config=FILE] [--KEY=VALUE ...]`. One
// process: its main thread does HTTP, a pool of nServers threads the sync reads and appends.

const { launch } = require('./lib/launch')

if (require.main === module) launch('sync-pool')

module.exports = { launch: (argv) => launch('sync-pool', argv) }
