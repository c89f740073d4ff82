'use strict'
// How big libuv's pool should be (a folder whose cells vary it: threadpool): threadpool.md and the report's section,
// from report/stats/pool-model.js: a table of every cell, measured beside the model, each size against 4, the model's fit
// and the sentence a reader can quote. Used by report/outputs.js and report/page/page.js.

const { html, raw } = require('../../lib/html-template')
const { formatRatio, fixed } = require('../stats/verdicts')
const { KINDS, modelLabel } = require('../../lib/kinds')
const { runtimeLabel } = require('../../lib/install/runtime-specs')
const { knee, DEFAULT_POOL, LIMITS } = require('../stats/pool-model')

const int = (x) => (Number.isFinite(x) ? fixed(Math.round(x), 0) : x === Infinity ? '∞' : '–')
const one = (x) => (Number.isFinite(x) ? fixed(x, 1) : '–')
const storageText = (m) => (m.storage === 'delay' ? (Number(m.ioDelay) >= 1000 ? `${m.ioDelay / 1000} ms` : `${m.ioDelay} µs`)
  : m.storage === 'cold' ? 'real disk, cold' : 'plain folder')
const coresText = (m) => `${m.cores} core${m.cores > 1 ? 's' : ''}${m.shared ? ' shared with the client' : ''}`
const storageOrder = (m) => (m.storage === 'cache' ? -1 : m.storage === 'cold' ? 1e9 : Number(m.ioDelay))
const atStorage = (m) => (m.storage === 'delay' ? `at ${storageText(m)} storage` : m.storage === 'cold' ? 'on the real disk, cold' : 'at a plain folder')
// The comparisons at the slowest storage of a folder (a cold disk counts as the slowest).
const atSlowest = (list) => list.filter((c) => storageOrder(c) === Math.max(...list.map(storageOrder)))
const KIND_ORDER = ['sync', 'async', 'async-cluster']
const order = (x, y) => storageOrder(x) - storageOrder(y) || x.cores - y.cores || Number(x.shared) - Number(y.shared) ||
  KIND_ORDER.indexOf(x.kind) - KIND_ORDER.indexOf(y.kind) || Number(x.ioUring) - Number(y.ioUring) || x.pool - y.pool
const pctOff = (x) => (x === null ? '–' : `${Math.round(x * 100)}%`)

// Each cell's row: its place, measured, the model, the comparison with 4 and what the model expected of it.
function rows (pool) {
  const vs = new Map(pool.comparisons.map((c) => [c.a, c]))
  return [...pool.cells].sort(order).map((m) => {
    const c = vs.get(m.id)
    return {
      cells: [storageText(m), coresText(m), modelLabel(m.kind, m.nServers), KINDS[m.kind].store,
        m.ioUring ? 'io_uring' : String(m.pool),
        m.measured ? `${int(m.measured.median)} [${int(m.measured.low)}–${int(m.measured.high)}]` : '–',
        m.model ? `${int(m.model.pool)} / ${int(m.model.cores)} / ${int(m.model.loop)}` : '–',
        m.model?.predicted ? `${int(m.model.predicted)} (${LIMIT_WORDS[m.model.limit]})` : '–',
        m.fit === null ? '–' : fixed(m.fit, 2),
        c?.estimate ? `${formatRatio(c)} ${c.verdict}` : m.pool === DEFAULT_POOL && !m.ioUring && m.model ? 'the reference' : '–',
        c?.expected ? `${EXPECTED_WORDS[c.expected]}${c.agrees ? '' : ' ✗'}` : '–',
        one(m.loadedHoldUs), m.poolBound === null ? '–' : pctOff(m.poolBound), one(m.queuedUsPerCall), one(m.sleeps), one(m.wakeUs)]
    }
  })
}
const EXPECTED_WORDS = { faster: 'faster', slower: 'slower', same: 'same or slower' }
const LIMIT_WORDS = { pool: 'pool', cores: 'cores', loop: 'event loop' }
const HEAD = ['storage', 'server cores', 'processes', 'fs', 'pool', 'ops/s [95%]', 'pool / cores / event loop allow', 'model (limit)', 'measured / model',
  'against pool 4', 'model expects', 'µs a call holds a thread', 'time its loop waited on a full pool', 'µs a call is out beyond the pool\'s size',
  'sleeps per request', 'kernel wake µs per request']

/**
 * The findings in sentences: the model's fit, how often it called the verdict against 4, and per storage and cores the size
 * past which the pool stops being the limit.
 * @param {object} pool report/stats/pool-model.js poolModel's
 * @returns {string[]}
 */
