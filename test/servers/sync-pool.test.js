'use strict'
// The sync-pool kind's own behaviour: its fs calls run on exactly as many threads as libuv's pool
// (UV_THREADPOOL_SIZE, not nServers) while the main thread answers and sorts, its failures answer what
// the sync kind's do, and fsync=group is refused as for sync.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { setTimeout: sleep } = require('node:timers/promises')
const { spawnServer, startServer, request } = require('../fixtures/server')

// The server's threads asleep in open() of a FIFO that has no writer yet (Linux's wchan).
function waitingOnFifo (pid) {
  return fs.readdirSync(`/proc/${pid}/task`).filter((tid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/task/${tid}/wchan`, 'utf8') === 'wait_for_partner'
    } catch {
      return false // the thread ended meanwhile
    }
  }).length
}

async function until (what, check, ms = 10000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (check()) return
  throw new Error(`timed out waiting for ${what}`)
}

// Opens a FIFO's write end if a reader waits on it, which lets that reader's open() return.
function release (fifo) {
  try {
    fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK))
    return true
  } catch (err) {
    if (err.code === 'ENXIO' || err.code === 'ENOENT') return false // no reader (yet), or no FIFO any more
    throw err
  }
}

/**
 * GETs of FIFOs block their thread in open() until a writer comes: with one more of them than there
 * are threads, exactly that many wait at once, and the main thread still answers /_stats.
 */
async function checkThreads (t, srv, dataPath, nServers) {
  const fifos = Array.from({ length: nServers + 1 }, (_, i) => path.join(dataPath, `fifo-${nServers}-${i}`))
  for (const fifo of fifos) execFileSync('mkfifo', [fifo])
  // A failing test must not leave a thread blocked in open(): the process could not exit.
  t.teardown(() => { for (const fifo of fifos) release(fifo) })
  const answers = Promise.all(fifos.map((fifo) => request(srv, { path: `/get?key=${path.basename(fifo)}` })))
  await until(`${nServers} threads in open()`, () => waitingOnFifo(srv.pid) === nServers)
  await sleep(200)
  t.equal(waitingOnFifo(srv.pid), nServers, `${nServers + 1} blocking GETs: ${nServers} run at once, one waits for a thread`)
  t.equal((await request(srv, { path: '/_stats' })).status, 200, 'the main thread answers meanwhile')
  // Until every GET has answered: a thread may reach its open() only after a look at the threads.
  const answered = answers.then(() => true, () => true)
  for (let i = 0; i < 500 && !await Promise.race([answered, sleep(20, false)]); i++) for (const fifo of fifos) release(fifo)
  t.same((await answers).map((r) => [r.status, r.body]), fifos.map(() => [404, 'no such file\n']), 'a FIFO is not a file: 404')
}

t.test('sync-pool runs the fs calls on exactly UV_THREADPOOL_SIZE threads (4 unset), whatever nServers, the main thread free', async (t) => {
  if (!fs.existsSync('/proc/self/task')) return t.skip('needs Linux /proc to see the threads')
  const root = t.testdir()
  for (const [size, threads] of [['1', 1], ['3', 3], [undefined, 4]]) {
    const dataPath = path.join(root, String(threads))
    const env = { UV_THREADPOOL_SIZE: size }
    if (size === undefined) delete env.UV_THREADPOOL_SIZE
    const srv = await startServer(t, 'sync-pool', { dataPath, env, args: ['--nServers=2'] })
    t.equal(srv.workers, threads, 'the ready line counts the threads')
    await checkThreads(t, srv, dataPath, threads)
  }
})

// CPU time (clock ticks) of a /proc stat line: utime + stime.
function ticks (file) {
  const fields = fs.readFileSync(file, 'utf8').replace(/^.*\) /s, '').split(' ')
  return Number(fields[11]) + Number(fields[12])
}

t.test("a GET's sort runs on the main thread, where the async kinds sort, not on a pool thread", async (t) => {
  if (!fs.existsSync('/proc/self/task')) return t.skip('needs Linux /proc to see the threads')
  const dataPath = t.testdir()
  // 4 MiB of the workload's records: its sort takes tens of ms, reading it a few.
  const record = 'This is text that is appended to the file'
  fs.writeFileSync(path.join(dataPath, 'big'), record.repeat(Math.ceil(4 * 1024 * 1024 / record.length)))
  const srv = await startServer(t, 'sync-pool', { dataPath })
  const [main, all] = [`/proc/${srv.pid}/task/${srv.pid}/stat`, `/proc/${srv.pid}/stat`]
  // The threads' start (each loads its modules) and the first sorts' compilation before the count.
  for (let i = 0; i < 2; i++) await request(srv, { path: '/get?key=big' })
  const before = [ticks(main), ticks(all)]
  for (let i = 0; i < 16; i++) t.equal((await request(srv, { path: '/get?key=big' })).status, 200)
  const [mainUsed, allUsed] = [ticks(main) - before[0], ticks(all) - before[1]]
  t.ok(allUsed >= 20, `the GETs took ${allUsed} ticks of CPU`)
  t.ok(mainUsed / allUsed > 0.6, `the main thread took ${mainUsed} of them`)
})

t.test('failures answer and log exactly what the sync kind answers and logs', async (t) => {
  const outcomes = {}
  for (const kind of ['sync', 'sync-pool']) {
    const root = t.testdir({ data: { adir: {} }, 'outside.txt': 'secret\n' })
    const dataPath = path.join(root, 'data')
    fs.symlinkSync(path.join(root, 'outside.txt'), path.join(dataPath, 'link'))
    const srv = await startServer(t, kind, { dataPath })
    const answers = []
    const ask = async (req) => {
      const { status, rawHeaders, body } = await request(srv, req)
      const headers = rawHeaders.map((h, i) => (i % 2 ? `${rawHeaders[i - 1]}: ${h}` : null)).filter((h) => h && !/^date:/i.test(h))
      answers.push({ status, headers, body })
    }
    await ask({ path: '/get?key=link' }) // 403
    await ask({ method: 'POST', path: '/put?key=link', body: 'x' })
    await ask({ path: '/get?key=adir' }) // 404
    await ask({ path: '/get?key=none' })
    fs.rmSync(dataPath, { recursive: true })
    await ask({ method: 'POST', path: '/put?key=k', body: 'x' }) // 500: the data folder is gone
    await ask({ method: 'POST', path: '/put?key=k', body: 'y' })
    outcomes[kind] = { answers, log: srv.stderr.replace(/^\[\d+\] /gm, '').replaceAll(root, 'ROOT') }
  }
  t.same(outcomes.sync.answers.map((a) => a.status), [403, 403, 404, 404, 500, 500], 'the sync kind meets every failure')
  t.same(outcomes['sync-pool'].answers, outcomes.sync.answers, 'status, headers and body alike')
  t.match(outcomes.sync.log, /^PUT failed: the data folder is gone \(ENOENT\): ENOENT: no such file or directory, open 'ROOT\/data\/k'/)
  t.equal(outcomes['sync-pool'].log, outcomes.sync.log, 'the fault log alike: the error kept its code, syscall and message')
})

t.test('fsync=group is refused as for sync: each thread flushes its own PUT', async (t) => {
  const dataPath = path.join(t.testdir(), 'data')
  const srv = spawnServer(t, 'sync-pool', ['--serverPort=0', '--fsync=group', `--dataPath=${dataPath}`])
  t.equal((await srv.exit).code, 2)
  t.match(srv.stderr, /fsync=group needs an async kind: a sync-pool server handles one request at a time per thread, so no two PUTs/)
  t.equal(srv.stderr.split('\n').filter(Boolean).length, 1, 'one line')
  t.notOk(fs.existsSync(dataPath), 'nothing created')

  const each = await startServer(t, 'sync-pool', { dataPath, args: ['--fsync=each'] })
  t.equal((await request(each, { method: 'POST', path: '/put?key=k', body: 'flushed\n' })).body, 'success')
  t.equal(fs.readFileSync(path.join(dataPath, 'k'), 'utf8'), 'flushed\n')
})

t.test('a stop while a thread is stuck in a system call ends the server by SIGKILL at the grace limit, saying so', async (t) => {
  if (!fs.existsSync('/proc/self/task')) return t.skip('needs Linux /proc to see the threads')
  const dataPath = t.testdir()
  const fifo = path.join(dataPath, 'stuck')
  execFileSync('mkfifo', [fifo])
  const srv = await startServer(t, 'sync-pool', { dataPath, args: ['--nServers=1'] })
  request(srv, { path: '/get?key=stuck' }).catch(() => {}) // never answered: the thread waits in open() for a writer
  await until('the thread in open()', () => waitingOnFifo(srv.pid) === 1)
  const stopped = Date.now()
  srv.child.kill('SIGTERM')
  t.same(await srv.exit, { code: null, signal: 'SIGKILL' }, 'process.exit would wait for the thread forever')
  t.ok(Date.now() - stopped < 7000, 'within the grace limit and a little')
  t.match(srv.stderr, /1 pool task\(s\) still running 4000 ms after the stop; ending by SIGKILL/)
})
