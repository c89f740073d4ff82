'use strict'
// sweep/interleaved/stop.js: why an interleaved run stops after a round, each reason in its turn.

const t = require('tap')
const { stopReason } = require('../../../sweep/interleaved/stop')

const OPTIONS = { rounds: 6, maxRounds: 100, margin: 0.05, budget: 110 }
const going = { aborted: false, allFailed: false, clean: 6, disturbed: 0, precise: false, elapsed: 50, perRound: 10 }

t.test('each reason, and none while a round is still wanted and fits', async (t) => {
  t.equal(stopReason(going, OPTIONS), null, '6 clean rounds, imprecise, 60 s of 110 after the next: go on')
  t.equal(stopReason({ ...going, aborted: true, allFailed: true }, OPTIONS), 'interrupted', 'a signal first')
  t.equal(stopReason({ ...going, allFailed: true, clean: 100 }, OPTIONS), 'every cell failed')
  t.equal(stopReason({ ...going, clean: 100, precise: true }, OPTIONS), '100 rounds (--maxRounds)')
  t.equal(stopReason({ ...going, clean: 3, disturbed: 7 }, OPTIONS), '7 disturbed rounds, more than --rounds=6')
  t.equal(stopReason({ ...going, clean: 3, disturbed: 6 }, OPTIONS), null, 'as many disturbed as --rounds: go on')
  t.equal(stopReason({ ...going, clean: 5, precise: true, elapsed: 500 }, OPTIONS), null, 'fewer clean rounds than --rounds: precision and budget wait')
  t.equal(stopReason({ ...going, precise: true, elapsed: 500 }, OPTIONS), 'every headline interval is narrow enough to decide (under 5% wide)')
  t.equal(stopReason({ ...going, elapsed: 100.5 }, OPTIONS), 'another round would overrun the budget of 110 s', '100.5 + 10 > 110')
  t.equal(stopReason({ ...going, elapsed: 100 }, OPTIONS), null, '100 + 10 = 110: within the budget')
})
