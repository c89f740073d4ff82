'use strict'
// The tests' own tools (test/tools/): every test file in exactly one group, the runner's plan of each
// group, the flake finder's arguments and table, and the neighbour it runs beside (test/fixtures/hog.js).

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const { NEEDS, SYSTEM, LINUX, testFiles, groupOf } = require('../tools/groups')
const { plan, runFiles } = require('../tools/run')
const { parseArgs } = require('../tools/flakes')
const { hasProc } = require('../../lib/platform')

const ROOT = path.join(__dirname, '..', '..')

t.test('every system file exists, every need has files, and every test file is in one group', async (t) => {
  const files = testFiles()
  t.ok(files.length > 100, `${files.length} test files`)
  t.same(Object.keys(SYSTEM).filter((f) => !files.includes(f)), [], 'no system file named that does not exist')
  t.same(Object.keys(NEEDS).filter((need) => !Object.values(SYSTEM).includes(need)), [], 'no need without a file')
  t.same(Object.values(SYSTEM).filter((need) => !NEEDS[need]), [], 'no file with an unknown need')
  t.same(files.filter((f) => !/^test\/.+\.test\.js$/.test(f) || f.startsWith('test/fixtures/') || f.startsWith('test/tools/')), [])
  t.equal(groupOf('test/docs/readme.test.js'), 'unit')
  t.equal(groupOf('test/storage/cgroup-v2.test.js'), 'guest')
  t.equal(groupOf('test/fixtures/server.js'), null, 'a fixture is in no group')
  t.equal(groupOf('test/nope.test.js'), null)
})

t.test('the runner runs the unit group three at a time and the system group need by need, in lanes', async (t) => {
  const { coverage, runs: [unit, ...more] } = plan(['unit'])
  t.same([coverage, unit.jobs, more], [false, 3, []], 'one run, three files at a time, coverage off')
  t.same(unit.files.filter((f) => SYSTEM[f]), [], 'no system file in the unit group')
  t.equal(unit.files.length + unit.skipped.length + Object.keys(SYSTEM).length, testFiles().length, 'the two groups are every file')
  t.equal(plan(['unit', '--coverage']).coverage, true)
  const system = plan(['system']).runs
  t.same(system.map((r) => r.title.split(' ')[1]), Object.keys(NEEDS), 'each need once, in the table\'s order')
  t.same(system.flatMap((r) => r.files).sort(), Object.keys(SYSTEM).sort())
  t.same(system.filter((r) => r.lane === 0).map((r) => r.title.split(' ')[1]), ['alone'], 'only the files that need the machine run alone')
  t.same([...new Set(system.map((r) => r.lane))].sort(), [0, 1, 2], 'the others in two lanes side by side')
  t.same(plan(['system', '--need=guest']).runs.map((r) => r.files), [['test/storage/cgroup-v2.test.js']])
  t.same(plan(['system', '--coverage', '--need=user']).runs.map((r) => r.files), [['test/sweep/as-user.test.js']])
  t.same(plan(['files', 'test/lib/random.test.js', 'test/servers/lifecycle.test.js']).runs.map((r) => [r.jobs, r.files]),
    [[3, ['test/lib/random.test.js', 'test/servers/lifecycle.test.js']]], 'the files named, of either group, three at a time')
  for (const [args, message] of [
    [[], /^use unit \[--coverage\], system \[--need=alone\|load\|guest\|hosts\|user\|runtimes\] \[--coverage\], or files FILE\.\.\.; got ""$/],
    [['files'], /^files takes test files of the checkout \(test\/\.\.\.test\.js\); got ""$/],
    [['files', 'test/lib/random.test.js', 'test/fixtures/hog.js'], /; got "test\/fixtures\/hog\.js"$/],
    [['all'], /; got "all"$/],
    [['system', '--need=gpu'], /^--need must be one of alone, load, guest, hosts, user, runtimes, got "gpu"$/],
    [['unit', '--need=alone'], /; got "--need=alone"$/],
    [['system', '--need=alone', '--need=load'], /; got "--need=load"$/],
    [['system', 'x'], /; got "x"$/]
  ]) t.throws(() => plan(args), message, args.join(' ') || '(none)')
  const res = spawnSync(process.execPath, [path.join(ROOT, 'test/tools/run.js'), 'everything'], { encoding: 'utf8' })
  t.equal(res.status, 2, 'a bad group exits 2')
  t.match(res.stderr, /^test\/tools\/run\.js: use unit .*; got "everything"\n$/)
})

