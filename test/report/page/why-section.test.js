'use strict'
// The report's "Why" section (report/page/why-section.js) on a committed sweep folder given a synthetic profile of
// one headline comparison (sync-s1-c2 vs async-s1-c2, 3 rounds): its place, words, tables, links and flame graphs,
// and the same folder without a profile, whose report is the one it always was.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { renderReport } = require('../../../report')
const { whySection } = require('../../../report/page/why-section')
const { whyAnalysis } = require('../../../report/stats/why')
const { readProfile } = require('../../../report/data/profile')
const { writeProfile } = require('../../fixtures/profile-folder')

const SOURCE = path.join(__dirname, '..', '..', '..', 'docs', 'sweep-2026-11-22')
const A = 'sync-s1-c2'
const B = 'async-s1-c2'
const FLAMES = [`profile/${A}.html`, `profile/${B}.html`, `profile/diff-${A}-vs-${B}.html`]

// A copy of the folder's env.json and summary.csv in top/run (a new testdir without top), with a profile unless told otherwise.
function folder (t, how = { a: A, b: B }, top = t.testdir()) {
  const dir = path.join(top, 'run')
  fs.mkdirSync(dir)
  for (const file of ['env.json', 'summary.csv']) fs.copyFileSync(path.join(SOURCE, file), path.join(dir, file))
  if (how) writeProfile(dir, how)
  return dir
}
const read = (file) => fs.readFileSync(file, 'utf8')
const whyOf = (page) => {
  const start = page.indexOf('<section id="why">')
  return start < 0 ? '' : page.slice(start, page.indexOf('</section>', start) + '</section>'.length)
}
const text = (markup) => markup.replace(/<svg[^]*?<\/svg>/g, '').replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'").replace(/\s+/g, ' ')
  .replace(/ ([.,;:)])/g, '$1').replace(/\( /g, '(')
const row = (markup, table, cell) => {
  const body = markup.slice(markup.indexOf(`<table class="${table}">`))
  return text(body.slice(body.indexOf(`<tr><td>${cell}</td>`), body.indexOf('</tr>', body.indexOf(`<tr><td>${cell}</td>`)))).trim()
}

t.test('a profiled folder\'s report explains its comparison right after the answers', async (t) => {
  const dir = folder(t)
  const files = renderReport(dir).map((f) => path.relative(dir, f))
  for (const file of [...FLAMES, 'charts/why-costs.svg', `charts/why-${A}-vs-${B}.svg`]) {
    t.ok(files.includes(file), `${file} is written`)
    t.ok(fs.statSync(path.join(dir, file)).size > 0, `${file} is not empty`)
  }
  const page = read(path.join(dir, 'report.html'))
  const why = whyOf(page)
  t.match(why, '<h2>Why: where each server\'s time goes, per request</h2>')
  const answers = page.indexOf('<section id="answers">')
  t.ok(answers > 0 && page.indexOf('</section>', answers) < page.indexOf(why) && page.indexOf(why) < page.indexOf('<h2>How to read this'),
    'after the answers, before the rest')
  const words = text(why)
  t.match(words, 'Sampled with Linux perf at 999 Hz: every thread and the kernel, with JS names.')
  t.match(words, 'with 3 rounds it covers 75%')
  t.match(words, 'async needs 43 µs more per request than sync [39–43]; the categories beyond noise (async − sync): ' +
    'kernel-wake +31 [29–31], pool +22 [20–24], fs −12 [−13 to −11].')
  t.notMatch(words, /beyond noise[^.]*\bapp\b/, 'app, within noise, is not among them')
  t.equal(row(why, 'why-costs', A), `${A} 40 30 20 0 3.0 10 5.0 108 110 0.96 ±5.9% 2.0 flame graph`, 'µs per request by category, sampled, measured, sleeps')
  t.equal(row(why, 'why-costs', B), `${B} 41 31 8.0 22 3.0 10 36 151 190 0.80 ±5.5% ⚠ 6.0 flame graph`, 'b differs by more than 10%: marked')
  t.match(why, /<td class="num" title="\[38–42\], 3 rounds, 75%">40<\/td>/, 'the interval on hover')
  t.equal(row(why, 'why-waits', A), `${A} 25 0 0`, 'sync blocks its event loop')
  t.equal(row(why, 'why-waits', B), `${B} 0 30 5.0`, 'async waits for the pool')
  t.equal(row(why, 'why-functions', 'uv_fs_read'), 'uv_fs_read pool 0 18 −18', 'the function that changed most first')
  t.match(words, 'The verdicts come from rounds on servers started without the profilers\' flags. The profiler\'s overhead: the windows ' +
    'perf\'s figures come from served 5% less [3.3% less to 10% less, 6 cell rounds, 96.9%] than the passes left unprofiled at random in ' +
    `the same rounds (each cell's median: ${A} 4% less, ${B} 7% less). V8's profiler, which took a pass of its own for the`)
  t.match(words, 'files, served 20% less (it slows every call from JS into node')
  for (const href of FLAMES) t.match(why, `<a href="${href}">`, `${href} is linked`)
  t.match(why, `<figure id="why-${A}-vs-${B}.svg"`, 'the comparison\'s chart is drawn in it')
  t.match(read(path.join(dir, FLAMES[2])), 'sync vs async, 1 process, 2 client processes: sync against async, per request')
  t.match(read(path.join(dir, FLAMES[0])), `${A}: where the server&#39;s time goes, per request`)
})

t.test('a folder without a profile renders exactly as before: no why section, no flame graph', async (t) => {
  const top = t.testdir({ plain: {}, profiled: {} }) // both folders named run: the page shows the folder's name
  const [plain, profiled] = [folder(t, null, path.join(top, 'plain')), folder(t, undefined, path.join(top, 'profiled'))]
  const files = renderReport(plain).map((f) => path.relative(plain, f))
  const withProfile = renderReport(profiled).map((f) => path.relative(profiled, f))
  t.same(files, withProfile.filter((f) => !/^charts\/why-|^profile\//.test(f)), 'the same files, but the why ones')
  t.notOk(fs.existsSync(path.join(plain, 'profile')))
  const page = read(path.join(plain, 'report.html'))
  t.notMatch(page, /id="why"|Why: where/)
  // ECharts numbers its renderers' classes, clip paths and gradients (zr0-cls-0, zr1-c0, zr5-g1) over a process: the why
  // charts shift the count, nothing else.
  const same = (html) => html.replace(/zr\d+-([a-z]+-?)\d+/g, 'zr-$1')
  const other = read(path.join(profiled, 'report.html'))
  t.ok(whyOf(other).length > 0)
  // The first screen's verdict lines (answer.txt) add a line per profiled comparison too.
  t.match(other, /^why sync vs async, 1 process, 2 client processes: .* µs per request, sync against async$/m)
  t.equal(same(page), same(other.replace(whyOf(other), '').replace(/^why .*\n/gm, '')), 'the page is the profiled one without its section and lines')
})

t.test('with V8\'s profiler the section says what it cannot see, and why perf was not used', async (t) => {
  const dir = folder(t, { a: A, b: B, mode: 'v8' })
  renderReport(dir)
  t.match(text(whyOf(read(path.join(dir, 'report.html')))), 'Sampled with V8\'s profiler every 1000 µs: V8 stacks only: main threads; ' +
    'the thread pool and the kernel are not seen — perf_event_paranoid is 3: perf cannot sample.')
})

t.test('perf on this run\'s processes in user space only: the kernel categories say "not sampled", not 0', async (t) => {
  const dir = folder(t, { a: A, b: B, scope: 'user' })
  renderReport(dir)
  const why = whyOf(read(path.join(dir, 'report.html')))
  t.match(text(why), 'Sampled with Linux perf at 999 Hz in this run\'s processes, user space only (kernel.perf_event_paranoid = 2): every ' +
    'thread, with JS names; the kernel categories are not sampled, and measured is the servers\' user CPU time.')
  const kernel = ['kernel-net', 'kernel-fs', 'kernel-wake', 'kernel-other']
  for (const id of kernel) t.match(why, new RegExp(`<th title="[^"]*">${id}</th>`), `${id} has a column`)
  t.equal(row(why, 'why-costs', A).split(' not sampled').length - 1, kernel.length, 'each kernel category: not sampled')
  const perf = folder(t)
  renderReport(perf)
  t.notMatch(whyOf(read(path.join(perf, 'report.html'))), 'not sampled', 'every CPU sampled: figures')
})

t.test('a cell without folded stacks gets no flame graph and no link, and its comparison no differential one', async (t) => {
  const dir = folder(t)
  fs.rmSync(path.join(dir, 'profile', `${B}.folded`))
  const files = renderReport(dir).map((f) => path.relative(dir, f))
  t.same(files.filter((f) => f.startsWith('profile/')), [FLAMES[0]])
  const why = whyOf(read(path.join(dir, 'report.html')))
  t.match(why, `<a href="${FLAMES[0]}">`)
  t.notMatch(why, `href="${FLAMES[1]}"`)
  t.notMatch(why, 'Differential flame graph')
  t.match(text(why), 'async needs 43 µs more per request than sync', 'the figures stay')
})

t.test('malformed folded stacks stop the report with the file named', async (t) => {
  const dir = folder(t)
  fs.writeFileSync(path.join(dir, 'profile', `${A}.folded`), 'worker 1;main;handle lots\n')
  t.throws(() => renderReport(dir), { message: new RegExp(`profile/${A}\\.folded: folded stacks, line 1`) })
})

t.test('the section alone: nothing without a profile, and only the flame graphs written are linked', async (t) => {
  const dir = t.testdir()
  writeProfile(dir, { a: A, b: B })
  const why = whyAnalysis(readProfile(dir), [{ a: A, b: B, label: 'sync vs async', metric: 'opsPerSec', verdict: 'faster' }])
  t.equal(whySection(null, []), '')
  t.equal(whySection({ ...why, cells: [] }, []), '')
  const markup = String(whySection(why, []))
  t.notMatch(markup, '<a href=')
  t.match(text(markup), `${B} needs 43 µs more per request than ${A}`, 'sides named by cell id without the cells\' kinds')
  t.notMatch(markup, '<figure', 'no chart given, none drawn')
})
