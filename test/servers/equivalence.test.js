'use strict'
// Interchangeable means identical: one fixed trace replayed against every kind (the async ones on
// the callback, filehandle and handle APIs (the stores with code of their own), the reuseport ones on a
// newer Node if this one lacks reusePort), each on express and on plain node:http, gives byte-identical
// responses (status, headers but Date, body) and files.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { KINDS, LB_KINDS, startServer, stopChild, request } = require('../fixtures/server')

const KEYS = ['alpha', 'beta', 'gamma', 'delta', 'eps-1']
const SPLIT = '|'
const { ASYNC_STORES } = require('../../servers/lib/store')

const ASYNC_APIS = Object.keys(ASYNC_STORES)
// The APIs every async kind is replayed on.
const EVERY_KIND_APIS = ['callback', 'filehandle', 'handle']

/** A fixed pseudo-random trace of 240 operations (a tiny LCG, so it never changes). */
function makeTrace () {
  let seed = 42
  const next = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n }
  const trace = []
  for (let i = 0; i < 240; i++) {
    const key = KEYS[next(KEYS.length)]
    if (next(3) === 0) trace.push({ method: 'POST', path: `/put?key=${key}`, body: `w${i}${SPLIT}z${next(1000)}${SPLIT}a${i % 7}\n` })
    else trace.push({ method: next(10) === 0 ? 'HEAD' : 'GET', path: `/${next(4) === 0 ? 'file' : 'get'}?key=${key}` })
  }
  trace.push({ method: 'POST', path: '/put?key=..', body: 'x' }, { path: '/get?key=nope' }, { method: 'POST', path: '/put?key=alpha', body: '' })
  // Every other answer of the interface, which the two frameworks must word alike.
  trace.push({ method: 'DELETE', path: '/get?key=alpha' }, { path: '/put?key=alpha' }, { method: 'HEAD', path: '/put' },
    { method: 'OPTIONS', path: '/get' }, { path: '/nope' }, { path: '/GET?key=alpha' }, { path: '/get/?key=alpha' }, { path: '//get?key=alpha' },
    { path: '/get?key=alpha&key=beta' }, { path: '/get?key[]=alpha' }, { path: '/get' }, { path: '/get?key=%61lpha' },
    { path: '/get?key=alpha#x' }, { path: 'http://example/get?key=alpha' }, { method: 'POST', path: '/put?key=beta', body: 'y'.repeat(1025) },
    { method: 'POST', path: '/put?key=beta', body: 'z', headers: { 'content-encoding': 'gzip' } }, { method: 'POST', path: '/put?key=bad.key', body: 'z' },
    { path: '/_stats/reset' }, { method: 'POST', path: '/_stats/reset' }, { method: 'PUT', path: '/_stats' },
    { path: '/file?key=nope' }, { path: '/file?key=bad.key' }, { method: 'POST', path: '/file?key=alpha', body: 'x' })
  return trace
}

// Every kind, the async kinds on the APIs with stores of their own, each on both frameworks. The read idioms (promises, promisify,
// stream, read) append with the callback store's code; test/servers/file-route.test.js serves their GETs on both frameworks.
const apisOf = (kind) => (kind.startsWith('async') ? EVERY_KIND_APIS : [null])
const VARIANTS = ['express', 'http'].flatMap((framework) => KINDS.flatMap((kind) => apisOf(kind).map((api) => api === null
  ? { name: `${kind} (${framework})`, kind, args: [`--framework=${framework}`] }
  : { name: `${kind} (${api}, ${framework})`, kind, args: [`--asyncApi=${api}`, `--framework=${framework}`] })))
// The balanced kinds where HAProxy is installed: their /_stats is the launcher's, for the whole unit.
const LB_VARIANTS = LB_KINDS.map((kind) => ({ name: `${kind} (express)`, kind, args: ['--framework=express'], lb: true }))

t.test('one trace gives byte-identical responses and files on every kind, every async API and both frameworks', async (t) => {
  const trace = makeTrace()
  t.ok(trace.filter((op) => op.method === 'POST').length > 50, 'the trace writes')
  t.ok(trace.filter((op) => op.method !== 'POST').length > 150, 'the trace reads')
  const root = t.testdir()
  const runs = {}
  const replay = async ({ name, kind, args, lb }, k) => {
    const dataPath = path.join(root, String(k))
    fs.mkdirSync(dataPath)
    const srv = await startServer(t, kind, { dataPath, args: [`--sortSplitString=${SPLIT}`, '--bodyLimit=1024', ...args] })
    const responses = []
    for (const op of trace) {
      const { status, rawHeaders, body } = await request(srv, op)
      // Every header in its order, but the clock's.
      const headers = rawHeaders.map((h, i) => (i % 2 ? `${rawHeaders[i - 1]}: ${h}` : null)).filter((h) => h && !/^date:/i.test(h))
      responses.push({ status, headers, body })
    }
    await stopChild(srv)
    const files = Object.fromEntries(fs.readdirSync(dataPath).sort().map((f) => [f, fs.readFileSync(path.join(dataPath, f), 'utf8')]))
    runs[name] = { responses, files, lb }
  }
  // Three servers at a time, each with a folder of its own (most of a variant's time is its processes starting).
  const variants = [...VARIANTS, ...LB_VARIANTS]
  for (let k = 0; k < variants.length; k += 3) await Promise.all(variants.slice(k, k + 3).map((v, j) => replay(v, k + j)))
  const ref = runs['sync (express)']
  t.same(Object.keys(ref.files), [...KEYS].sort(), 'every key was written')
  t.ok(ref.responses.some((r) => r.status === 404) && ref.responses.some((r) => r.status === 200 && r.body.includes(SPLIT)))
  t.same([...new Set(ref.responses.map((r) => r.status))].sort(), [200, 400, 404, 405, 413, 415], 'the trace meets every answer')
  const asyncKinds = KINDS.filter((k) => k.startsWith('async')).length
  t.equal(Object.keys(runs).length, 2 * (KINDS.length + (EVERY_KIND_APIS.length - 1) * asyncKinds) + LB_KINDS.length,
    'every kind, the async ones on three APIs, on two frameworks')
  t.ok(EVERY_KIND_APIS.every((api) => ASYNC_APIS.includes(api)), 'APIs the config knows')
  t.ok(ref.responses.some((r, i) => trace[i].path.startsWith('/file') && r.status === 200 && r.body.length > 0), 'the trace reads files whole')
  t.ok(KINDS.length >= 4, 'the four kinds this Node runs, at least')
  // Through HAProxy: the experiment's GETs, HEADs and PUTs (the rest of the trace is malformed HTTP,
  // which HAProxy answers itself, e.g. a fragment in the path). It sends header names in lower case
  // and manages the client connection itself.
  const experiment = trace.findIndex((op) => op.method === 'DELETE')
  const served = (r) => r.responses.slice(0, experiment).map(({ status, headers, body }) =>
    ({ status, body, headers: headers.map((h) => h.toLowerCase()).filter((h) => !/^(connection|keep-alive):/.test(h)) }))
  for (const name of Object.keys(runs).filter((name) => name !== 'sync (express)')) {
    if (runs[name].lb) t.same(served(runs[name]), served(ref), `${name} answers every GET and PUT exactly like sync on express`)
    else t.same(runs[name].responses, ref.responses, `${name} answers exactly like sync on express`)
    t.same(runs[name].files, ref.files, `${name} leaves exactly the files sync on express leaves`)
  }
})
