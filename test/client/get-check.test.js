'use strict'
// `node client` in a read-only run against a server whose GET answers are right, short, chunked or
// spoiled: a measured GET whose body is not as long as its file is bad-length, a sampled one whose
// bytes differ is bad-bytes, and nothing else fails; with PUTs in the run, no GET is checked.

const t = require('tap')
const { startFileServer } = require('../fixtures/file-server')
const { runClient } = require('../fixtures/client')
const { isSampled } = require('../../client/get-check')
const workload = require('../../lib/workload')

// Warm-up creates the files (one PUT each), then reads: sizes taken before it would be short of the record.
const CONFIG = { nOperations: 600, nClients: 2, concurrency: 2, nFiles: 5, warmup: 10, readsPerWrite: 'inf' }
const SPLIT = 'This is text that is' // config.json's sortSplitString
const PATHS = { sorted: '/get', bytes: '/file' }

// The measured GETs of `key` over the processes: how many, and how many of them are in the sample.
function measuredGets (key, config = CONFIG) {
  const ops = []
  for (let p = 1; p <= config.nClients; p++) {
    for (let i = 0; i < workload.operationCount(config, p); i++) {
      const op = workload.operationAt(i, config, p)
      if (op.type === 'GET' && op.key === key) ops.push(i)
    }
  }
  return { all: ops.length, sampled: ops.filter(isSampled).length }
}

// A run against the file server over files whose sorted text differs from their bytes.
async function run (t, { getBody = 'bytes', config = CONFIG, ...server }) {
  const files = Array.from({ length: config.nFiles }, (_, f) => [workload.fileKey(f), `${SPLIT} zebra ${f}\n${SPLIT} apple\n`])
  const dataPath = t.testdir(Object.fromEntries(files))
  const { port, counts } = await startFileServer(t, { dataPath, sortSplitString: SPLIT, ...server })
  const flags = Object.entries({ ...config, getBody }).map(([key, value]) => `--${key}=${value}`)
  return { ...await runClient(t, dataPath, [`--serverPort=${port}`, `--dataPath=${dataPath}`, ...flags]), counts }
}

for (const [getBody, asked] of Object.entries(PATHS)) {
  t.test(`getBody=${getBody}: every GET asks ${asked}, and right answers fail nothing`, async (t) => {
    const { code, report, counts } = await run(t, { getBody })
    t.equal(code, 0, 'exit 0')
    t.same(report.errors, { GET: {}, PUT: {} })
    t.equal(report.warmup.failed, 0)
    t.equal(counts[asked], CONFIG.nClients * CONFIG.warmup + CONFIG.nOperations, `every GET went to ${asked}`)
    t.equal(counts['/get'] + counts['/file'], counts[asked], 'and none elsewhere')
  })
}

t.test('a body one byte short for one file: its measured GETs are bad-length, and nothing else fails', async (t) => {
  const gets = measuredGets('file-0') // process 1's operation 0, which is in the sample
  const { code, report, counts } = await run(t, { spoil: (key) => key === 'file-0' ? 'short' : undefined })
  t.ok(gets.all > 0 && gets.sampled > 0, `${gets.all} measured GETs of file-0, ${gets.sampled} in the sample`)
  t.equal(code, 1, 'exit 1')
  t.same(report.errors, { GET: { 'bad-length': gets.all }, PUT: {} }, 'each, once, as bad-length (not bad-bytes when sampled)')
  t.equal(report.latency.GET.count, CONFIG.nOperations - gets.all, 'failures are not timed')
  t.equal(report.warmup.failed, 0, 'the warm-up is not checked')
  t.ok(counts.short > gets.all, 'the warm-up GETs of file-0 were short too')
})

t.test('chunked answers of the right length fail nothing', async (t) => {
  const { code, report } = await run(t, { chunked: true })
  t.equal(code, 0, 'exit 0')
  t.same(report.errors, { GET: {}, PUT: {} })
})

for (const getBody of Object.keys(PATHS)) {
  t.test(`getBody=${getBody}: a byte flipped in one file's answers is bad-bytes on the sampled GETs of it`, async (t) => {
    const gets = measuredGets('file-0') // process 1's operation 0, which is in the sample
    const { code, report } = await run(t, { getBody, spoil: (key) => key === 'file-0' ? 'flip' : undefined })
    t.ok(gets.sampled > 0, `${gets.sampled} sampled GETs of file-0`)
    t.equal(code, 1, 'exit 1')
    t.same(report.errors, { GET: { 'bad-bytes': gets.sampled }, PUT: {} })
  })
}

t.test('with PUTs in the run, files grow under the GETs: a short answer is not checked', async (t) => {
  const { code, report, counts } = await run(t, { config: { ...CONFIG, readsPerWrite: 3 }, spoil: (key) => key === 'file-1' ? 'short' : undefined })
  t.ok(counts.short > 0, `${counts.short} short answers`)
  t.equal(code, 0, 'exit 0')
  t.same(report.errors, { GET: {}, PUT: {} })
})
