'use strict'
// The config loader: defaults, --config=FILE, --KEY=VALUE, and one clear error per bad field.

const t = require('tap')
const os = require('node:os')
const path = require('node:path')
const { loadConfig, ConfigError, ROOT, int } = require('../../lib/config')

t.test('defaults come from config.json, with dataPath under the project and nServers = CPUs', async (t) => {
  const { config, options } = loadConfig([])
  t.equal(config.dataPath, path.join(ROOT, 'data'))
  t.equal(config.nServers, os.availableParallelism())
  t.equal(config.serverHostname, '127.0.0.1')
  t.equal(config.serverPort, 8100)
  t.equal(config.verify, true)
  t.same(options, {})
})

t.test('a config file overrides defaults and flags override the file', async (t) => {
  const dir = t.testdir({ 'c.json': JSON.stringify({ nClients: 3, nFiles: 7, dataPath: 'here', verify: false }) })
  const { config } = loadConfig([`--config=${dir}/c.json`, '--nFiles=9', '--readsPerWrite=inf', '--nServers=auto'])
  t.equal(config.nClients, 3)
  t.equal(config.nFiles, 9)
  t.equal(config.verify, false)
  t.equal(config.readsPerWrite, 'inf')
  t.equal(config.dataPath, path.join(dir, 'here'), 'a relative dataPath in a file is relative to that file')
  t.equal(loadConfig(['--dataPath=rel']).config.dataPath, path.resolve('rel'), 'on the command line, to the cwd')
})

t.test('tool-specific flags go through their own validators', async (t) => {
  const { options } = loadConfig(['--out=x.csv', '--n=4'], { out: (v) => v, n: int(1) })
  t.same(options, { out: 'x.csv', n: 4 })
  t.throws(() => loadConfig(['--n=0'], { n: int(1) }), new ConfigError('--n must be an integer >= 1, got "0"'))
})

t.test('every bad value is refused with the field and the value', async (t) => {
  const dir = t.testdir({ 'unknown.json': '{"nope": 1}', 'badtype.json': '{"nClients": "many"}' })
  const cases = [
    [['--nClients=0'], 'nClients must be an integer from 1 to 256, got "0"'],
    [['--nOperations=1.5'], 'nOperations must be an integer >= 1, got "1.5"'],
    [['--readsPerWrite=-1'], 'readsPerWrite must be an integer from 0 to 1000000, or inf, got "-1"'],
    [['--value='], 'value must be non-empty text without a newline, got ""'],
    [['--value=a\nb'], 'value must be non-empty text without a newline, got "a\\nb"'],
    [['--bodyLimit=100', `--value=${'v'.repeat(40)}`], /^value must be at most bodyLimit - 64 = 36 bytes/],
    [['--verify=yes'], 'verify must be true or false, got "yes"'],
    [['--fsync=always'], 'fsync must be one of none, each, group, got "always"'],
    [['--dataPath='], 'dataPath must be a non-empty path, got ""'],
    [['--serverHostname='], 'serverHostname must be a host name, got ""'],
    [[`--config=${dir}/unknown.json`], /^unknown config key nope; valid keys: config, dataPath/],
    [[`--config=${dir}/badtype.json`], 'nClients must be an integer from 1 to 256, got "many"'],
    [['--help'], /^bad argument "--help"/]
  ]
  for (const [argv, message] of cases) {
    t.throws(() => loadConfig(argv), message instanceof RegExp ? { message } : new ConfigError(message), argv.join(' '))
  }
})
