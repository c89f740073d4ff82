'use strict'
// What one stack frame is, by its name and file: the patterns profile/categories.js decides with.
// Frames are { name, file, line, kernel } as profile/perf-script.js and profile/cpuprofile.js give them.

const any = (...patterns) => (text) => patterns.some((re) => re.test(text))

const PROFILER = any(/\bv8::sampler::|SamplingEventsProcessor|ProfilerEventsProcessor|\bCpuProfiler\b|CpuProfilesCollection/,
  /CpuSampler|ProfilerListener|ProfileGenerator|\bnode::inspector::|\bv8_inspector::|\bnode::profiler::/)
const PROFILER_FILE = /^node:(internal\/)?inspector/

const KERNEL = {
  net: any(/^_*(tcp|inet6?|sock|sk|ip6?|ipv6|udp|unix_stream|unix_dgram|net_rx|netif|napi|loopback)_/, /skb/,
    /^_*dev_(queue|hard_start)_xmit/, /sys_(sendto|recvfrom|sendmsg|recvmsg|accept4?|connect|socket|shutdown)$/),
  fs: any(/^_*(filemap_|generic_file|generic_perform_write|ext4_|xfs_|btrfs_|f2fs_|fuse_|nfs_|ovl_|shmem_|iomap_)/,
    /^_*(do_sys_open|do_filp_open|path_openat|link_path_walk|fput|copy_page_(to|from)_iter|vfs_(statx|fstat|fsync)|do_fsync|page_cache_)/),
  wake: any(/futex|eventfd|epoll|^ep_|^_*schedule|try_to_wake_up|wake_up|finish_task_switch|^ttwu_|^_*(en|de)queue_task|pick_next_task/),
  // The generic VFS entry: files pass there, but so do eventfd and pipe writes, hence weakest.
  vfs: any(/^_*(vfs_|ksys_)/)
}

// v8::internal::Heap:: with its colons: HeapObject, HeapNumber are objects, not collection.
const GC = any(/^\(garbage collector\)$|\bv8::internal::Heap::|Scaveng|MarkCompact|ConcurrentMarking|IncrementalMarking/,
  /Sweeper|MarkingVisitor|MinorMS|GCTracer|\bcppgc::|MemoryAllocator::Unmapper/)
const APP_FILE = /\/servers\/|\/test\/fixtures\//
const HTTP_FILE = /^node:(_http_\w+|https?|net|stream|internal\/streams\/|internal\/stream_base_commons|internal\/http)/
// node::…::Parser is node's HTTP parser; V8's JS parser (v8::internal::Parser) is not http.
const HTTP_NATIVE = any(/llhttp|\bnode::(\(anonymous namespace\)::)?Parser::|StreamWrap/,
  /\bnode::(StreamBase|StreamReq|WriteWrap|ShutdownWrap|TCPWrap|ConnectionWrap|EmitToJSStreamListener|CustomBufferJSListener)\b/,
  /^uv__(stream_io|read|write|try_write|server_io|write_callbacks)$|^uv_(try_write|write2?|accept)$/)
const FS_FILE = /^node:(fs|internal\/fs\/)|^node:internal\/fs$/
const FS_NATIVE = /\bnode::fs::|\bnode::fs_dir::|\buv_fs_s\b|^uv__?fs_|^uv__work_(done|submit)$/
const CALLBACKS_FILE = /^node:(internal\/process\/task_queues|internal\/async_hooks|async_hooks|internal\/timers|timers)$/
const CALLBACKS_NATIVE = any(/processTicksAndRejections|[Mm]icrotask|InternalMakeCallback|AsyncWrap::MakeCallback|InternalCallbackScope/,
  /\bnode::MakeCallback|Builtins_\w*(Promise|AsyncFunction)|Environment::RunTimers|\bnode::task_queue::/)
const V8 = /^(Builtins_|Builtin:|BytecodeHandler:|Stub:)|\bv8::|Runtime_/
const NODE_BINARY = /(^|\/)(node[^/]*|libuv[^/]*)$/

