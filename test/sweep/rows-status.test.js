'use strict'
// sweep/runner.js rowsStatus: a round the machine made to measure again (disturbed, a cold cell's cache drifted) does not
// fail the run; a fault (failed requests, lost acknowledgements, a server gone or never started) does, and so does a cell
// without one valid row.
// Run: node test/sweep/rows-status.test.js

const t = require('tap')
const { rowsStatus } = require('../../sweep/runner')

const ok = (cell, repeat) => ({ cell, repeat, valid: true, again: false, reason: '' })
const again = (cell, repeat) => ({ cell, repeat, valid: false, again: true, reason: 'disturbed: 2 of 3 passes had more than 10% of the CPU taken by others' })
const fault = (cell, repeat, reason) => ({ cell, repeat, valid: false, again: false, reason })

t.equal(rowsStatus([ok('sync', 1), ok('async', 1), ok('sync', 2), ok('async', 2)]), 0, 'every row valid')
t.equal(rowsStatus([again('sync', 1), again('async', 1), ok('sync', 2), ok('async', 2)]), 0, 'a disturbed round measured again')
t.equal(rowsStatus([ok('sync', 1), ok('async', 1), fault('async', 2, '3 lost')]), 1, 'lost acknowledgements')
t.equal(rowsStatus([fault('sync', 1, 'server not ready within 15 s'), ok('async', 1)]), 1, 'a server that never started')
t.equal(rowsStatus([again('sync', 1), ok('async', 1), again('sync', 2), ok('async', 2)]), 1, 'sync was never measured clean')
t.equal(rowsStatus([{ cell: 'run-1', valid: true }, { cell: 'run-2', valid: false, reason: 'exit 1' }]), 1, 'a sequence run\'s invalid row')