function poolFindings (pool) {
  const lines = []
  if (pool.fit.all !== null) {
    lines.push(`The model is ${pctOff(pool.fit.all)} from the measurement (median of |measured / model − 1| over the ${pool.fit.n} cells modelled ` +
      'from their reference\'s costs; ' +
      `${pctOff(pool.fit.pool)} where the pool is the limit, ${pctOff(pool.fit.cores)} where the cores are, ${pctOff(pool.fit.loop)} where the event loop is).`)
  }
  const judged = pool.comparisons.filter((c) => c.expected)
  if (judged.length > 0) {
    const met = (list) => list.filter((c) => c.agrees).length
    const slowest = atSlowest(judged)
    const there = `; ${atStorage(slowest[0])} in ${met(slowest)} of ${slowest.length}`
    lines.push(`Against pool ${DEFAULT_POOL}, the verdict is what the model expected in ${met(judged)} of ${judged.length} comparisons${there} ` +
      '(faster where it expects the pool to hold the default back, slower where the size\'s own pool is the limit; elsewhere an interval ' +
      'that leaves out faster).')
  }
  lines.push(...missLines(pool))
  const knees = new Map()
  for (const m of [...pool.cells].sort(order).filter((m) => m.pool === DEFAULT_POOL && !m.ioUring && m.model?.pool)) {
    const k = knee(m)
    if (k !== null) knees.set(storageText(m), [...(knees.get(storageText(m)) ?? []), k])
  }
  if (knees.size > 0) {
    const range = (ks) => (Math.min(...ks) === Math.max(...ks) ? `${ks[0]}` : `${Math.min(...ks)}–${Math.max(...ks)}`)
    lines.push('Threads per process before the pool stops being the limit, by the model (the fewest where twice as many would not be ' +
      `faster by more than the margin, from each pool-${DEFAULT_POOL} cell; the range over processes and cores): ` +
      `${[...knees].map(([where, ks]) => `${where} ${range(ks)}`).join(', ')}.`)
  }
  // nodejs/node#61533 would size the pool from uv_available_parallelism() (the cores a process may use), at least 4.
  const picks = [...new Set(pool.cells.map((m) => m.cores))].sort((a, b) => a - b)
    .map((cores) => `${Math.min(1024, Math.max(DEFAULT_POOL, cores))} on ${cores} core${cores > 1 ? 's' : ''}`)
  if (picks.length > 0) lines.push(`The size Node's pull request would pick (uv_available_parallelism(), at least ${DEFAULT_POOL}): ${picks.join(', ')}.`)
  return lines
}

// Where a verdict against 4 at the slowest storage was not what the model expected, by reference: its limits, each above the
// smallest by how much (the smallest is only a bound where another is near it), and how long its calls were out beyond the pool's size.
function missLines (pool) {
  const byId = new Map(pool.cells.map((m) => [m.id, m]))
  const byRef = new Map()
  for (const c of atSlowest(pool.comparisons).filter((c) => c.expected && !c.agrees)) byRef.set(c.b, [...(byRef.get(c.b) ?? []), c])
  return [...byRef].map(([id, list]) => {
    const ref = byId.get(id)
    const limits = LIMITS.map((l) => [l, ref.model?.[l]]).filter(([, v]) => Number.isFinite(v)).sort((x, y) => x[1] - y[1])
      .map(([l, v], i, all) => `${LIMIT_WORDS[l]} ${int(v)}${i > 0 ? ` (+${pctOff(v / all[0][1] - 1)})` : ' ops/s'}`)
    const expected = (c) => (c.expected === 'same' ? 'the same or slower' : c.expected)
    return `Not what the model expected: ${list.map((c) => `${c.label}: ${formatRatio(c)} ${c.verdict} (expected ${expected(c)})`).join('; ')}. ` +
      `At pool ${DEFAULT_POOL} there, what each allows: ${limits.join(', ')}; a call was out ${int(ref.queuedUsPerCall)} µs beyond the pool's size ` +
      '(waiting for a thread, or for the event loop between its trips and before its callback).'
  })
}

