'use strict'
// The sync-pool kind's own behaviour: its file work runs on exactly nServers threads while the main
// thread answers, its failures answer what the sync kind's do, a thread that runs out of memory
// costs its one request, and fsync=group is refused as for sync.

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
 * are threads, exactly nServers wait at once, and the main thread still answers /_stats.
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

t.test('sync-pool runs the file work on exactly nServers threads, the main thread free', async (t) => {
  if (!fs.existsSync('/proc/self/task')) return t.skip('needs Linux /proc to see the threads')
  const root = t.testdir()
  for (const nServers of [1, 3]) {
    const dataPath = path.join(root, String(nServers))
    const srv = await startServer(t, 'sync-pool', { dataPath, args: [`--nServers=${nServers}`] })
    t.equal(srv.workers, nServers, 'the ready line counts the threads')
    await checkThreads(t, srv, dataPath, nServers)
  }
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

t.test('a GET that runs its thread out of memory answers 500; the pool goes on and loses no PUT', async (t) => {
  const dataPath = t.testdir()
  // A 32 MiB file of the workload's records; sorting it takes more than a 64 MiB heap.
  const record = 'This is text that is appended to the file'
  fs.writeFileSync(path.join(dataPath, 'big'), record.repeat(Math.ceil(32 * 1024 * 1024 / record.length)))
  // Node's own heap limit, which every thread takes (no hook in the server).
  const env = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=64` }
  const srv = await startServer(t, 'sync-pool', { dataPath, env, args: ['--nServers=2'] })
  const puts = (async () => {
    const answers = []
    for (let i = 0; i < 40; i++) answers.push((await request(srv, { method: 'POST', path: '/put?key=log', body: `put-${i}\n` })).body)
    return answers
  })()
  const big = await request(srv, { path: '/get?key=big' })
  t.equal(big.status, 500, 'the GET whose thread died answers 500')
  t.equal(big.body, 'internal error\n', 'no path, no message')
  t.match(srv.stderr, /error GET \/get\?key=big: Error \[ERR_WORKER_OUT_OF_MEMORY\]: Worker terminated due to reaching memory limit/, 'the log says why')
  t.same(await puts, Array(40).fill('success'), 'PUTs meanwhile all acknowledged')
  t.equal(fs.readFileSync(path.join(dataPath, 'log'), 'utf8'), Array.from({ length: 40 }, (_, i) => `put-${i}\n`).join(''), 'and all there')
  t.equal(srv.exited, null, 'the server lives on')
  t.equal((await request(srv, { method: 'POST', path: '/put?key=log', body: 'after\n' })).body, 'success', 'and serves on')
  if (fs.existsSync('/proc/self/task')) await checkThreads(t, srv, dataPath, 2)
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
