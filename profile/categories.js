'use strict'
// The fixed set of categories every CPU sample is put in, and the one function that decides, for
// perf and V8 samples alike (frames leaf first); which frame is what lives in profile/frame-kinds.js.
//
// | order | rule                                                                  | category       |
// |-------|-----------------------------------------------------------------------|----------------|
// | 1     | the process's role is 'balancer' (HAProxy)                            | balancer       |
// | 2     | the process's role is 'primary' (cluster primary, balancer launcher)  | primary        |
// | 3     | any frame is the profiler's (isProfilerFrame)                         | profiler       |
// | 4     | the leaf is a kernel frame: the kernel frames alone decide, first     | kernel-net,    |
// |       | match wins: any net frame; any fs frame; any wake frame; a generic    | kernel-fs,     |
// |       | VFS frame (vfs_read, ksys_write: eventfd and pipes pass there too)    | kernel-wake,   |
// |       | → kernel-fs; else                                                     | kernel-other   |
// | 5     | the leaf is the C allocator's (isAllocFrame), on any thread           | malloc         |
// | 6     | a libuv pool thread (isPoolThread): a GC frame → gc, else             | gc, pool       |
// | 7     | leaf → root, the first frame that owns a category (ownerOf): GC; the  | gc, app,       |
// |       | app (/servers/, /test/fixtures/, not node_modules); node_modules/;    | express, http, |
// |       | http; fs; callbacks                                                   | fs, callbacks  |
// | 8     | no owner: any V8 frame (Builtins_, v8::, Runtime_, Builtin:) or JS    | engine, other  |
// |       | frame → engine; else (libc, [unknown], (program), the loop) → other   |                |
//
// Consequence of 7: V8's own work (builtins, inline caches, lazy compiles) under an owning frame
// is that owner's cost — the app's sort is app, a compile under InternalMakeCallback is callbacks.

const { isKernel, isJs, isAllocFrame, isGcFrame, isProfilerFrame, isEngineFrame, isPoolThread, kernelKind, ownerOf } = require('./frame-kinds')

/** The categories in report order: id, label, and which samples go there. */
const CATEGORIES = [
  { id: 'app', label: 'app',
    what: "The app's own JS (a file under /servers/ or /test/fixtures/, not node_modules): handlers, stores, read/split/sort/join and the builtins it calls." },
  { id: 'express', label: 'express',
    what: 'Express and its dependencies: the owning frame nearest the leaf is a file under node_modules/.' },
  { id: 'http', label: 'HTTP',
    what: "node:http, node:net and streams JS, llhttp, node's Parser, StreamBase/StreamWrap/TCPWrap C++ and libuv's stream I/O (uv__read, uv__write)." },
  { id: 'fs', label: 'fs (main thread)',
    what: 'fs on the main thread: node:fs and internal/fs JS, node::fs C++, uv_fs_*, uv__fs_*, uv__work_done (sync calls, async submission, completion).' },
  { id: 'pool', label: 'libuv pool',
    what: "A user-space sample without GC frames on a libuv pool thread: libuv's worker under start_thread, or a uv__*_work frame off the main thread." },
  { id: 'callbacks', label: 'callbacks',
    what: 'Promise, microtask, nextTick, timer and callback machinery (processTicksAndRejections, InternalMakeCallback, async_hooks) owning the sample.' },
  { id: 'malloc', label: 'malloc',
    what: "The C allocator at the leaf, whoever called it, on any thread: glibc's malloc, free, calloc, realloc and their kin, operator new and delete." },
  { id: 'gc', label: 'GC',
    what: 'Garbage collection on any thread: (garbage collector), v8::internal::Heap::, Scavenger, MarkCompact, ConcurrentMarking, Sweeper, cppgc.' },
  { id: 'engine', label: 'V8 engine',
    what: 'The rest of V8 (compilers, runtime, inline caches, Builtins_, v8::) and JS of no category above, when no frame owns the sample.' },
  { id: 'kernel-net', label: 'kernel: network',
    what: 'A kernel-leaf sample with a network frame: tcp_, inet_, sock_, sk_, skb, ip_, udp_, net_rx, netif, loopback, unix_stream, socket syscalls.' },
  { id: 'kernel-fs', label: 'kernel: file system',
    what: 'A kernel-leaf sample with a file-system frame (vfs_, filemap_, generic_file, ext4_, xfs_, btrfs_, fuse_, shmem_, open, close, page cache copy).' },
  { id: 'kernel-wake', label: 'kernel: wake-ups',
    what: 'A kernel-leaf sample scheduling or waking threads (futex, eventfd, epoll, schedule, try_to_wake_up, finish_task_switch), with no net or fs frame.' },
  { id: 'kernel-other', label: 'kernel: other',
    what: 'Any other kernel-leaf sample: syscall entry, page faults, memory mapping, timers, interrupts.' },
  { id: 'primary', label: 'primary',
    what: 'Every sample of a cluster primary or a balancer launcher process: it accepts and hands off connections, or relays telemetry.' },
  { id: 'balancer', label: 'balancer', what: 'Every sample of HAProxy.' },
  { id: 'profiler', label: 'profiler',
    what: "The profiler's own work in a serving process: V8's sampler, ProfilerEventsProcessor, CpuProfiler, node::inspector, v8_inspector." },
  { id: 'other', label: 'other',
    what: 'The rest: libc, [unknown] frames, (program), the event loop itself, with no V8 or JS frame.' }
]

/**
 * The category of one sample (the table at the top of this file).
 * @param {Array<{ name: string, file: string, line?: number|null, kernel?: boolean }>} frames leaf first
 * @param {{ role?: string, main?: boolean }} [options] role: 'single' | 'worker' | 'backend' |
 *   'primary' | 'balancer'; main: whether the sample is on the process's main thread, when known
 * @returns {string} a CATEGORIES id
 */
function categorize (frames, { role, main } = {}) {
  if (role === 'balancer') return 'balancer'
  if (role === 'primary') return 'primary'
  if (frames.some(isProfilerFrame)) return 'profiler'
  if (frames.length > 0 && isKernel(frames[0])) return kernelKind(frames)
  if (frames.length > 0 && isAllocFrame(frames[0])) return 'malloc'
  if (isPoolThread(frames, main)) return frames.some(isGcFrame) ? 'gc' : 'pool'
  for (const frame of frames) {
    const owner = ownerOf(frame)
    if (owner) return owner
  }
  return frames.some(isEngineFrame) ? 'engine' : 'other'
}

/**
 * A frame's name in top-function lists and folded stacks: `name file:line` for JS, the symbol
 * for native and kernel frames.
 * @param {{ name: string, file: string, line?: number|null }} frame
 * @returns {string}
 */
function functionName (frame) {
  return isJs(frame) ? `${frame.name || '(anonymous)'} ${frame.file}:${frame.line}` : frame.name
}

module.exports = { CATEGORIES, categorize, functionName, isKernel, isGcFrame, isPoolThread }
