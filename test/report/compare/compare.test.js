'use strict'
// ./run_benchmark.sh compare A B on two small committed results folders (before: Node 20; after:
// Node 22 with sync 1.5x faster in every round, everything else the same), and its bad inputs.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { writePeakFolder } = require('../../fixtures/results-folder')

const SCRIPT = path.resolve(__dirname, '..', '..', '..', 'run_benchmark.sh')
const BEFORE = path.join(__dirname, '..', '..', 'fixtures', 'compare', 'before')
const AFTER = path.join(__dirname, '..', '..', 'fixtures', 'compare', 'after')
const compare = (...args) => spawnSync(SCRIPT, ['compare', ...args], { encoding: 'utf8' })
const row = (markdown, cell) => markdown.split('\n').find((line) => line.startsWith(`| ${cell} |`))

t.test('compare lists the environment differences first, then marks the one cell that changed', async (t) => {
  const page = path.join(t.testdir(), 'compare.html')
  const { status, stdout, stderr } = compare(BEFORE, AFTER, `--html=${page}`)
  t.equal(status, 0, stderr)
  t.equal(stderr, `compare: ${page}\n`, 'the page\'s path on stderr, nothing else')
  const env = stdout.indexOf('## Environment differences')
  t.ok(env > 0 && env < stdout.indexOf('## Shared cells (4)'), 'environment first')
  for (const line of ['| node | v20.20.2 | v22.23.3 |', '| release | 6.1.0-28-cloud-amd64 | 6.12.0-1-cloud-amd64 |',
    '| argv | ["quick","--seed=1"] | ["quick","--seed=2"] |']) {
    t.ok(stdout.includes(line), line)
  }
  t.notMatch(stdout, /\| (cpus|cpuModel|packages\.express) \|/, 'what is the same is not listed')
  t.equal(row(stdout, 'sync-s1-c4'),
    '| sync-s1-c4 | 2,970 | 4,500 | 1.51× [1.38–1.63] **faster** | 0.66× [0.61–0.72] **lower** | 0.66× [0.61–0.72] **lower** |')
  for (const cell of ['async-s1-c4', 'sync-cluster-s2-c4', 'async-cluster-s2-c4']) {
    t.match(row(stdout, cell), /^\| [\w-]+ \| [\d,]+ \| [\d,]+ \| 1\.00× \[0\.92–1\.08\] \| 1\.00× \[0\.92–1\.08\] \| 1\.00× \[0\.92–1\.08\] \|$/,
      `${cell} unchanged`)
  }
  t.match(stdout, /^3 of 12 figures changed clearly: sync-s1-c4 ops\/s faster \(1\.51× \[1\.38–1\.63\]\); sync-s1-c4 GET p99 lower/m)
  t.match(stdout, /Bonferroni over 12 comparisons/)
  t.match(stdout, /marked faster or slower \(B against A\) when its interval leaves out 1, the same when it lies within ±5%/)
  // Each folder's own verdicts, side by side: sync became faster than async on Node 22.
  const verdicts = stdout.slice(stdout.indexOf('## Verdicts'), stdout.indexOf('## Shared cells'))
  t.match(verdicts, '| sync vs async, 1 process, 4 client processes | 1.50× [1.50–1.50] faster | 2.25× [2.25–2.25] faster |')
  t.match(verdicts, '| A/A: async, cluster of 2 workers, 4 client processes | 1.00× [0.97–1.03] same | 1.00× [0.97–1.03] same |', 'the A/A pair among them')
  t.match(verdicts, /^1 verdict differs: sync: cluster of 2 workers vs 1 process, 4 client processes: faster in A, slower in B\.$/m)
  t.match(stdout, /Only in A: sync-s1-c1\. Only in B: sync-s1-c8\./)
  const html = fs.readFileSync(page, 'utf8')
  t.match(html, /<td>node<\/td><td>v20\.20\.2<\/td><td>v22\.23\.3<\/td>/)
  t.match(html, /<td class="changed">1\.51× \[1\.38–1\.63\]<br><strong>faster<\/strong><\/td>/)
  t.notMatch(html, /<script|<link|\ssrc=/, 'the page loads nothing')
})

