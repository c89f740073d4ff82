'use strict'
// Whether two results folders were made on different machines, and how the machines' costs differ (env.json's
// fingerprint, lib/machine/fingerprint.js). A change of machine moves every ratio (sync against async: 1.30x on an AMD
// EPYC VM, 1.54x on an Intel Xeon one), so compare says so first, and its gate does not judge code across machines.

const { LABELS, wakeUpOnOneCpu } = require('../../lib/machine/fingerprint')
const { fixed } = require('../stats/verdicts')

// What makes two machines different ones (a kernel or Node of another version is an environment difference, listed below it).
const IDENTITY = [['cpuModel', 'CPU model'], ['cpus', 'cores'], ['platform', 'platform']]

/**
 * @param {object} a A's env.json
 * @param {object} b B's env.json
 * @returns {{ differ: boolean, identity: { name: string, a: string, b: string }[], fingerprints: boolean,
 *   costs: { name: string, a: object, b: object, ratio: number, beyond: boolean }[], oneCpu: string[] }} identity: what
 *   differs of what the machines are; costs: each cost both fingerprints have, B/A, beyond: their intervals do not overlap;
 *   oneCpu: 'A', 'B' or both, whose fingerprint measured its wake-ups on one CPU
 */
function machineDifference (a, b) {
  const [fa, fb] = [a.fingerprint, b.fingerprint]
  const identity = IDENTITY.filter(([f]) => a[f] != null && b[f] != null && String(a[f]) !== String(b[f]))
    .map(([f, name]) => ({ name, a: String(a[f]), b: String(b[f]) }))
  const costs = !fa || !fb ? [] : Object.entries(LABELS).filter(([k]) => fa.costs?.[k] && fb.costs?.[k]).map(([k, name]) => {
    const [x, y] = [fa.costs[k], fb.costs[k]]
    return { name, a: x, b: y, ratio: y.estimate / x.estimate, beyond: y.low > x.high || y.high < x.low }
  })
  const oneCpu = [['A', fa], ['B', fb]].filter(([, f]) => f && wakeUpOnOneCpu(f)).map(([name]) => name)
  return { differ: identity.length > 0, identity, fingerprints: Boolean(fa && fb), costs, oneCpu }
}

const us = (c) => `${fixed(c.estimate, c.estimate >= 100 ? 0 : c.estimate >= 10 ? 1 : 2)} [${fixed(c.low, 2)}-${fixed(c.high, 2)}]`

/**
 * The machines in Markdown lines, for the top of compare's output: nothing when they are one machine with the same costs.
 * @param {ReturnType<typeof machineDifference>} m
 * @returns {string[]}
 */
function machineLines (m) {
  const moved = m.costs.filter((c) => c.beyond)
  if (!m.differ && moved.length === 0) return []
  const table = m.costs.length === 0 ? []
    : ['', '| cost (µs) | A | B | B/A |', '|---|---|---|---|',
        ...m.costs.map((c) => `| ${c.name} | ${us(c.a)} | ${us(c.b)} | ${fixed(c.ratio, 2)}${c.beyond ? ' **moved**' : ''} |`)]
  const oneCpu = m.oneCpu.length === 0 ? ''
    : ` ${m.oneCpu.join(' and ')} measured ${m.oneCpu.length > 1 ? 'their' : 'its'} wake-ups with both threads on one CPU (a busy ` +
      'machine): a context switch\'s cost, not a hand-off\'s across CPUs, so the wake-ups\' ratio is not the machines\'.'
  const movedText = `beyond their noise B's ${moved.map((c) => `${c.name} is ${fixed(c.ratio, 2)}x A's`).join(', ')}`
  if (!m.differ) {
    return ['## The machine\'s costs moved', '', `One kind of machine, but ${movedText}: a busier machine, or another VM of the same kind, ` +
      `moves the ratios below with them.${oneCpu}${expectedText(m.expected)}`, ...table, '']
  }
  const costs = !m.fingerprints ? 'One folder or both have no fingerprint (made before it was recorded): how far the machines\' costs differ is not known.'
    : moved.length > 0 ? `Of their costs, ${movedText}.` : 'Their costs are the same within their noise.'
  return ['## The machines differ', '', `A and B were made on different machines (${m.identity.map((d) => `${d.name}: ${d.a} → ${d.b}`).join('; ')}). ` +
    `${costs}${oneCpu}${expectedText(m.expected)} Every ratio below mixes the change of machine with any change of code: ` +
    'to judge code, run both on one machine.',
  ...table, '']
}

// The model's expectation of B from A's profile and both fingerprints (`predict A --on=B`), beside what B measured, or ''.
function expectedText (expected = []) {
  if (expected.length === 0) return ''
  const each = expected.map((e) => `${fixed(e.ratio, 2)}x for ${e.label}${e.measured ? ` (B measured ${fixed(e.measured.estimate, 2)}x)` : ''}`)
  return ` From A's profile and both fingerprints the model (predict A --on=B) expects ${each.join(' and ')}: what the change of machine alone would do.`
}

module.exports = { machineDifference, machineLines }
