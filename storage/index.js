'use strict'
// Storage latency for the benchmark: a FUSE mount (storage/delayfs.c) that delays every read and every
// durable write (fsync, O_DSYNC). require('./storage') for the API; `node storage/index.js --help` runs the CLI.

const { checkFuse, buildDelayFs } = require('./check')
const { mountDelayFs } = require('./mount')
const { cleanStaleMounts, delayfsMounts } = require('./stale')

module.exports = { checkFuse, buildDelayFs, mountDelayFs, cleanStaleMounts, delayfsMounts }

if (require.main === module) require('./cli').main(process.argv.slice(2))
