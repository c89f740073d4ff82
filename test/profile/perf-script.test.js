'use strict'
// profile/perf-script.js: `perf script --ns` text (a trimmed real recording of node 20 serving
// files, test/fixtures/profile/perf-script.txt, and crafted lines) parsed into leaf-first samples.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { parsePerfScript, parseFrame } = require('../../profile/perf-script')

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'profile', 'perf-script.txt')
const samples = parsePerfScript(fs.readFileSync(FIXTURE, 'utf8'))

t.test('every sample of the recording is read, with its process, thread, time and period', async (t) => {
  t.equal(samples.length, 44)
  t.same([...new Set(samples.map((s) => s.pid))], [15963, 20423])
  t.same([...new Set(samples.map((s) => s.tid))].sort(), [15963, 15969, 15970, 15987, 15988, 15989, 15990, 20423, 20432].sort())
  t.ok(samples.every((s) => s.periodNs === 1001001), 'cpu-clock at 999 Hz: 1001001 ns each')
  t.equal(samples[0].comm, 'node')
  t.equal(samples.find((s) => s.tid === 20432).comm, 'v8:ProfEvntProc')
  t.equal(samples[0].frames.length, 43)
  t.equal(samples[1].frames.length, 2)
})

t.test('times are integer ns read from the digits, in recording order', async (t) => {
  t.ok(samples.every((s) => Number.isInteger(s.timeNs)))
  t.equal(samples[0].timeNs, 11689312900573)
  t.equal(samples.at(-1).timeNs, 11876409326868)
  t.ok(samples.every((s, i) => i === 0 || s.timeNs > samples[i - 1].timeNs))
})

t.test('kernel frames are flagged by their dso, user frames are not', async (t) => {
  const send = samples.find((s) => s.frames[0].name === 'tcp_sendmsg_locked')
  const kernel = send.frames.filter((f) => f.kernel).map((f) => f.name)
  t.same(kernel.slice(0, 3), ['tcp_sendmsg_locked', 'tcp_sendmsg', 'sock_write_iter'])
  t.equal(kernel.at(-1), 'entry_SYSCALL_64_after_hwframe')
  const firstUser = send.frames.findIndex((f) => !f.kernel)
  t.equal(send.frames[firstUser].file, '/usr/lib/x86_64-linux-gnu/libc.so.6')
  t.ok(send.frames.slice(firstUser).every((f) => !f.kernel), 'kernel frames are all leafward of user frames')
  t.equal(send.frames[0].file, '[kernel.kallsyms]')
})

t.test("JS frames of node's perf map get a function name, a file and a line", async (t) => {
  const frames = samples.flatMap((s) => s.frames)
  const readFile = frames.find((f) => f.name === 'readFile')
  t.same(readFile, { name: 'readFile', file: 'node:fs', line: 363, kernel: false })
  t.same(frames.find((f) => f.name === 'getOptions'), { name: 'getOptions', file: 'node:internal/fs/utils', line: 321, kernel: false })
  const anonymous = frames.filter((f) => f.name === '(anonymous)' && f.file === '/tmp/prof/servers/lib/app.js')
  t.same([...new Set(anonymous.map((f) => f.line))].sort(), [10, 8, 9].sort(), 'the three handlers, by line, without the column')
  t.ok(frames.some((f) => f.name === 'sortLines' && f.line === 6), 'the * of optimised code is not in the name')
  t.ok(frames.some((f) => f.name === 'handleRequest' && f.file === '/work/main/node_modules/router/lib/layer.js' && f.line === 154))
})

t.test('native frames keep their symbol, their dso as the file and no line', async (t) => {
  const frames = samples.flatMap((s) => s.frames)
  t.same(frames.find((f) => f.name === 'worker'), { name: 'worker', file: '/usr/bin/node', line: null, kernel: false })
  t.ok(frames.some((f) => f.name === 'node::(anonymous namespace)::Parser::Proxy<int (node::(anonymous namespace)::Parser::*)(), ' +
    '&node::(anonymous namespace)::Parser::on_headers_complete>::Raw'), 'parentheses and templates stay in the symbol')
  t.same(samples[1].frames[1], { name: '[unknown]', file: '[unknown]', line: null, kernel: false })
})

t.test('JS names in every marker and format node has written', async (t) => {
  const layer = '/work/main/node_modules/express/lib/router/layer.js'
  const cases = [
    ['JS:^readFile node:fs:363:18', { name: 'readFile', file: 'node:fs', line: 363 }],
    [`JS:*handle ${layer}:86:49`, { name: 'handle', file: layer, line: 86 }],
    ['JS:~ /work/main/servers/lib/app.js:3:27', { name: '(anonymous)', file: '/work/main/servers/lib/app.js', line: 3 }],
    ['JS:onread node:net:700:3', { name: 'onread', file: 'node:net', line: 700 }],
    ['LazyCompile:*sortLines /work/main/servers/lib/store.js:12', { name: 'sortLines', file: '/work/main/servers/lib/store.js', line: 12 }],
    ['JS:~get headers node:_http_incoming:110:12', { name: 'get headers', file: 'node:_http_incoming', line: 110 }],
    ['JS:*noLocation', { name: 'noLocation', file: '', line: null }]
  ]
  for (const [sym, want] of cases) t.same(parseFrame(sym, '/tmp/perf-1.map'), { ...want, kernel: false }, sym)
})

t.test('a comm with spaces, a dso with parentheses and perf noise are read as perf writes them', async (t) => {
  const text = [
    'perf: some warning on stderr redirected here',
    'V8 DefaultWorke 42/57 100.000000001:     250000 ',
    '\t          d910ab v8::internal::Scavenger::Process (/usr/bin/node)',
    '\t    7f00000010 JS:^f /srv/x.js:1:1 (/memfd:doublemapper (deleted))',
    '',
    'node 42/42 7.5:    1001001 ',
    '',
    'node 42/42 8.000000002:    1001001 ',
    '\tffffffff81000130 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])',
    ''
  ].join('\n')
  const got = parsePerfScript(text)
  t.equal(got.length, 3)
  t.same({ ...got[0], frames: undefined }, { comm: 'V8 DefaultWorke', pid: 42, tid: 57, timeNs: 100000000001, periodNs: 250000, frames: undefined })
  t.same(got[0].frames[1], { name: 'f', file: '/srv/x.js', line: 1, kernel: false })
  t.equal(got[1].timeNs, 7500000000, 'fewer than 9 decimals are padded')
  t.same(got[1].frames, [], 'a sample without frames')
  t.same(got[2].frames, [{ name: 'entry_SYSCALL_64_after_hwframe', file: '[kernel.kallsyms]', line: null, kernel: true }])
})