t.test('the flake finder takes --runs, --hog and test files, and refuses anything else', async (t) => {
  t.same(parseArgs(['--runs=3', '--hog', 'test/lib/random.test.js']), { runs: 3, hog: true, files: ['test/lib/random.test.js'] })
  t.same(parseArgs([]).files, testFiles(), 'every file of both groups by default')
  t.equal(parseArgs([]).runs, 5)
  for (const [args, message] of [
    [['--runs=0'], /^--runs must be an integer from 1 to 1000, got 0$/],
    [['--runs=1.5'], /^--runs must be an integer from 1 to 1000, got 1\.5$/],
    [['--loud'], /^unknown option --loud/],
    [['test/fixtures/server.js'], /^test\/fixtures\/server\.js is not a test file \(\*\.test\.js\)$/],
    [['test/nope.test.js'], /^test\/nope\.test\.js is not a test file/]
  ]) t.throws(() => parseArgs(args), message, args.join(' '))
})

t.test('the flake finder prints each file\'s passes, failures and times, and fails when one failed', async (t) => {
  // A passing file and a failing one, in the checkout's .tap/ (where require finds tap).
  const dir = t.testdir({ 'good.test.js': "require('tap').pass('fine')\n", 'bad.test.js': "require('tap').fail('broken')\n" })
  const rel = (f) => path.relative(ROOT, path.join(dir, f))
  const res = spawnSync(process.execPath, [path.join(ROOT, 'test/tools/flakes.js'), '--runs=2', rel('good.test.js'), rel('bad.test.js')],
    { cwd: ROOT, encoding: 'utf8' })
  t.equal(res.status, 1, 'exit 1: a file failed')
  const rows = res.stdout.trim().split('\n').map((l) => l.split('\t'))
  t.same(rows[0].slice(0, 3), ['file', 'passes', 'failures'])
  t.same(rows.slice(1).map((r) => r.slice(0, 3)), [[rel('good.test.js'), '2', '0'], [rel('bad.test.js'), '0', '2']])
  t.ok(rows.slice(1).every((r) => r.slice(3).every((s) => Number(s) > 0)), 'min, median and max seconds')
  const kept = new RegExp(`${rel('bad.test.js')} run 2/2: FAIL [\\d.]+ s \\(its output: (\\S+)\\)`).exec(res.stderr)?.[1]
  t.ok(kept, 'a failed run says where its output is')
  t.match(fs.readFileSync(path.join(ROOT, kept), 'utf8'), /not ok 1 - broken/, 'the failed run\'s TAP output, kept')
  t.notMatch(res.stderr, /good\.test\.js run \d\/2: pass [\d.]+ s \(/, 'a passing run keeps nothing')
})

t.test('the runner prints a line a file, a failed file\'s output, a passed file\'s skips, and counts files and assertions', async (t) => {
  const dir = t.testdir({
    'good.test.js': "const t = require('tap'); t.pass('a'); t.pass('b'); t.test('needs a GPU', { skip: 'no GPU here: 0 found' }, () => {})\n",
    // It ends last (crash.test.js starts when good.test.js ends): the failed files are named in the group's order all the same.
    'bad.test.js': "const t = require('tap'); t.pass('a'); t.test('late', (t) => setTimeout(() => { t.end() }, 1500)); t.fail('broken')\n",
    'crash.test.js': 'process.exit(3)\n'
  })
  const rel = (f) => path.relative(ROOT, path.join(dir, f))
  let out = ''
  const ok = await runFiles({ title: 'unit (a test)', jobs: 2, files: [rel('good.test.js'), rel('bad.test.js'), rel('crash.test.js')] }, (s) => { out += s })
  t.equal(ok, false, 'not every file passed')
  t.match(out, new RegExp(`^# ${rel('good.test.js')}: ok \\d+ - needs a GPU # SKIP no GPU here: 0 found$`, 'm'), 'a skip, with its reason')
  t.match(out, new RegExp(`^ok \\d - ${rel('good.test.js')} # [\\d.]+ s, 3 assertions$`, 'm'))
  t.match(out, new RegExp(`^# ${rel('bad.test.js')} failed; its TAP output:\n[^]*^    not ok 3 - broken$`, 'm'), 'a failed file\'s output, indented')
  t.match(out, new RegExp(`^not ok \\d - ${rel('crash.test.js')} # [\\d.]+ s, no closing count$`, 'm'), 'a file that ended without its count')
  const summary = '# unit: 1 of 3 files passed in [\\d.]+ s; assertions \\{ total: 6, pass: 4, fail: 1, skip: 1 \\}; failed: '
  t.match(out, new RegExp(`^${summary}${rel('bad.test.js')} ${rel('crash.test.js')}\n$`, 'm'), 'files and assertions counted')
  t.equal(out.match(/^(not )?ok \d - /gm).length, 3, 'one line a file')
  out = ''
  t.equal(await runFiles({ title: 'unit', jobs: 3, files: [rel('good.test.js')] }, (s) => { out += s }), true, 'all passed')
  t.notMatch(out, /failed:/)
})

t.test('off Linux, the unit files that need it are skipped with a line each saying why, and counted apart', async (t) => {
  const files = testFiles()
  t.same(Object.keys(LINUX).filter((f) => groupOf(f) !== 'unit'), [], 'each one a unit file that exists')
  const darwin = spawnSync(process.execPath, ['-e', 'console.log(JSON.stringify(require("./test/tools/run").plan(["unit"]).runs[0]))'],
    { cwd: ROOT, env: { ...process.env, BENCH_PLATFORM: 'darwin' }, encoding: 'utf8' })
  const run = JSON.parse(darwin.stdout)
  t.same(run.skipped, Object.keys(LINUX).sort(), 'as if on macOS: skipped')
  t.same(run.files.filter((f) => LINUX[f]), [], 'and not run')
  t.equal(run.files.length + run.skipped.length, files.filter((f) => !SYSTEM[f]).length, 'every other unit file runs')
  const here = plan(['unit']).runs[0]
  t.same(here.skipped, hasProc() ? [] : Object.keys(LINUX).sort(), 'on Linux none is skipped')
  let out = ''
  const dir = t.testdir({ 'good.test.js': "require('tap').pass('a')\n" })
  const good = path.relative(ROOT, path.join(dir, 'good.test.js'))
  const [skipped] = Object.keys(LINUX)
  t.equal(await runFiles({ title: 'unit', jobs: 1, files: [good], skipped: [skipped] }, (s) => { out += s }), true)
  t.match(out, new RegExp(`^ok 1 - ${skipped} # SKIP needs Linux, [^:]+: ${LINUX[skipped].replace(/[()]/g, '\\$&')}$`, 'm'))
  t.match(out, /^# unit: 1 of 1 files passed \(1 skipped\) in [\d.]+ s; /m)
})

t.test('the neighbour stops by itself when its time is up, and when its parent is gone', async (t) => {
  const hog = path.join(ROOT, 'test/fixtures/hog.js')
  const started = Date.now()
  const timed = spawnSync(process.execPath, [hog, '--seconds=0.5'], { timeout: 30000 })
  t.equal(timed.status, 0, 'ended by itself')
  t.ok(Date.now() - started >= 500, 'after its time')
  const watched = spawn(process.execPath, [hog], { stdio: ['pipe', 'ignore', 'ignore'], env: { ...process.env, WATCH_PARENT: 'stdin' } })
  const exited = new Promise((resolve) => watched.on('exit', resolve))
  watched.stdin.end() // as when its parent dies: the pipe closes
  t.equal(await exited, 0, 'ended when its parent was gone')
})