t.test('a folder made with --node matches cells by their settings, its version an environment difference', async (t) => {
  // AFTER as `--node=22` writes it: the version in every cell id (before an A/A label).
  const dir = t.testdir()
  fs.copyFileSync(path.join(AFTER, 'env.json'), path.join(dir, 'env.json'))
  const csv = fs.readFileSync(path.join(AFTER, 'summary.csv'), 'utf8')
  fs.writeFileSync(path.join(dir, 'summary.csv'), csv.replace(/^([a-z-]+-s\d+-c\d+)(-[AB])?,/gm, '$1-node-v22.23.3$2,'))
  const { status, stdout, stderr } = compare(BEFORE, dir, `--html=${path.join(dir, 'compare.html')}`)
  t.equal(status, 0, stderr)
  t.match(stdout, '## Shared cells (4)')
  t.match(row(stdout, 'sync-s1-c4'), /^\| sync-s1-c4 \| 2,970 \| 4,500 \| 1\.51× /)
  t.match(stdout, '| serverRuntimes | ["node-v20.20.2"] | ["node-v22.23.3"] |')
})

t.test('a folder compared with itself changes nothing, and the page goes next to B by default', async (t) => {
  const dir = t.testdir()
  for (const name of ['a', 'b']) fs.cpSync(BEFORE, path.join(dir, name), { recursive: true })
  const { status, stdout } = compare(path.join(dir, 'a'), path.join(dir, 'b'))
  t.equal(status, 0)
  t.match(stdout, /None: the same Node, CPU, kernel, flags and packages\./)
  t.match(stdout, /No figure changed clearly in the 5 shared cells\./)
  t.match(stdout, /Every verdict the two folders share is the same in both\./)
  t.notMatch(stdout, /\*\*/, 'no cell is marked')
  t.ok(fs.existsSync(path.join(dir, 'b', 'compare-a.html')))
})

t.test('compare exits 2 with one line for bad inputs', async (t) => {
  const dir = t.testdir({ empty: {}, other: {} })
  fs.cpSync(BEFORE, path.join(dir, 'other'), { recursive: true })
  const summary = path.join(dir, 'other', 'summary.csv')
  fs.writeFileSync(summary, fs.readFileSync(summary, 'utf8').replace(/^(\w[\w-]*?)-c(\d)/gm, '$1-x$2'))
  writePeakFolder(path.join(dir, 'peak'))
  for (const [args, message] of [
    [[BEFORE], /^compare: compare needs two results folders, A and B/],
    [[BEFORE, AFTER, '--seed=1'], /^compare: compare needs two results folders/],
    [[path.join(dir, 'empty'), AFTER], /^compare: .*empty is not a results folder: .*env\.json: ENOENT/],
    [[BEFORE, path.join(dir, 'nowhere')], /^compare: .*nowhere is not a results folder/],
    [[path.join(dir, 'peak'), AFTER], /^compare: .*peak is a peak folder: compare reads sweep, quick, run and capacity folders/],
    [[BEFORE, path.join(dir, 'other')], /^compare: .* share no cell \(cell ids such as sync-s1-c1 and sync-s1-x1\)/]
  ]) {
    const { status, stdout, stderr } = compare(...args)
    t.equal(status, 2, args.join(' '))
    t.equal(stdout, '')
    t.match(stderr, message)
    t.equal(stderr.trim().split('\n').length, 1, 'one line')
  }
})

