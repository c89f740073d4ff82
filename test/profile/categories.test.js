'use strict'
// profile/categories.js: each rule of the category table on crafted stacks (leaf first), and every
// sample of the real perf recording (test/fixtures/profile/perf-script.txt) in exactly one category.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { CATEGORIES, categorize, functionName, isKernel, isPoolThread } = require('../../profile/categories')
const { parsePerfScript } = require('../../profile/perf-script')

// 'k:sym' kernel, 'libc:sym' libc, 'js:name file:line' JS, anything else a symbol of the node binary.
function frames (...specs) {
  return specs.map((spec) => {
    if (spec.startsWith('k:')) return { name: spec.slice(2), file: '[kernel.kallsyms]', line: null, kernel: true }
    if (spec.startsWith('libc:')) return { name: spec.slice(5), file: '/usr/lib/x86_64-linux-gnu/libc.so.6', line: null, kernel: false }
    const js = /^js:(\S+) (.+):(\d+)$/.exec(spec)
    if (js) return { name: js[1], file: js[2], line: Number(js[3]), kernel: false }
    return { name: spec, file: '/usr/bin/node', line: null, kernel: false }
  })
}

const LOOP = ['uv__io_poll', 'uv_run', 'node::SpinEventLoopInternal', 'node::Start']
const HANDLER = ['js:(anonymous) /work/main/servers/lib/app.js:40', 'js:handle /work/main/node_modules/express/lib/router/layer.js:86',
  'js:parserOnIncoming node:_http_server:1026', 'node::(anonymous namespace)::Parser::Execute', 'llhttp__internal_execute', ...LOOP]
const SYSCALL = ['k:do_syscall_64', 'k:entry_SYSCALL_64_after_hwframe']
const POOL = ['worker', 'libc:start_thread']

t.test('the categories are the documented ids, in report order, each saying which samples go there', async (t) => {
  t.same(CATEGORIES.map((c) => c.id), ['app', 'express', 'http', 'fs', 'pool', 'callbacks', 'malloc', 'gc', 'engine', 'kernel-net', 'kernel-fs',
    'kernel-wake', 'kernel-other', 'primary', 'balancer', 'profiler', 'other'])
  for (const c of CATEGORIES) {
    t.match(c.label, /\S/, `${c.id} has a label`)
    t.match(c.what, /^\S[^\n]{20,}\.$/, `${c.id} has one sentence`)
  }
})

