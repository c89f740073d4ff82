'use strict'
// README keeps its promises: a front page of 300 lines at most with the two commands on top and
// counts that match the code; the test command that .ci/run runs. docs/REFERENCE.md: test/docs/reference.test.js.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { ROOT } = require('../../lib/config')

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')

t.test('README opens with the install-and-run and install-and-test commands', async (t) => {
  const firstBlock = /```sh\n([^]*?)```/.exec(readme)[1]
  t.match(firstBlock, /^npm ci && \.\/run_benchmark\.sh setup && \.\/run_benchmark\.sh quick\b/m)
  t.match(firstBlock, /^npm ci && \.\/run_benchmark\.sh setup && npm test\b/m)
})

t.test('.ci/run runs the README test command', async (t) => {
  const ci = fs.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8')
  // The same three steps, then the system group; CI opts into the tests that reach the npm registry (TEST_REGISTRY=1).
  const steps = ['npm ci --no-audit --no-fund', 'if ! ./run_benchmark.sh setup --strict; then',
    'TEST_REGISTRY=1 npm test', 'TEST_REGISTRY=1 npm run test:system']
  t.same(steps.map((step) => ci.split('\n').indexOf(step)).map((at, k, all) => at >= 0 && (k === 0 || at > all[k - 1])), [true, true, true, true],
    'npm ci, then setup, then npm test, then npm run test:system, in that order')
  const { scripts } = require('../../package.json')
  t.equal(scripts.test, 'eslint . && node test/tools/run.js unit', 'npm test lints, then runs the unit group')
  t.equal(scripts['test:system'], 'node test/tools/run.js system', 'npm run test:system runs the system group')
})

t.test('README is a front page: 300 lines at most, the commands in its first 20, its counts those of the code', async (t) => {
  const lines = readme.split('\n')
  t.ok(lines.length <= 300, `${lines.length} lines`)
  t.ok(lines.slice(0, 20).some((line) => line.startsWith('npm ci && ./run_benchmark.sh setup && npm test')), 'the test command in the first 20 lines')
  const { KIND_NAMES } = require('../../lib/kinds')
  const COMMANDS = Object.values(require('../../sweep/commands').COMMANDS).map((c) => c.name)
  const kinds = [...readme.matchAll(/(\d+) server kinds/g)].map((m) => Number(m[1]))
  t.ok(kinds.length > 0, 'it says how many server kinds there are')
  t.same(kinds, kinds.map(() => KIND_NAMES.length), `every count of server kinds is ${KIND_NAMES.length}`)
  t.equal(Number(/has (\d+) commands/.exec(readme)?.[1]), COMMANDS.length, `${COMMANDS.length} commands`)
  for (const command of COMMANDS) {
    t.ok(lines.some((line) => line.startsWith(`| \`${command.replaceAll('|', '\\|')}\` |`)), `${command} has a row in the commands table`)
  }
  const { PRESETS, duration } = require('../../sweep/commands')
  const budget = duration(PRESETS.quick.rounds.budget)
  t.ok(lines.find((line) => line.startsWith('| `quick` |'))?.includes(`within ${budget}`), `quick's row gives its budget, ${budget}`)
  for (const [, target] of readme.matchAll(/\]\(((?:docs|bench)\/[^)#]+)/g)) t.ok(fs.existsSync(path.join(ROOT, target)), `${target} exists`)
})

t.test('README states the Node versions package.json supports, and .ci/run tests the newest LTS', async (t) => {
  const { engines } = require('../../package.json')
  t.match(readme, `(\`engines\`: \`${engines.node}\`)`)
  const ci = fs.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8')
  t.match(ci, /^if lts_node=\$\(node sweep\/node-command\.js install lts\); then$/m, 'installs the newest LTS before npm ci')
  t.match(ci, /^ {2}PATH="\$lts_bin:\$PATH" \.\/run_benchmark\.sh quick /m, 'and runs a mini sweep on it')
})

t.test('where it runs: every cell works, refused or untested, each claim backed by a test it names that runs there', async (t) => {
  const section = readme.slice(readme.indexOf('## Where it runs'), readme.indexOf('\n## ', readme.indexOf('## Where it runs') + 1))
  const rows = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| capability') && !line.startsWith('|---'))
  const head = section.split('\n').find((line) => line.startsWith('| capability')).split('|').slice(1, -1).map((c) => c.trim())
  t.same(head, ['capability', 'root', 'user', 'cgroup v1', 'v2 systemd', 'v2 delegated', 'v2 container', 'Debian', 'Ubuntu', 'Fedora', 'no /proc',
    'tests'])
  t.ok(rows.length >= 9, `${rows.length} capabilities`)
  for (const line of rows) {
    const cells = line.split('|').slice(1, -1).map((c) => c.trim())
    const [name, ...values] = cells
    const tests = [...values.pop().matchAll(/`([^`]+)`/g)].map((m) => m[1])
    const at = Object.fromEntries(head.slice(1, -1).map((h, k) => [h, values[k]]))
    t.same(values.filter((v) => !['works', 'refused', 'untested'].includes(v)), [], `${name}: 10 cells, each works, refused or untested`)
    for (const test of tests) t.ok(fs.existsSync(path.join(ROOT, test)), `${name}: ${test} exists`)
    if (values.some((v) => v !== 'untested')) t.ok(tests.length > 0, `${name}: a claim names its test`)
    // A claim for a place needs a test that runs there.
    const runsIn = (place, pattern) => ['works', 'refused'].includes(at[place]) && t.ok(tests.some((f) => pattern.test(f)), `${name}: ${place} has its test`)
    runsIn('user', /as-user|setup/)
    runsIn('no /proc', /no-proc/)
    for (const layout of ['v2 systemd', 'v2 delegated', 'v2 container']) runsIn(layout, /cgroup-v2/)
    const setupTest = tests.find((f) => /setup/.test(f))
    for (const distro of ['Ubuntu', 'Fedora']) {
      const text = setupTest ? fs.readFileSync(path.join(ROOT, setupTest), 'utf8') : ''
      if (at[distro] === 'works') t.match(text, `ID=${distro.toLowerCase()}`, `${name}: ${distro}'s os-release in its test`)
    }
  }
  const cgroup2 = fs.readFileSync(path.join(ROOT, 'test/storage/cgroup-v2.test.js'), 'utf8')
  for (const layout of ['systemd', 'delegated', 'container']) t.match(cgroup2, `${layout}:`, `the cgroup v2 test runs the ${layout} layout`)
})
