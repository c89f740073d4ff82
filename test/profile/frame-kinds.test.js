'use strict'
// profile/frame-kinds.js: what one frame is (owner, GC, profiler, engine) and the kernel kind of a
// kernel stack, by name and file, on crafted frames.

const t = require('tap')
const { ownerOf, kernelKind, isGcFrame, isProfilerFrame, isEngineFrame, isJs } = require('../../profile/frame-kinds')

const js = (name, file, line = 1) => ({ name, file, line, kernel: false })
const native = (name) => ({ name, file: '/usr/bin/node', line: null, kernel: false })
const kernel = (...names) => names.map((name) => ({ name, file: '[kernel.kallsyms]', line: null, kernel: true }))

t.test('each user-space frame owns the category its name or file says, or none', async (t) => {
  const cases = [
    [js('sortLines', '/work/main/servers/lib/store.js'), 'app'],
    [js('handler', 'file:///srv/test/fixtures/server.js'), 'app'],
    [js('handle', '/work/main/node_modules/express/lib/router/layer.js'), 'express'],
    [js('f', '/work/main/node_modules/pkg/servers/x.js'), 'express'],
    [js('parserOnIncoming', 'node:_http_server'), 'http'],
    [js('Writable.uncork', 'node:internal/streams/writable'), 'http'],
    [native('llhttp__internal_execute'), 'http'],
    [native('node::LibuvStreamWrap::OnUvRead'), 'http'],
    [js('readFile', 'node:fs'), 'fs'],
    [js('readFileHandle', 'node:internal/fs/promises'), 'fs'],
    [native('node::fs::ReadFileUtf8'), 'fs'],
    [native('node::MakeLibuvRequestCallback<uv_fs_s, void (*)(uv_fs_s*)>::Wrapper'), 'fs'],
    [native('uv__work_done'), 'fs'],
    [js('processTicksAndRejections', 'node:internal/process/task_queues'), 'callbacks'],
    [native('v8::internal::MicrotaskQueue::RunMicrotasks'), 'callbacks'],
    [native('Builtins_PromiseFulfillReactionJob'), 'callbacks'],
    [native('v8::internal::Heap::CollectGarbage'), 'gc'],
    [native('v8::internal::HeapObject::SizeFromMap'), null],
    [native('v8::internal::Parser::ParseFunction'), null],
    [js('emit', 'node:events'), null],
    [native('uv__io_poll'), null],
    [js('llhttp', '/work/main/lib/x.js'), null]
  ]
  for (const [frame, want] of cases) t.equal(ownerOf(frame), want, `${frame.name} ${frame.file}`)
})

t.test('a kernel stack is net before fs before wake before the generic VFS entry', async (t) => {
  t.equal(kernelKind(kernel('_copy_to_iter', 'copy_page_to_iter', 'tcp_recvmsg', 'vfs_read')), 'kernel-net')
  t.equal(kernelKind(kernel('_copy_to_iter', 'copy_page_to_iter', 'filemap_read', 'vfs_read')), 'kernel-fs')
  t.equal(kernelKind(kernel('try_to_wake_up', 'wake_up_q', 'rwsem_wake', 'exc_page_fault', 'copy_page_to_iter', 'filemap_read')), 'kernel-fs')
  t.equal(kernelKind(kernel('eventfd_write', 'vfs_write', 'ksys_write')), 'kernel-wake')
  t.equal(kernelKind(kernel('vfs_writev', 'do_writev')), 'kernel-fs')
  t.equal(kernelKind(kernel('exc_page_fault', 'asm_exc_page_fault')), 'kernel-other')
  t.equal(kernelKind([...kernel('clear_page_erms'), native('ip_something_in_user_space')]), 'kernel-other', 'user frames do not count')
})

t.test('GC, profiler and engine frames are told by name; JS frames by their line', async (t) => {
  t.ok(isGcFrame(native('v8::internal::ConcurrentMarking::RunMajor')))
  t.ok(isGcFrame({ name: '(garbage collector)', file: '', line: null }))
  t.notOk(isGcFrame(native('v8::internal::HeapNumber::value')))
  t.ok(isProfilerFrame(native('v8::internal::SamplingEventsProcessor::Run')))
  t.ok(isProfilerFrame(js('post', 'node:inspector')))
  t.notOk(isProfilerFrame(native('v8::internal::Profiler')))
  t.ok(isEngineFrame(native('Builtins_ArrayTimSort')))
  t.ok(isEngineFrame(js('emit', 'node:events')))
  t.notOk(isEngineFrame(native('__memmove_avx512_unaligned_erms')))
  t.notOk(isEngineFrame(kernel('v8::looks_like_v8')[0]))
  t.equal(isJs({ name: 'f', file: '', line: 0 }), true)
  t.equal(isJs({ name: '(program)', file: '', line: null }), false)
})
