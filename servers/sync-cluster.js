'use strict'
// The sync-cluster server: run as `node servers/sync-cluster.js [--config=FILE] [--KEY=VALUE ...]`.

const { launch } = require('./lib/launch')

if (require.main === module) launch('sync-cluster')

module.exports = { launch: (argv) => launch('sync-cluster', argv) }
