'use strict'
// lib/results/dimensions.js: every dimension declared whole, and what the grid, help, harness, rows and
// report derive from it.

const t = require('tap')
const {
  DIMENSIONS, VALIDATORS, SUFFIXES, ENV, CONFIG_KEYS, SUMMARY, TEXT_COLUMNS, VARIANTS, LINE_DIMENSIONS,
  CELL_KEYS, firstValues, shownDefaults, dimensionRow, serverEnv, valueLabel, usesDelayLayer, delayOrder, IO_DEPTH, MOOT
} = require('../../lib/results/dimensions')
const { loadConfig, SCHEMA, ValueError } = require('../../lib/config')
const { planSweep } = require('../../sweep/commands')

const { config } = loadConfig([])

t.test('each dimension has a validator that says what it takes, a help line and a default', async (t) => {
  for (const [name, d] of Object.entries(DIMENSIONS)) {
    t.type(d.validate.takes, 'string', `${name}: --help can say what it takes`)
    t.throws(() => d.validate('\u0000'), { constructor: ValueError }, `${name}: a bad value is a ValueError`)
    t.ok(d.help.length > 10, `${name}: a help line`)
    t.ok(d.config || d.first, `${name}: a default`)
    if (d.config) t.equal(d.validate, SCHEMA[name], `${name}: a config key is checked as the config checks it`)
  }
  t.same(CONFIG_KEYS, Object.keys(DIMENSIONS).filter((name) => Object.hasOwn(SCHEMA, name)), 'the config keys among them are marked so')
})

t.test('suffixes, columns and environment variables are each unique', async (t) => {
  const suffixes = Object.values(SUFFIXES)
  t.equal(new Set(suffixes).size, suffixes.length, 'no two dimensions add the same cell-id suffix')
  for (const format of Object.values(SUMMARY)) {
    t.equal(new Set(format.columns).size, format.columns.length, 'no column twice')
    t.same(format.required.filter((c) => !format.columns.includes(c)), [], 'required columns are columns')
    t.same(format.variants.filter((c) => !format.columns.includes(c)), [], 'variants are columns')
  }
  t.same(TEXT_COLUMNS.filter((c) => !SUMMARY.sweep.columns.includes(c)), [])
  t.same(Object.values(ENV), ['UV_THREADPOOL_SIZE', 'NODE_CLUSTER_SCHED_POLICY', 'UV_USE_IO_URING'])
  t.same(LINE_DIMENSIONS, ['uvUseIoUring', 'uvThreadpoolSize'], 'crossover lines, in the order their labels are joined')
  t.same(CELL_KEYS, { api: 'asyncApi' })
  t.same(VARIANTS.filter((c) => !Object.hasOwn(DIMENSIONS, c)), [])
})

t.test('the grid, its defaults and help come from the table', async (t) => {
  const first = firstValues(config)
  t.same(Object.keys(first), Object.keys(DIMENSIONS))
  t.same(first.nClients, [config.nClients], 'a config key defaults to the config')
  t.same(first.ioDelay, ['off'])
  t.equal(shownDefaults(config).valueBytes, `the length of value, ${Buffer.byteLength(config.value)}`)
  t.match(shownDefaults(config).uvUseIoUring, /^this shell's, [01]$/, 'an environment dimension defaults to the shell')
  t.same(Object.keys(VALIDATORS), Object.keys(DIMENSIONS))
  const [run] = planSweep('run', ['--uvUseIoUring=1', '--asyncApi=filehandle', '--valueBytes=100'], 'async').runs
  t.match(run.cell.id, /-v100-api-filehandle-iou1$/, 'the suffixes in table order')
  t.equal(run.cell.config.asyncApi, 'filehandle', 'a config key reaches the server as config')
  t.match(serverEnv(run.cell), { UV_USE_IO_URING: '1' }, 'an environment dimension reaches it as a variable')
  const row = dimensionRow(run.cell)
  t.match(row, { kind: 'async', asyncApi: 'filehandle', uvUseIoUring: 1, valueBytes: 100, rtt: 0, balance: '' })
  t.notOk(Object.hasOwn(row, 'cpuset'), 'a column the run\'s figures write is left out')
  const [sync] = planSweep('run', ['--asyncApi=filehandle'], 'sync').runs
  t.equal(sync.cell.asyncApi, '', 'moot for a sync kind')
  t.equal(sync.cell.config.asyncApi, config.asyncApi, 'and its server gets the default')
})

t.test('values in the report\'s words', async (t) => {
  t.equal(valueLabel('uvUseIoUring', 1), 'io_uring')
  t.equal(valueLabel('uvUseIoUring', 0), 'thread pool')
  t.equal(valueLabel('uvThreadpoolSize', 8), 'pool 8')
  t.equal(valueLabel('fsync', 'each'), 'each')
})

t.test('a cell uses the delay layer for any ioDelay but off; ioDepth is moot without it; off sorts first', async (t) => {
  for (const ioDelay of [0, 1000, '1000']) t.ok(usesDelayLayer({ ioDelay }), `ioDelay ${ioDelay}`)
  for (const ioDelay of ['off', '', null, undefined]) t.notOk(usesDelayLayer({ ioDelay }), `ioDelay ${ioDelay}`)
  t.ok(MOOT.ioDepth({ ioDelay: 'off' }))
  t.notOk(MOOT.ioDepth({ ioDelay: 0 }))
  t.same(['1000', 'off', 100, 0].sort(delayOrder), ['off', 0, 100, '1000'])
  t.equal(firstValues(loadConfig([]).config).ioDepth[0], IO_DEPTH)
})