t.test('--fail-on=slower gates CI: exit 1 exactly when a watched cell or comparison is slower in B, the reason on stderr', async (t) => {
  const page = path.join(t.testdir(), 'compare.html')
  const passed = compare(BEFORE, AFTER, `--html=${page}`, '--fail-on=slower')
  t.equal(passed.status, 0, 'sync got faster, nothing slower')
  t.match(passed.stdout, /^## Gate \(--fail-on=slower\): passed\n\nNothing watched is slower beyond noise: 4 cells \(every figure\) and 0 comparisons\.$/m)
  t.equal(passed.stderr, `compare: ${page}\n`)

  const failed = compare(AFTER, BEFORE, `--html=${page}`, '--fail-on=slower')
  const found = ['sync-s1-c4 ops/s 0.66× [0.61–0.72] slower', 'sync-s1-c4 GET p99 1.51× [1.38–1.63] higher', 'sync-s1-c4 PUT p99 1.51× [1.38–1.63] higher']
  t.equal(failed.status, 1, 'the other way round, sync is slower')
  t.equal(failed.stderr, `compare: ${page}\ncompare: slower beyond noise: ${found.join('; ')}\n`)
  t.match(failed.stdout, '## Gate (--fail-on=slower): failed\n\nSlower beyond noise, of 4 cells (every figure) and 0 comparisons watched:\n\n' +
    `${found.map((f) => `- ${f}`).join('\n')}\n`)
  t.match(fs.readFileSync(page, 'utf8'), '<li>sync-s1-c4 ops/s 0.66× [0.61–0.72] slower</li>', 'the page says so too')

  t.equal(compare(AFTER, BEFORE, `--html=${page}`, '--fail-on=slower', '--watch=async-s1-c4').status, 0, 'a watched cell that did not change')
  const label = 'sync: cluster of 2 workers vs 1 process, 4 client processes'
  const comparison = compare(BEFORE, AFTER, `--html=${page}`, '--fail-on=slower', `--watch=${label}`)
  t.equal(comparison.status, 1, 'a watched comparison whose verdict in B is slower (faster in A)')
  t.match(comparison.stderr, `compare: slower beyond noise: ${label}: 0.73× [0.73–0.73] slower in B\n`)
  t.equal(compare(AFTER, BEFORE, `--html=${page}`, '--fail-on=slower', `--watch=${label}`).status, 0, 'faster in B')
})

t.test('a comparison pairs by its two cells, not by its label (a folder of one storage leaves the storage out of it)', async (t) => {
  const dir = t.testdir()
  const [a, b] = [path.join(dir, 'a'), path.join(dir, 'b')]
  fs.cpSync(BEFORE, a, { recursive: true })
  fs.cpSync(AFTER, b, { recursive: true })
  for (const folder of [a, b]) spawnSync(SCRIPT, ['report', folder], { encoding: 'utf8' })
  const file = path.join(b, 'verdicts.json')
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'))
  for (const c of doc.comparisons) c.label = `${c.label} (B's words)`
  fs.writeFileSync(file, JSON.stringify(doc))
  const label = 'sync: cluster of 2 workers vs 1 process, 4 client processes'
  const { status, stdout, stderr } = compare(a, b, `--html=${path.join(dir, 'compare.html')}`, '--fail-on=slower', `--watch=${label}`)
  t.match(row(stdout, `${label} (B's words)`), /^\| .+ \| .+ faster \| .+ slower \|$/, 'A\'s verdict and B\'s in one row, under B\'s label')
  t.notOk(row(stdout, label), 'no row of A\'s label alone')
  t.equal(status, 1, 'A\'s label still watches it')
  t.match(stderr, `slower beyond noise: ${label} (B's words): 0.73×`)
})

t.test('the gate\'s bad flags exit 2 with one line, writing nothing', async (t) => {
  const page = path.join(t.testdir(), 'compare.html')
  for (const [args, message] of [
    [['--fail-on=faster'], '--fail-on must be slower, got "faster"'],
    [['--watch=async-s1-c4'], '--watch says what --fail-on=slower watches: give --fail-on=slower too'],
    [['--fail-on=slower', '--watch=nope', '--watch=async-s1-c4'], '--watch names no shared cell or comparison: "nope"'],
    [['--fail-on=slower', '--fail-on=slower'], '--fail-on and --html are given once each']]) {
    const run = compare(BEFORE, AFTER, `--html=${page}`, ...args)
    t.equal(run.status, 2, args.join(' '))
    t.equal(run.stderr, `compare: ${message}\n`)
    t.equal(run.stdout, '')
    t.notOk(fs.existsSync(page), 'no page')
  }
})

t.test('Markdown that would not fit a pull-request comment keeps only the cells that changed', async (t) => {
  const { compareFolders } = require('../../../report/compare/compare')
  const { compareMarkdown } = require('../../../report/compare/format')
  const result = compareFolders(BEFORE, AFTER)
  const whole = compareMarkdown(result)
  t.ok(row(whole, 'async-s1-c4'), 'every cell when it fits')
  const short = compareMarkdown(result, { limit: whole.length - 1 })
  t.ok(row(short, 'sync-s1-c4'), 'the cell that changed')
  t.notOk(row(short, 'async-s1-c4'), 'not the others')
  t.match(short, '3 cells without a clear change are left out of this table to fit a pull-request comment (65,536 characters)')
})

// A copy of a fixture folder, in root, whose env.json is changed by edit.
function folderLike (root, from, name, edit) {
  const dir = path.join(root, name)
  fs.cpSync(from, dir, { recursive: true })
  const env = JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8'))
  fs.writeFileSync(path.join(dir, 'env.json'), JSON.stringify(edit(env)))
  return dir
}
const cost = (estimate, spread) => ({ estimate, low: estimate - spread, high: estimate + spread, n: 15, confidence: 0.965 })
const fingerprint = (poolTrip) => ({ cpuModel: 'x', cores: 2, kernel: 'Linux 6.1', mitigations: null, seconds: 0.5,
  costs: { poolTripUs: cost(poolTrip, 2), wakeUpUs: cost(10, 1), systemCallUs: cost(0.6, 0.05), jsWorkUs: cost(220, 3), httpRoundTripUs: cost(100, 8) } })

t.test('two machines: said first with their costs side by side, and the gate does not judge code across them (exit 3)', async (t) => {
  const root = t.testdir()
  const a = folderLike(root, BEFORE, 'amd', (env) => ({ ...env, fingerprint: fingerprint(30) }))
  const b = folderLike(root, AFTER, 'intel', (env) => ({ ...env, cpuModel: 'Intel(R) Xeon(R) Platinum 8488C', fingerprint: fingerprint(45) }))
  const page = path.join(root, 'compare.html')
  const shown = compare(a, b, `--html=${page}`)
  t.equal(shown.status, 0, 'without the gate, compare reports as ever')
  const at = shown.stdout.indexOf('## The machines differ')
  t.ok(at > 0 && at < shown.stdout.indexOf('## Environment differences'), 'the machines come first')
  t.match(shown.stdout, 'A and B were made on different machines (CPU model: AMD EPYC 7B13 → Intel(R) Xeon(R) Platinum 8488C). ' +
    'Of their costs, beyond their noise B\'s pool trip is 1.50x A\'s. Every ratio below mixes the change of machine with any change of code')
  t.match(shown.stdout, '| pool trip | 30.0 [28.00-32.00] | 45.0 [43.00-47.00] | 1.50 **moved** |')
  t.match(shown.stdout, '| system call | 0.60 [0.55-0.65] | 0.60 [0.55-0.65] | 1.00 |')
  t.match(fs.readFileSync(page, 'utf8'),
    /<h2>The machines differ<\/h2>[^]*<td>pool trip<\/td><td>30\.0 \[28\.00-32\.00\]<\/td><td>45\.0 \[43\.00-47\.00\]<\/td><td>1\.50 \(moved\)<\/td>/)

  const gated = compare(b, a, `--html=${page}`, '--fail-on=slower')
  t.equal(gated.status, 3, 'exit 3: code is not judged across machines (B is slower in a cell here, which would be exit 1)')
  t.match(gated.stderr, /^compare: --fail-on=slower does not judge code across machines \(CPU model: Intel\(R\) Xeon\(R\) Platinum 8488C → AMD EPYC 7B13\): /m)
  t.match(gated.stderr, /: run A's code and B's on one machine and compare those two folders$/m)
  t.match(gated.stdout, /^## Gate \(--fail-on=slower\): not judged$/m)
  t.notMatch(gated.stdout, /slower beyond noise/i)
  t.equal(compare(b, a, `--html=${page}`, '--fail-on=slower', '--watch=nosuchcell').status, 2, 'a bad --watch is still refused first')

  const old = folderLike(root, AFTER, 'old', (env) => ({ ...env, cpuModel: 'Intel Xeon' }))
  const before = compare(BEFORE, old, `--html=${page}`).stdout
  t.match(before, /different machines \(CPU model: AMD EPYC 7B13 → Intel Xeon\)\. One folder or both have no fingerprint/,
    'folders from before the fingerprint: the change of machine all the same')
})

t.test('a fingerprint whose wake-ups ran on one CPU: said beside the costs', async (t) => {
  const { machineDifference, machineLines } = require('../../../report/compare/machine')
  const env = (wakeCpu, cores = 2) => {
    const fp = fingerprint(30)
    return { cpuModel: 'x', cpus: cores, fingerprint: { ...fp, cores, costs: { ...fp.costs, wakeUpCpuUs: cost(wakeCpu, 0.5) } } }
  }
  const said = (a, b) => machineLines(machineDifference(a, b)).join('\n')
  // A hand-off across CPUs 10 µs of time, 7.5 of CPU; on one CPU 9.5 of 10 (95%): the second a busy machine's
  t.match(said(env(7.5), env(9.5)), 'B measured its wake-ups with both threads on one CPU (a busy machine): a context switch\'s cost')
  t.match(said(env(9.5), { ...env(9.5), cpuModel: 'y' }), 'A and B measured their wake-ups with both threads on one CPU')
  t.notMatch(said(env(7.5), env(8.5)), /one CPU/, 'at 85% of its time: across CPUs')
  t.notMatch(said(env(7.5, 1), env(9.5, 1)), /one CPU/, 'one core: every hand-off is on one CPU, nothing to say')
})

t.test('one kind of machine whose costs moved beyond their noise: said, and the gate still judges', async (t) => {
  const root = t.testdir()
  const a = folderLike(root, BEFORE, 'calm', (env) => ({ ...env, fingerprint: fingerprint(30) }))
  const b = folderLike(root, AFTER, 'busy', (env) => ({ ...env, fingerprint: fingerprint(60) }))
  const page = path.join(root, 'compare.html')
  const res = compare(a, b, `--html=${page}`, '--fail-on=slower')
  t.equal(res.status, 0, 'judged: nothing slower')
  t.match(res.stdout, /^## The machine's costs moved\n\nOne kind of machine, but beyond their noise B's pool trip is 2\.00x A's: a busier machine/m)
  const same = folderLike(root, AFTER, 'same', (env) => ({ ...env, fingerprint: fingerprint(31) }))
  t.notMatch(compare(a, same, `--html=${page}`).stdout, /## The machine/, 'costs within their noise: nothing said')
})

t.test('two machines, A profiled: the model\'s expectation of B beside what B measured, as predict A --on=B gives it', async (t) => {
  const root = t.testdir()
  const [a, b] = ['model-2026-11-29-amd-a', 'model-2026-11-29-amd-1core'].map((name) => path.join(__dirname, '..', '..', '..', 'docs', name))
  const shown = compare(a, b, `--html=${path.join(root, 'compare.html')}`)
  t.equal(shown.status, 0, shown.stderr)
  t.match(shown.stdout, /^- B: .*model-2026-11-29-amd-1core \(quick, Node v20\.20\.2, 1 core\)$/m, 'one core, said so')
  const predicted = JSON.parse(spawnSync(SCRIPT, ['predict', a, `--on=${b}`, '--json'], { encoding: 'utf8' }).stdout).predicted
  const verdicts = JSON.parse(fs.readFileSync(path.join(b, 'verdicts.json'), 'utf8')).comparisons
  const measured = (cells) => verdicts.find((v) => v.a === cells[0] && v.b === cells[1] && v.metric === 'opsPerSec').estimate
  const [one, cluster] = [['sync-s1-c2-doff', 'async-s1-c2-doff'], ['sync-cluster-s2-c2-doff', 'async-cluster-s2-c2-doff']].map(measured)
  t.match(shown.stdout, `the model (predict A --on=B) expects ${predicted[0].ratio.toFixed(2)}x for sync vs async, 1 process ` +
    `(B measured ${one.toFixed(2)}x) and ${predicted[1].ratio.toFixed(2)}x for sync vs async, cluster of 2 (B measured ${cluster.toFixed(2)}x)`)
  t.notMatch(compare(b, path.join(__dirname, '..', '..', '..', 'docs', 'why-2026-11-27-node20'), `--html=${path.join(root, 'c2.html')}`).stdout,
    /the model/, 'B without a fingerprint: no expectation')
})

// A copy of BEFORE whose rows say their files held `records` each (summary.csv's fileRecords), made with env.json's options.
function grownLike (root, name, records, options = {}) {
  const dir = folderLike(root, BEFORE, name, (env) => ({ ...env, options: { ...env.options, ...options } }))
  const [head, ...rows] = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8').trimEnd().split('\n')
  fs.writeFileSync(path.join(dir, 'summary.csv'), [`${head},fileRecords`, ...rows.map((r) => `${r},${records}`)].join('\n') + '\n')
  return dir
}

t.test('files grown unlike in the two folders are an environment difference; alike ones are not', async (t) => {
  const root = t.testdir()
  const grown = grownLike(root, 'grown', 140)
  const fresh = grownLike(root, 'fresh', 6.5, { freshFiles: true })
  const near = grownLike(root, 'near', 120)
  const unlike = compare(grown, fresh, `--html=${path.join(root, 'a.html')}`)
  t.equal(unlike.status, 0, unlike.stderr)
  t.match(unlike.stdout, '| records a file by the end (a GET sorts the whole file) | 140 | 6.5 (--freshFiles) |')
  const alike = compare(grown, near, `--html=${path.join(root, 'b.html')}`)
  t.equal(alike.status, 0, alike.stderr)
  t.notMatch(alike.stdout, 'records a file', '140 against 120: within a quarter, not listed')
  t.notMatch(compare(BEFORE, fresh, `--html=${path.join(root, 'c.html')}`).stdout, 'records a file', 'a folder without the column: nothing said')
})
