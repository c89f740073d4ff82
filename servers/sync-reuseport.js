'use strict'
// The sync-reuseport server: run as `node servers/sync-reuseport.js [--config=FILE] [--KEY=VALUE ...]`.

const { launch } = require('./lib/launch')

if (require.main === module) launch('sync-reuseport')

module.exports = { launch: (argv) => launch('sync-reuseport', argv) }