const STORE_SORT = 'js:sortLines /work/main/servers/lib/store.js:12'
const CASES = [
  ['a tcp_recvmsg stack copying a page is network, not file system',
    frames('k:_copy_to_iter', 'k:copy_page_to_iter', 'k:tcp_recvmsg_locked', 'k:tcp_recvmsg', 'k:sock_read_iter', 'k:vfs_read', 'k:ksys_read',
      ...SYSCALL, 'libc:read', 'uv__read', ...LOOP), 'kernel-net'],
  ['a loopback softirq delivering a packet under a writev is network',
    frames('k:_raw_spin_unlock_irqrestore', 'k:sock_def_readable', 'k:tcp_v4_rcv', 'k:net_rx_action', 'k:do_writev', ...SYSCALL,
      'libc:writev', 'uv__write', ...LOOP), 'kernel-net'],
  ['a page-cache read is file system',
    frames('k:filemap_get_read_batch', 'k:filemap_read', 'k:vfs_read', 'k:ksys_read', ...SYSCALL, 'libc:read', ...POOL), 'kernel-fs'],
  ['closing a file is file system',
    frames('k:locks_remove_file', 'k:__fput', 'k:__x64_sys_close', ...SYSCALL, 'libc:syscall', 'uv__fs_work', ...POOL), 'kernel-fs'],
  ['a bare vfs_read is file system', frames('k:vfs_read', 'k:ksys_read', ...SYSCALL, 'libc:read'), 'kernel-fs'],
  ['futex_wake is a wake-up',
    frames('k:_raw_spin_unlock_irqrestore', 'k:try_to_wake_up', 'k:wake_up_q', 'k:futex_wake', 'k:do_futex', 'k:__x64_sys_futex', ...SYSCALL,
      'libc:pthread_cond_signal', 'uv_cond_signal', 'uv__work_submit', ...LOOP), 'kernel-wake'],
  ['an eventfd write is a wake-up although it passes vfs_write',
    frames('k:_raw_spin_unlock_irq', 'k:eventfd_write', 'k:vfs_write', 'k:ksys_write', ...SYSCALL, 'libc:write', ...POOL), 'kernel-wake'],
  ['epoll_wait is a wake-up', frames('k:do_epoll_wait', 'k:__x64_sys_epoll_pwait', ...SYSCALL, 'libc:epoll_pwait', ...LOOP), 'kernel-wake'],
  ['a page fault is other kernel',
    frames('k:clear_page_erms', 'k:do_anonymous_page', 'k:handle_mm_fault', 'k:exc_page_fault', 'Builtins_ArrayPrototypeJoin', ...HANDLER), 'kernel-other'],
  ['a user sample of a pool thread is pool', frames('libc:pthread_mutex_lock', ...POOL), 'pool'],
  ['uv__fs_work off the main thread is pool even when the stack is cut', frames('libc:__memmove', 'uv__fs_work'), 'pool', { main: false }],
  ['GC on a pool thread is GC', frames('v8::internal::Scavenger::ScavengeObject', ...POOL), 'gc'],
  ['uv__fs_work on the main thread is a sync fs call',
    frames('libc:read', 'uv__fs_work', 'uv_fs_read', 'node::fs::Read', 'Builtins_CallApiCallback', 'js:readFileSync node:fs:441', ...HANDLER),
    'fs', { main: true }],
  ['readFileSync under the handler is fs when the leaf is in fs',
    frames('Builtins_BaselineOutOfLinePrologue', 'js:readFileSync node:fs:441', ...HANDLER), 'fs'],
  ["the handler's sort is app, with the builtins it calls",
    frames('Builtins_StringCompare', 'Builtins_MergeAt', 'Builtins_ArrayTimSort', 'Builtins_ArrayPrototypeSort', STORE_SORT, ...HANDLER), 'app'],
  ['a test fixture server is app', frames('Builtins_StringCompare', 'js:sortLines /work/main/test/fixtures/server.js:5', ...LOOP), 'app'],
  ["express's layer is express",
    frames('Builtins_LoadIC', 'js:handle /work/main/node_modules/express/lib/router/layer.js:86', 'js:parserOnIncoming node:_http_server:1026', ...LOOP),
    'express'],
  ['a path under node_modules is express even when it holds /servers/', frames('js:f /work/main/node_modules/x/servers/a.js:1', ...HANDLER), 'express'],
  ['the HTTP parser is http',
    frames('llhttp__internal_execute', 'node::(anonymous namespace)::Parser::Execute', 'node::LibuvStreamWrap::OnUvRead', 'uv__read', ...LOOP), 'http'],
  ['node:net JS is http',
    frames('Builtins_LoadIC', 'js:Socket._writeGeneric node:net:927', 'js:end node:_http_outgoing:1034', 'js:(anonymous) /work/main/servers/lib/app.js:40'),
    'http'],
  ['a fs completion is fs', frames('node::fs::FSReqCallback::Resolve', 'node::fs::AfterStat', 'uv__work_done', 'uv__async_io', ...LOOP), 'fs'],
  ['processTicksAndRejections at the leaf is callbacks',
    frames('Builtins_KeyedLoadIC', 'js:processTicksAndRejections node:internal/process/task_queues:67', 'Builtins_JSEntry', 'v8::Function::Call',
      'node::InternalCallbackScope::Close', ...LOOP), 'callbacks'],
  ['a lazy compile under a callback scope is callbacks',
    frames('v8::internal::Parser::ParseFunction', 'v8::internal::Compiler::Compile', 'Builtins_CompileLazy', 'Builtins_JSEntry', 'v8::Function::Call',
      'node::InternalMakeCallback', 'node::AsyncWrap::MakeCallback', ...LOOP), 'callbacks'],
  ['the app under InternalMakeCallback is still app',
    frames('Builtins_StringCompare', STORE_SORT, 'Builtins_JSEntry', 'node::InternalMakeCallback', ...LOOP), 'app'],
  ["GC under the app's sort is GC",
    frames('v8::internal::Scavenger::ScavengePage', 'v8::internal::Heap::CollectGarbage', 'Builtins_MergeAt', STORE_SORT, ...HANDLER), 'gc'],
  ["V8's (garbage collector) is GC", frames('(garbage collector)'), 'gc'],
  ['malloc at the leaf under the app is malloc', frames('_int_malloc', '__GI___libc_malloc', 'node::fs::FSReqPromise::New', STORE_SORT, ...HANDLER), 'malloc'],
  ['free on a pool thread is malloc', frames('cfree@GLIBC_2.2.5', 'uv__fs_work', 'uv__work_done', 'worker', 'start_thread'), 'malloc'],
  ['operator new under a promise is malloc', frames('operator new(unsigned long)', 'js:processTicksAndRejections node:internal/process/task_queues:67',
    ...LOOP), 'malloc'],
  ['a function named like malloc but not at the leaf owns nothing', frames('Builtins_StringCompare', 'malloc_trim_helper_js', STORE_SORT, ...HANDLER), 'app'],
  ['concurrent marking on a helper thread is GC',
    frames('v8::internal::ConcurrentMarking::RunMajor', 'v8::platform::DefaultJobWorker::Run', 'libc:start_thread'), 'gc', { main: false }],
  ['a V8 compile job on a helper thread is engine',
    frames('v8::internal::compiler::GraphReducer::ReduceTop', 'v8::internal::OptimizingCompileDispatcher::CompileTask::RunInternal', 'libc:start_thread'),
    'engine'],
  ["V8's own parser is engine, not node's HTTP Parser", frames('v8::internal::Parser::ParseFunction', 'v8::internal::Compiler::Compile'), 'engine'],
  ['node core JS owned by nothing is engine', frames('js:emit node:events:471'), 'engine'],
  ['libc alone is other', frames('libc:__memmove_avx512_unaligned_erms'), 'other'],
  ['the event loop itself is other', frames(...LOOP), 'other'],
  ["V8's (program) is other", frames('(program)'), 'other'],
  ['no frames at all is other', [], 'other'],
  ['the primary role wins over any frame', frames('k:tcp_sendmsg', ...SYSCALL), 'primary', { role: 'primary' }],
  ['the balancer role wins over any frame', frames('libc:memcpy', 'h1_process'), 'balancer', { role: 'balancer' }],
  ["the profiler's signal handler on top of app frames is profiler",
    frames('v8::sampler::SamplerManager::DoSample', 'v8::sampler::SignalHandler::HandleProfilerSignal', 'libc:__restore_rt', STORE_SORT), 'profiler'],
  ['the profiler wins over a kernel leaf',
    frames('k:futex_wake', ...SYSCALL, 'libc:pthread_mutex_lock', 'v8::internal::SamplingEventsProcessor::Run'), 'profiler'],
  ['the inspector is profiler', frames('v8_inspector::V8ProfilerAgentImpl::stop', 'node::inspector::Agent::Start'), 'profiler']
]

