'use strict'
// sweep/capacity/search.js with scripted probes: where it places them, the crossing it reads from them
// (sweep/capacity/crossing.js) and what ended the search.

const t = require('tap')
const { parseSlo } = require('../../../lib/slo')
const { searchCapacity } = require('../../../sweep/capacity/search')

const SLO = parseSlo('p99:20ms')
const HOW = { startRate: 100, endRate: 20000, precision: 0.05, seconds: 1, slo: SLO }

// A server whose p99 doubles every 10% of `knee` and is 20 ms at it: log p99 is linear in the rate, so the crossing is
// the knee exactly, whichever probes bracket it. Invalid above `generator` (the generator's own figures said so).
function fakeProbe (knee, generator = Infinity) {
  const calls = []
  const probe = async (rate, seconds) => {
    calls.push({ rate, seconds })
    const p99 = 20000 * 2 ** ((rate - knee) / (0.1 * knee))
    if (rate > generator) return { passed: false, invalid: true, cause: 'generator', requests: 3000, pooled: { p99 } }
    return { passed: p99 <= 20000, invalid: false, cause: p99 <= 20000 ? '' : 'slo', requests: 3000, pooled: { p99 } }
  }
  return { probe, calls }
}

t.test('the search brackets by doubling, bisects to the precision, and the capacity is where the fit crosses the target', async (t) => {
  for (const knee of [137, 950, 3300, 17000]) {
    const { probe, calls } = fakeProbe(knee)
    const found = await searchCapacity(probe, HOW)
    t.equal(found.capacity, knee, `knee ${knee}: the crossing, not the highest pass (${found.highestPass})`)
    t.ok(found.low <= knee && found.high >= knee && found.high / found.low <= 1.05 + 1e-9, `between probes ${found.low} and ${found.high}, 5% apart`)
    t.ok(found.highestPass === found.low && found.highestPass <= knee, 'the highest pass beside it')
    t.equal(found.limit, 'slo')
    t.same(calls.slice(0, 2).map((c) => c.rate), [100, 200], 'it starts low and doubles')
    t.ok(calls.every((c) => c.seconds === 1), 'every probe as long: no longer confirmation')
    t.equal(found.probes, calls.length)
  }
})

t.test('a later round starts from the capacity found so far and needs fewer probes', async (t) => {
  const first = fakeProbe(2500)
  await searchCapacity(first.probe, HOW)
  const again = fakeProbe(2500)
  const found = await searchCapacity(again.probe, { ...HOW, prior: 2400 })
  t.equal(again.calls[0].rate, 2400, 'the first probe at the prior capacity')
  t.equal(found.capacity, 2500)
  t.ok(again.calls.length < first.calls.length, `${again.calls.length} probes against ${first.calls.length}`)
  const down = await searchCapacity(fakeProbe(1500).probe, { ...HOW, prior: 2400 })
  t.equal(down.capacity, 1500, 'a prior above the knee steps down')
})

t.test('the edges: nothing fails up to --endRate, even --startRate fails, the generator the limit', async (t) => {
  t.match(await searchCapacity(fakeProbe(1e9).probe, { ...HOW, endRate: 1000 }), { capacity: 1000, high: null, limit: 'endRate' })
  t.match(await searchCapacity(fakeProbe(50).probe, { ...HOW, endRate: 1000 }), { capacity: null, limit: 'startRate' })
  // Invalid above 1,200, the server fine up to 5,000: the search stops at 1,600 and says what passed is a lower bound.
  const generator = await searchCapacity(fakeProbe(5000, 1200).probe, HOW)
  t.match(generator, { capacity: 800, low: 800, high: null, highestPass: 800, limit: 'generator' })
  // The knee at 3,300, bracketed by 3,200 and 6,400; the first bisection probe, 4,525, invalid: the search stops, and the
  // valid probes on both sides still give the crossing.
  const knee = fakeProbe(3300)
  const hiccup = async (rate, seconds) => (rate === 4525 ? { passed: false, invalid: true, cause: 'generator' } : knee.probe(rate, seconds))
  t.match(await searchCapacity(hiccup, HOW), { capacity: 3300, low: 3200, high: 6400, limit: 'slo', probes: 8 }, 'an invalid probe leaves a crossing')
  const none = await searchCapacity(fakeProbe(5000, 50).probe, HOW)
  t.match(none, { capacity: null, limit: 'generator', probes: 1 }, 'not even the first probe valid: nothing, and why')
})
