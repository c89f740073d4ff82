'use strict'
// The sync server: run as `node servers/sync.js [--config=FILE] [--KEY=VALUE ...]`.

const { launch } = require('./lib/launch')

if (require.main === module) launch('sync')

module.exports = { launch: (argv) => launch('sync', argv) }
