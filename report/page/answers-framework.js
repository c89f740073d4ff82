'use strict'
// What the framework changes, when a folder ran --framework=express,http: how much more each kind
// serves on plain node:http, and how the sync/async ratio changes without express, both paired by
// round. Used by report/page/answers.js.

const { roundValues, divideRounds, pairedSummary, pairedRatio } = require('../stats/intervals')
const { formatRatio, verdictParts, groupBy, processes } = require('../stats/verdicts')
const { modelLabel, KINDS, isMultiProcess, kindOf } = require('../../lib/kinds')

const frameworkOf = (cell) => cell.rows[0].framework
// What a cell is apart from its framework: the two cells of a pair share it.
const keyOf = (cell, kind = cell.kind, api = cell.api) => [kind, cell.nServers, cell.load, api,
  cell.variant.split(', ').filter((s) => !s.startsWith('framework=')).join(', ')].join('|')
const ops = (cell) => roundValues(cell, 'opsPerSec')

/**
 * The framework's answers in sentences; with a single framework, where to get them.
 * @param {object[]} cells main cells
 * @param {number} cores
 * @returns {string[]}
 */
function frameworkAnswers (cells, cores) {
  const some = cells.filter((c) => frameworkOf(c))
  const frameworks = [...new Set(some.map(frameworkOf))]
  if (frameworks.length === 0) return []
  if (frameworks.length === 1) {
    return [`Every cell ran on ${frameworks[0] === 'http' ? 'plain node:http' : 'express'}; a sweep with --framework=express,http ` +
      'shows what the framework costs each kind and how the sync/async ratio changes with it.']
  }
  const pairs = new Map()
  for (const cell of some) pairs.set(keyOf(cell), { ...pairs.get(keyOf(cell)), [frameworkOf(cell)]: cell })
  const at = (cell) => ({ cluster: isMultiProcess(cell.kind), model: KINDS[cell.kind].model, nServers: cell.nServers, load: cell.load, kind: cell.kind })
  const costs = [...pairs.values()].filter((p) => p.express && p.http).map((p) => ({ ...at(p.http), ratio: pairedRatio(p.http, p.express) }))
  const changes = []
  for (const sync of [...pairs.values()].filter((p) => p.express && p.http && KINDS[p.express.kind].store === 'sync')) {
    const asyncKind = kindOf('async', KINDS[sync.express.kind].model)
    const like = (p) => p.express && p.http && keyOf(p.express, p.express.kind, '') === keyOf(sync.express, asyncKind, '')
    for (const other of [...pairs.values()].filter(like)) {
      const on = (fw) => divideRounds(ops(sync[fw]), ops(other[fw]))
      changes.push({ ...at(sync.http), api: other.http.api, ratio: pairedSummary(divideRounds(on('http'), on('express'))),
        http: pairedRatio(sync.http, other.http), express: pairedRatio(sync.express, other.express) })
    }
  }
  const costText = groupBy(costs.filter((e) => e.ratio), (e) => `${e.kind}|${e.nServers}`).map((list) =>
    `Plain node:http over express, ${KINDS[list[0].kind].store}, ${modelLabel(list[0].kind, list[0].nServers)}: ` +
    `${verdictParts(list, { up: 'node:http serves more', down: 'express serves more' }).join('; ')}.`)
  const perLoad = (e) => `nClients ${e.load}: ${e.http ? formatRatio(e.http) : '–'} on node:http, ${e.express ? formatRatio(e.express) : '–'} on express`
  const changeText = groupBy(changes.filter((e) => e.ratio), (e) => `${e.model}|${e.nServers}|${e.api}`).map((list) =>
    `${processes(list[0], cores)}, how sync/async changes without express (its ratio on node:http over its ratio on express): ` +
    `${verdictParts(list, { up: 'a wider gap', down: 'a narrower gap' }).join('; ')} ` +
    `(${list.map(perLoad).join('; ')}).`)
  return [...changeText, ...costText]
}

module.exports = { frameworkAnswers }