/** Whether a frame runs in the kernel (perf's [kernel.kallsyms] dso). */
function isKernel (frame) {
  return frame.kernel === true || /^\[kernel/.test(frame.file || '')
}

/** Whether a frame is a JS function's (it has a line). */
function isJs (frame) {
  return frame.line !== null && frame.line !== undefined
}

// The C allocator: glibc's malloc and free and their internals, C++'s operator new and delete.
const ALLOC = new RegExp('^(__GI___libc_|__libc_)?(malloc|free|calloc|realloc|cfree)(@|$)|^_int_(malloc|free|realloc)|^malloc_|^unlink_chunk|^tcache_|' +
  '^operator (new|delete)')

/** Whether a frame is the C allocator's (malloc, free and their kin). */
function isAllocFrame (frame) {
  return !isKernel(frame) && ALLOC.test(frame.name)
}

/** Whether a frame is garbage collection's. */
function isGcFrame (frame) {
  return !isKernel(frame) && GC(frame.name)
}

/** Whether a frame is the profiler's own: V8's sampler and CPU profiler, the inspector. */
function isProfilerFrame (frame) {
  return PROFILER(frame.name) || (isJs(frame) && PROFILER_FILE.test(frame.file))
}

/** Whether a user-space frame is V8's (builtins, runtime, v8::) or JS, which runs in V8. */
function isEngineFrame (frame) {
  return isJs(frame) || (!isKernel(frame) && V8.test(frame.name))
}

/**
 * Whether a stack is a libuv pool thread's: libuv's `worker` (in the node binary or libuv) with
 * `start_thread` rootward of it, or, off the main thread (`main === false`), a uv__*_work frame
 * (uv__fs_work also runs on the main thread for sync fs calls, so it proves nothing there).
 * @param {Array<{ name: string, file: string }>} frames leaf first
 * @param {boolean} [main] whether the thread is the process's main thread, when known
 */
function isPoolThread (frames, main) {
  if (main === true) return false
  const worker = frames.findIndex((f) => f.name === 'worker' && NODE_BINARY.test(f.file))
  if (worker >= 0 && frames.slice(worker + 1).some((f) => f.name === 'start_thread')) return true
  return main === false && frames.some((f) => /^uv__\w+_work$/.test(f.name))
}

/**
 * The kernel category of a kernel-leaf stack from its kernel frames alone, the first that any
 * frame matches: net, fs, wake, then the generic VFS entry as fs; else other.
 * @returns {'kernel-net'|'kernel-fs'|'kernel-wake'|'kernel-other'}
 */
function kernelKind (frames) {
  const names = frames.filter(isKernel).map((f) => f.name)
  if (names.some(KERNEL.net)) return 'kernel-net'
  if (names.some(KERNEL.fs)) return 'kernel-fs'
  if (names.some(KERNEL.wake)) return 'kernel-wake'
  if (names.some(KERNEL.vfs)) return 'kernel-fs'
  return 'kernel-other'
}

/**
 * The category a user-space frame owns, or null (V8 internals, libc and node's loop own none).
 * A file under node_modules is express even when its path holds /servers/.
 * @returns {'gc'|'express'|'app'|'http'|'fs'|'callbacks'|null}
 */
function ownerOf (frame) {
  if (isGcFrame(frame)) return 'gc'
  const file = isJs(frame) ? frame.file : ''
  if (file.includes('/node_modules/')) return 'express'
  if (APP_FILE.test(file)) return 'app'
  if (HTTP_FILE.test(file) || (!file && HTTP_NATIVE(frame.name))) return 'http'
  if (FS_FILE.test(file) || (!file && FS_NATIVE.test(frame.name))) return 'fs'
  if (CALLBACKS_FILE.test(file) || (!file && CALLBACKS_NATIVE(frame.name))) return 'callbacks'
  return null
}

module.exports = { isKernel, isJs, isAllocFrame, isGcFrame, isProfilerFrame, isEngineFrame, isPoolThread, kernelKind, ownerOf }
