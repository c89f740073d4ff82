'use strict'
// fsapi's grid: sync and every async API, GETs only of the files' bytes, thinned to fit its budget; a list given is taken whole.

const t = require('tap')
const { planSweep, keepFsApiCell } = require('../../../sweep/commands')
const { ASYNC_APIS } = require('../../../lib/config')
const { checkFuse } = require('../../../storage')

const SYSTEM = `node-${process.version}`
const NEWER = 'node-v26.12.1'

t.test('fsapi keeps every size at 64 in flight on the page cache, 4 in flight at 16 KiB, 1 ms and the newer Node at 16 KiB and 4 MiB', async (t) => {
  const keep = (c) => keepFsApiCell({ runtime: SYSTEM, ioDelay: 'off', concurrency: 32, fileBytes: 16384, ...c }, {})
  for (const fileBytes of [1024, 16384, 262144, 4194304]) t.ok(keep({ fileBytes }), `${fileBytes} B at 64 in flight`)
  t.ok(keep({ concurrency: 2 }), '4 in flight at 16 KiB')
  t.notOk(keep({ concurrency: 2, fileBytes: 4194304 }), 'not at 4 MiB')
  t.notOk(keep({ concurrency: 2, ioDelay: 1000 }), 'nor at 1 ms')
  t.ok(keep({ ioDelay: 1000 }) && keep({ ioDelay: 1000, fileBytes: 4194304 }), '1 ms at 16 KiB and 4 MiB')
  t.notOk(keep({ ioDelay: 1000, fileBytes: 262144 }), 'not at 256 KiB')
  t.ok(keep({ runtime: NEWER }) && keep({ runtime: NEWER, fileBytes: 4194304 }), 'the newer Node at 16 KiB and 4 MiB')
  t.notOk(keep({ runtime: NEWER, fileBytes: 1024 }), 'not at 1 KiB')
  t.notOk(keep({ runtime: NEWER, ioDelay: 1000 }) || keep({ runtime: NEWER, concurrency: 2 }), 'nor at 1 ms or 4 in flight')
  const given = { runtime: ['node@26'], ioDelay: [1000], concurrency: [2], fileBytes: [1024] }
  t.ok(keepFsApiCell({ runtime: NEWER, ioDelay: 1000, concurrency: 2, fileBytes: 1024 }, given),
    'the lists given are taken whole')
})

t.test('the fsapi plan: GETs only of /file, 16 files, each async API and readFileSync', async (t) => {
  const plan = planSweep('fsapi', ['--runtime=node@system', '--aa=off'])
  const fuse = !checkFuse()
  t.equal(plan.cells.length, (32 + 8 + (fuse ? 16 : 0)), `${plan.cells.length} cells`)
  t.same([...new Set(plan.cells.map((c) => c.asyncApi || 'sync'))].sort(), ['sync', ...ASYNC_APIS].sort())
  for (const c of plan.cells) {
    t.match(c.config, { readsPerWrite: 'inf', getBody: 'bytes', nFiles: 16, fileBytes: c.fileBytes, concurrency: c.concurrency }, c.id)
  }
  t.ok(plan.cells.some((c) => c.id === 'async-s1-c2-fb4194304-cc32-doff-api-stream-' + SYSTEM), 'ids name size, in flight and API')
})
