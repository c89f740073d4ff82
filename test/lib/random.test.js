'use strict'
// lib/random.js: the one seeded generator and its shuffle.

const t = require('tap')
const { mulberry32, shuffle } = require('../../lib/random')

t.test('the same seed gives the same numbers, another seed others, all in [0, 1)', async (t) => {
  const draw = (seed) => { const r = mulberry32(seed); return Array.from({ length: 1000 }, r) }
  t.same(draw(7), draw(7))
  t.not(draw(7)[0], draw(8)[0])
  t.ok(draw(7).every((x) => x >= 0 && x < 1))
  const mean = draw(11).reduce((a, b) => a + b, 0) / 1000
  t.ok(mean > 0.45 && mean < 0.55, `mean of 1000 draws ${mean}`)
})

t.test('a shuffle is a permutation of a copy, the same for the same seed', async (t) => {
  const list = Array.from({ length: 20 }, (_, i) => i)
  const a = shuffle(list, mulberry32(3))
  t.same([...a].sort((x, y) => x - y), list, 'every element once')
  t.same(list, Array.from({ length: 20 }, (_, i) => i), 'the list given is unchanged')
  t.same(shuffle(list, mulberry32(3)), a)
  t.notSame(a, list, 'twenty elements do not stay in order')
})
