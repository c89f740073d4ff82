'use strict'
// Interchangeable means identical: one fixed trace replayed against every kind (the async ones on
// both async APIs, the reuseport ones on a newer Node if this one lacks reusePort) gives
// byte-identical responses and byte-identical files.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { KINDS, startServer, request } = require('./fixtures/server')

const KEYS = ['alpha', 'beta', 'gamma', 'delta', 'eps-1']
const SPLIT = '|'

/** A fixed pseudo-random trace of 240 operations (a tiny LCG, so it never changes). */
function makeTrace () {
  let seed = 42
  const next = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n }
  const trace = []
  for (let i = 0; i < 240; i++) {
    const key = KEYS[next(KEYS.length)]
    if (next(3) === 0) trace.push({ method: 'POST', path: `/put?key=${key}`, body: `w${i}${SPLIT}z${next(1000)}${SPLIT}a${i % 7}\n` })
    else trace.push({ method: next(10) === 0 ? 'HEAD' : 'GET', path: `/get?key=${key}` })
  }
  trace.push({ method: 'POST', path: '/put?key=..', body: 'x' }, { path: '/get?key=nope' }, { method: 'POST', path: '/put?key=alpha', body: '' })
  return trace
}

// Every kind, and the async kinds once per async API.
const VARIANTS = KINDS.flatMap((kind) => kind.startsWith('async')
  ? ['callback', 'promise'].map((api) => ({ name: `${kind} (${api})`, kind, args: [`--asyncApi=${api}`] }))
  : [{ name: kind, kind, args: [] }])

t.test('one trace gives byte-identical responses and files on every kind and both async APIs', async (t) => {
  const trace = makeTrace()
  t.ok(trace.filter((op) => op.method === 'POST').length > 50, 'the trace writes')
  t.ok(trace.filter((op) => op.method !== 'POST').length > 150, 'the trace reads')
  const runs = {}
  for (const { name, kind, args } of VARIANTS) {
    const dataPath = t.testdir()
    const srv = await startServer(t, kind, { dataPath, args: [`--sortSplitString=${SPLIT}`, ...args] })
    const responses = []
    for (const op of trace) {
      const { status, headers, body } = await request(srv, op)
      responses.push({ status, type: headers['content-type'], length: headers['content-length'], body })
    }
    const files = Object.fromEntries(fs.readdirSync(dataPath).sort().map((f) => [f, fs.readFileSync(path.join(dataPath, f), 'utf8')]))
    runs[name] = { responses, files }
  }
  const ref = runs.sync
  t.same(Object.keys(ref.files), [...KEYS].sort(), 'every key was written')
  t.ok(ref.responses.some((r) => r.status === 404) && ref.responses.some((r) => r.status === 200 && r.body.includes(SPLIT)))
  t.equal(Object.keys(runs).length, KINDS.length + KINDS.filter((k) => k.startsWith('async')).length, 'every kind, the async ones on two APIs')
  t.ok(KINDS.length >= 4, 'the four kinds this Node runs, at least')
  for (const name of Object.keys(runs).slice(1)) {
    t.same(runs[name].responses, ref.responses, `${name} answers exactly like sync`)
    t.same(runs[name].files, ref.files, `${name} leaves exactly the files sync leaves`)
  }
})
