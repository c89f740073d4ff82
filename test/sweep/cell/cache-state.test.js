'use strict'
// sweep/cell/cache-state.js driftOf: a cold round's cache state against the share asked for, on recorded figures.

const t = require('tap')
const { driftOf } = require('../../../sweep/cell/cache-state')

t.test('a cold round drifted when its start was not the share asked for, or its end held more than the share and the margin', async (t) => {
  t.equal(driftOf({ residencyBefore: 0, residencyAfter: 1.7 }, 0), '', 'cold and stayed cold')
  t.equal(driftOf({ residencyBefore: 50.1, residencyAfter: 57 }, 50), '', 'half warm and about so after')
  t.equal(driftOf({ residencyBefore: 3.5, residencyAfter: 4 }, 0),
    'cache drifted: 3.5% of the data set was cached at the round\'s start (0% ± 2 asked)')
  t.equal(driftOf({ residencyBefore: 41, residencyAfter: 45 }, 50),
    'cache drifted: 41% of the data set was cached at the round\'s start (50% ± 2 asked)', 'a warm share lost before the round')
  t.equal(driftOf({ residencyBefore: 0.4, residencyAfter: 12.5 }, 0),
    'cache drifted: 12.5% of the data set was cached at the round\'s end (bound 10%)')
  t.equal(driftOf({ residencyBefore: 100, residencyAfter: 100 }, 100), '', 'all of it')
})

t.test('a cache round drifted when its data set was not all cached at its start; its end is as it came', async (t) => {
  t.equal(driftOf({ residencyBefore: 99.4, residencyAfter: 61 }, null), '', 'what the machine paged out during the round is recorded, not refused')
  t.equal(driftOf({ residencyBefore: 47.3, residencyAfter: 48.7 }, null),
    'cache drifted: 47.3% of the data set was cached at the round\'s start (100% ± 2 asked)')
})
