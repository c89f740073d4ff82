'use strict'
// README keeps its promises: the two commands on top, the test command that .ci/run runs, every config key documented.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { ROOT } = require('../lib/config')

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')

t.test('README opens with the install-and-run and install-and-test commands', async (t) => {
  const firstBlock = /```sh\n([^]*?)```/.exec(readme)[1]
  t.match(firstBlock, /^npm ci && \.\/run_benchmark\.sh quick\b/m)
  t.match(firstBlock, /^npm ci && npm test\b/m)
})

t.test('.ci/run runs the README test command', async (t) => {
  const ci = fs.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8')
  t.match(ci, /^npm ci --no-audit --no-fund && npm test$/m)
  t.equal(require('../package.json').scripts.test, 'tap')
})

t.test('every config.json key is documented in the README table with its default', async (t) => {
  const defaults = JSON.parse(fs.readFileSync(path.join(ROOT, 'config.json'), 'utf8'))
  for (const [key, value] of Object.entries(defaults)) {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`${key}\` |`))
    t.ok(row, `${key} has a row`)
    t.ok(row && row.includes(String(value)), `${key} row shows ${value}`)
  }
})

t.test('README states the Node versions package.json supports, and .ci/run tests the newest LTS', async (t) => {
  const { engines } = require('../package.json')
  t.match(readme, `(\`engines\`: \`${engines.node}\`)`)
  const ci = fs.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8')
  t.match(ci, /^if lts_node=\$\(node sweep\/node-command\.js install lts\); then$/m, 'installs the newest LTS before npm ci')
  t.match(ci, /^ {2}PATH="\$lts_bin:\$PATH" \.\/run_benchmark\.sh quick /m, 'and runs a mini sweep on it')
})

t.test('the placement and balancer flags have a row in the flags table with their default', async (t) => {
  for (const [flag, shown] of [['balance', '`roundrobin`'], ['cpuset', '`shared`'], ['hosts', '`local`'], ['rtt', '`0`']]) {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`--${flag}=`))
    t.ok(row, `--${flag} has a row`)
    t.ok(row && row.split(' | ')[1] === shown, `--${flag} row shows ${shown}`)
  }
})