function probeLines (pool) {
  return [
    ...pool.holds.map((h) => `A GET's file calls (open, fstat, read, close) at queue depth 1 on ${runtimeLabel(h.runtime)}, ${storageText(h)}: ` +
      `${h.usPerCall} µs${pool.cells.some((m) => m.loadedHoldUs !== null) ? '' : ', the time a call holds a pool thread in the model'}.`),
    ...pool.ioUring.map((p) => `${runtimeLabel(p.runtime)} with UV_USE_IO_URING=1: libuv ` +
      `${p.used ? 'sends fs.readFile\'s calls to io_uring' : 'keeps fs.readFile\'s calls in its pool'} ` +
      `(a probe started ${p.threadsStarted} of a pool of 7 threads).`),
    ...pool.notes
  ]
}

const MODEL_TEXT = 'The model works out each async cell from its own pool and CPU per request and from what its reference, the same ' +
  'cell at libuv\'s default pool of 4, measured: the pool allows threads ÷ (pool calls per request × µs a call holds a thread), ' +
  'the threads of every serving process, the calls per request from the reference\'s profiled round; a call holds a thread the ' +
  'probe\'s time at queue depth 1 plus a share that grows with the cores\' load ρ as ρ ÷ (1 − ρ) (a pool thread woken by its file ' +
  'call waits for a core to hand its result back, and still holds its place in the pool), sized so that at the reference\'s ' +
  'load it is the time its pool threads were at work, running, waiting for a core or asleep in a file call, sampled from ' +
  '/proc every 10 ms, ÷ its pool calls (Little\'s law; none where a folder has no such sample); the cores allow cores ÷ CPU per ' +
  'request (the cell\'s own: the server\'s, plus the client\'s and the delay layer\'s where they share the server\'s cores); the ' +
  'event loops allow processes ÷ the reference\'s event-loop busy time per request (JS runs on one thread a process). Where the ' +
  'reference\'s loop waited for a share s of its time while every pool thread held a call (the pool alone held it up, sampled ' +
  'with the threads), n threads shorten those stretches and leave the rest of its time: at most its rate ÷ (1 − s + s × 4 ÷ n), ' +
  'and the event loops no more than its rate ÷ (1 − s). The model is the fastest rate the pool allows at the load it makes, ' +
  'below all of these; its limit is the pool where twice the threads would be faster by more than the margin, else the event ' +
  'loop where its bound or the stretches bind, else the cores (the pool\'s threads held waiting for them). ' +
  'io_uring cells have no pool limit; a reference cell\'s own model is fitted, not predicted. Sleeps and kernel wake-ups per ' +
  'request come from the profiled round: where the pool is not the limit, a bigger pool only adds them.'

/**
 * threadpool.md.
 * @param {object} pool poolModel's
 * @param {object} env env.json's
 * @returns {string}
 */
function threadpoolMarkdown (pool, env) {
  const lines = ['# How big should libuv\'s pool be for a file server?', '', `\`./run_benchmark.sh ${env.argv.join(' ')}\``, '',
    `${env.cpus} cores (with 1 server core the client has the other; with 2, server and client share both), ` +
    `${env.serverRuntimes.map(runtimeLabel).join(', ')}, ` +
    `load average ${env.loadAverage?.[0] ?? '?'} at the start (${env.startedAt}).`, '', ...poolFindings(pool).map((l) => `- ${l}`), '',
    `| ${HEAD.join(' | ')} |`, `|${HEAD.map(() => '---').join('|')}|`, ...rows(pool).map((r) => `| ${r.cells.join(' | ')} |`), '',
    'ops/s: median of the valid rounds with its 95% interval; against pool 4: the ratio paired by round with its interval and verdict; ' +
    '✗: the verdict is not what the model expected.', '', MODEL_TEXT, '', ...probeLines(pool).map((l) => `- ${l}`)]
  return lines.join('\n') + '\n'
}

/**
 * The report's section: the findings, the chart of measured against the model, and the table.
 * @param {object|null} pool
 * @param {{ svg: string }|undefined} chart
 * @returns {object|string}
 */
function threadpoolSection (pool, chart) {
  if (!pool) return ''
  return html`<section id="threadpool"><h2>libuv's pool size</h2>
    <ul>${poolFindings(pool).map((l) => html`<li>${l}</li>`)}</ul>
    ${chart && html`<figure aria-label="measured against the model">${raw(chart.svg)}</figure>`}
    <div class="scroll"><table class="threadpool"><thead><tr>${HEAD.map((h) => html`<th>${h}</th>`)}</tr></thead>
    <tbody>${rows(pool).map((r) => html`<tr>${r.cells.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table></div>
    <p class="note">${MODEL_TEXT}</p><ul>${probeLines(pool).map((l) => html`<li>${l}</li>`)}</ul></section>`
}

module.exports = { threadpoolMarkdown, threadpoolSection, poolFindings }
