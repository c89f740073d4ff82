'use strict'
// The async server: run as `node servers/async.js [--config=FILE] [--KEY=VALUE ...]`.

const { launch } = require('./lib/launch')

if (require.main === module) launch('async')

module.exports = { launch: (argv) => launch('async', argv) }
