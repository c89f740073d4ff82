'use strict'
// The async-reuseport server: run as `node servers/async-reuseport.js [--config=FILE] [--KEY=VALUE ...]`.

const { launch } = require('./lib/launch')

if (require.main === module) launch('async-reuseport')

module.exports = { launch: (argv) => launch('async-reuseport', argv) }
