'use strict'
// The sync-lb server: nServers sync servers behind HAProxy (balancer/). Run as
// `node servers/sync-lb.js [--config=FILE] [--balance=roundrobin|leastconn] [--KEY=VALUE ...]`.

const { launchBalanced } = require('../balancer/launch')

if (require.main === module) launchBalanced('sync-lb')

module.exports = { launch: (argv) => launchBalanced('sync-lb', argv) }
