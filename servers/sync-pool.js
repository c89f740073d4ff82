'use strict'
// The sync-pool server: run as `node servers/sync-pool.js [--config=FILE] [--KEY=VALUE ...]`. One
// process: its main thread does HTTP and sorts, a pool of as many threads as libuv's (UV_THREADPOOL_SIZE,
// 4 by default) the sync reads and appends.

const { launch } = require('./lib/launch')

if (require.main === module) launch('sync-pool')

module.exports = { launch: (argv) => launch('sync-pool', argv) }
