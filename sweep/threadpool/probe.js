'use strict'
// Run by a server's runtime (sweep/threadpool/run.js) on the files named after its first argument, printing one JSON line.
// hold: each file read once with fs.readFileSync, one at a time: the open, fstat, read and close a pool thread makes for
// a GET's fs.readFile, without the hops between the pool and the event loop; usPerCall is the median.
// threads: the files read with fs.readFile, one at a time: threadsStarted, the threads the process started meanwhile
// (libuv starts its pool at the first call it hands to it: none of them, or one io_uring worker, when it sends the
// calls to io_uring). Lean on purpose: it requires nothing of the project, so that every runtime runs it as it is.

const fs = require('node:fs')

const threads = () => fs.readdirSync('/proc/self/task').length
const [mode, ...files] = process.argv.slice(2)
const say = (doc) => process.stdout.write(JSON.stringify(doc) + '\n')

if (mode === 'hold') {
  const times = files.map((f) => {
    const t0 = performance.now()
    fs.readFileSync(f)
    return (performance.now() - t0) * 1000
  }).sort((a, b) => a - b)
  say({ usPerCall: times[Math.floor(times.length / 2)] })
} else {
  const before = threads()
  const next = (k) => (k === files.length ? say({ threadsStarted: threads() - before }) : fs.readFile(files[k], (err) => {
    if (err) throw err
    next(k + 1)
  }))
  next(0)
}
