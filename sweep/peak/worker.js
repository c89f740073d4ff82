'use strict'
// One shard of the peak command's load on a client host, forked there over ssh (lib/machine/remote-fork.js):
// runs autocannon with the options it is sent, as soon as they arrive (every shard is sent them at
// once: the barrier), and sends back its raw result (histograms unmerged: sweep/peak/peak.js adds them).
// It ends when its channel closes, with the ssh session.

const autocannon = require('autocannon')

process.on('disconnect', () => process.exit(0))
process.once('message', async ({ opts }) => {
  process.send({ result: await autocannon({ ...opts, skipAggregateResult: true }) })
})
