'use strict'
// lib/median.js: the median, what an interval of it covers in words, and Jain's fairness index every room uses.

const t = require('tap')
const { median, fairness, coverage, intervalOfMedian } = require('../../lib/median')

t.test('the median of an odd count is the middle value, of an even count the mean of the middle two', async (t) => {
  t.equal(median([3, 1, 2]), 2)
  t.equal(median([4, 1, 3, 2]), 2.5)
  t.equal(median([10, 2, 33]), 10, 'sorted as numbers, not as text')
})

t.test('the median of nothing is null, and the values given are left unsorted', async (t) => {
  t.equal(median([]), null)
  const values = [3, 1, 2]
  median(values)
  t.same(values, [3, 1, 2])
})

t.test('fairness is 1 for equal counts, 1/n when one process takes all, and 1 for no requests', async (t) => {
  t.equal(fairness([5, 5, 5, 5]), 1)
  t.equal(fairness([8, 0, 0, 0]), 0.25)
  t.equal(fairness([3, 1]), 16 / 20)
  t.equal(fairness([0, 0]), 1)
})

t.test('what an interval covers, in words: its confidence and rounds, and when that is short of 95%', async (t) => {
  t.equal(coverage(intervalOfMedian([1, 2, 3, 4, 5, 6])), '96.9% over 6 rounds')
  t.equal(coverage(intervalOfMedian([1, 2])), '50% over 2 rounds; no 95% interval')
  t.equal(coverage(intervalOfMedian([1, 2, 3, 4, 5])), '93.8% over 5 rounds; no 95% interval')
  t.equal(coverage(intervalOfMedian([7])), '1 round; no interval')
})
