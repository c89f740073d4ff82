'use strict'
// The async-lb server: nServers async servers behind HAProxy (balancer/). Run as
// `node servers/async-lb.js [--config=FILE] [--balance=roundrobin|leastconn] [--KEY=VALUE ...]`.

const { launchBalanced } = require('../balancer/launch')

if (require.main === module) launchBalanced('async-lb')

module.exports = { launch: (argv) => launchBalanced('async-lb', argv) }
