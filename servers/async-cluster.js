'use strict'
// The async-cluster server: run as `node servers/async-cluster.js [--config=FILE] [--KEY=VALUE ...]`.

const { launch } = require('./lib/launch')

if (require.main === module) launch('async-cluster')

module.exports = { launch: (argv) => launch('async-cluster', argv) }