t.test('each rule of the table puts its stack in its category', async (t) => {
  for (const [name, stack, want, options = {}] of CASES) t.equal(categorize(stack, { role: 'worker', ...options }), want, name)
})

t.test("libuv's worker is a pool thread only with start_thread rootward, never on the main thread", async (t) => {
  t.equal(isPoolThread(frames('libc:read', ...POOL)), true)
  t.equal(isPoolThread(frames('libc:read', 'worker')), false, 'cut before start_thread')
  t.equal(isPoolThread(frames('libc:read', 'libc:start_thread', 'worker')), false, 'start_thread leafward of worker')
  t.equal(isPoolThread(frames('libc:read', ...POOL), true), false, 'main thread')
  t.equal(isPoolThread(frames('uv__fs_work')), false, 'uv__fs_work on a thread not known to be off main')
  t.equal(isPoolThread(frames('uv__work_done'), false), false, 'completion runs on the main thread')
})

t.test('functionName shows JS as name file:line and native or kernel frames as their symbol', async (t) => {
  t.equal(functionName({ name: 'readFile', file: 'node:fs', line: 363 }), 'readFile node:fs:363')
  t.equal(functionName({ name: '', file: '/work/main/servers/lib/app.js', line: 3 }), '(anonymous) /work/main/servers/lib/app.js:3')
  t.equal(functionName({ name: 'uv__read', file: '/usr/bin/node', line: null }), 'uv__read')
  t.equal(functionName({ name: 'tcp_sendmsg', file: '[kernel.kallsyms]', line: null, kernel: true }), 'tcp_sendmsg')
  t.equal(isKernel({ name: 'x', file: '[kernel.kallsyms]' }), true)
  t.equal(isKernel({ name: 'x', file: '/usr/bin/node', kernel: false }), false)
})

t.test('every sample of the recording gets the one category its stacks say (counted by hand)', async (t) => {
  const text = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'profile', 'perf-script.txt'), 'utf8')
  const samples = parsePerfScript(text)
  const ids = new Set(CATEGORIES.map((c) => c.id))
  const totals = {}
  for (const s of samples) {
    const id = categorize(s.frames, { role: 'single', main: s.tid === s.pid })
    t.ok(ids.has(id), `${id} is a category`)
    totals[id] = (totals[id] ?? 0) + s.periodNs
  }
  t.equal(samples.length, 44, 'the recording holds 44 samples')
  const counts = Object.fromEntries(Object.entries(totals).map(([id, ns]) => [id, ns / 1001001]))
  t.same(counts, {
    app: 4, express: 1, http: 2, fs: 4, pool: 2, callbacks: 3, gc: 6, engine: 2, 'kernel-net': 3, 'kernel-fs': 4,
    'kernel-wake': 4, 'kernel-other': 2, profiler: 3, other: 4
  })
})
