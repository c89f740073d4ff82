'use strict'
// List-valued flags (--nClients=1,2,4): taken out of argv and validated element by element, and
// the grid of every combination of their values.

const { checked } = require('../../lib/config')

/**
 * Takes the list-valued flags out of argv and validates every element.
 * @param {string[]} argv --KEY=VALUE arguments
 * @param {object} validators one validator per list flag, for one element
 * @returns {{ lists: object, rest: string[] }} the lists (deduplicated) and the other arguments
 * @throws {ConfigError} naming the flag and the bad element
 */
function takeLists (argv, validators) {
  const lists = {}
  const rest = []
  for (const arg of argv) {
    const m = /^--(\w+)=(.*)$/s.exec(arg)
    if (!m || !Object.hasOwn(validators, m[1])) {
      rest.push(arg)
      continue
    }
    const [, flag, text] = m
    const whole = (element) => (element === text ? '' : ` in ${JSON.stringify(text)}`)
    lists[flag] = [...new Set(text.split(',').map((element) => checked(`--${flag}`, validators[flag], element, whole(element))))]
  }
  return { lists, rest }
}

/**
 * Every combination of the dimensions' values, in order.
 * @param {Array<[string, any[]]>} dims name and values of each dimension
 * @returns {object[]}
 */
function cross (dims) {
  return dims.reduce((combos, [key, values]) =>
    combos.flatMap((combo) => values.map((value) => ({ ...combo, [key]: value }))), [{}])
}

module.exports = { takeLists, cross }
