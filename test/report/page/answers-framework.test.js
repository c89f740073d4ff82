'use strict'
// A folder that ran --framework=express,http: the answers say what each kind gains on plain
// node:http and how the sync/async ratio changes without express, both paired by round.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { renderReport } = require('../../../report')
const { writeSummary } = require('../../fixtures/results-folder')

// ops/s per framework and kind; every cell of a round shares that round's machine speed.
const SPEED = { express: { sync: 1000, async: 800 }, http: { sync: 2000, async: 1300 } }
const DRIFT = [1, 0.8, 1.1, 0.9, 1.05, 0.95]
const ENV = { node: 'v20.20.2', cpus: 2, cpuModel: 'Test CPU', totalMemBytes: 2 ** 33, platform: 'linux',
  release: '6.1', uvThreadpoolSize: 4, schedPolicy: 'rr', argv: ['sweep'], seed: 1, command: 'sweep',
  config: {}, startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:10:00Z' }

function writeFolder (dir) {
  const rows = []
  DRIFT.forEach((drift, r) => {
    for (const [framework, kinds] of Object.entries(SPEED)) {
      for (const [kind, speed] of Object.entries(kinds)) {
        rows.push({ cell: `${kind}-s1-c4-fw-${framework}`, repeat: r + 1, order: rows.length + 1, kind, nServers: 1, nClients: 4,
          uvThreadpoolSize: 4, schedPolicy: 'rr', readsPerWrite: 10, valueBytes: 41, oversubscribed: false, valid: true, reason: '',
          wallTimeMs: 1000, opsPerSec: speed * drift, getMean: 900, getP50: 800, getP99: 5000, getMax: 9000, putMean: 900,
          putP50: 800, putP99: 5000, putMax: 9000, errors: 0, clientCpuUs: 1, serverCpuUs: 1, json: '',
          asyncApi: kind === 'async' ? 'callback' : '', framework })
      }
    }
  })
  writeSummary(dir, ENV, rows)
}

t.test('the answers say how sync/async changes without express and what node:http gains per kind', async (t) => {
  const dir = t.testdir()
  writeFolder(dir)
  renderReport(dir)
  const page = fs.readFileSync(path.join(dir, 'report.html'), 'utf8').replace(/\s+/g, ' ')
  // 2000/1300 over 1000/800 in every round: 1.2308, whatever the round's speed.
  t.match(page, 'With 1 process, how sync/async changes without express (its ratio on node:http over its ratio on express): ' +
    'a wider gap at nClients 4: 1.23× [1.23–1.23] (nClients 4: 1.54× [1.54–1.54] on node:http, 1.25× [1.25–1.25] on express).')
  t.match(page, 'Plain node:http over express, sync, 1 process: node:http serves more at nClients 4: 2.00× [2.00–2.00].')
  t.match(page, 'Plain node:http over express, async, 1 process: node:http serves more at nClients 4: 1.63× [1.63–1.63].')
  t.match(page,
    /6 rounds: each figure is the Hodges–Lehmann estimate of the per-round ratios with its Wilcoxon signed-rank interval, at 96\.9% confidence or more\./)
  t.ok(page.indexOf('how sync/async changes without express') < page.indexOf('How to read this'), 'among the answers, first')
})

t.test('a folder with one framework says how to measure it', async (t) => {
  const dir = t.testdir()
  writeFolder(dir)
  const file = path.join(dir, 'summary.csv')
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split('\n').filter((line) => !line.includes('fw-http')).join('\n'))
  renderReport(dir)
  const page = fs.readFileSync(path.join(dir, 'report.html'), 'utf8').replace(/\s+/g, ' ')
  t.notMatch(page, /node:http over express|without express/)
  t.match(page, 'Every cell ran on express; a sweep with --framework=express,http shows what the framework costs', 'but where to get the answer')
})
