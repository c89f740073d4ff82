'use strict'
// The run's results as one document (what --json writes and the sweep reads), built from the
// processes' raw records, and a short summary of it for people.

const { createRecord, serializeRecord, deserializeRecord, mergeRecords, mergeErrors, errorTotal, summarize } = require('./stats')
const { formatServerStats } = require('./server-stats')

const TYPES = ['GET', 'PUT']
const SHORTFALL = 0.95 // an open-loop run that achieves less of its target rate is flagged

const sum = (list, f) => list.reduce((total, x) => total + f(x), 0)
const byType = (f) => ({ GET: f('GET'), PUT: f('PUT') })

/**
 * Each client host's own figures, when the processes ran on client hosts (else null): its processes'
 * operations over its own measured time (the longest of its processes'), the p99 of its processes'
 * added histograms (and those histograms), and its CPU per request. overlap: the shortest host's
 * time over the longest's (1: the hosts' measured phases, begun together, also ended together).
 * @param {object[]} procs the processes, each with host, wallMs, recs and result
 * @returns {{ hosts: object[], overlap: number|null }|null}
 */
function hostFigures (procs) {
  if (!procs.some((p) => p.host)) return null
  const hosts = [...new Set(procs.map((p) => p.host))].map((host) => {
    const mine = procs.filter((p) => p.host === host)
    const rec = byType((type) => mergeRecords(mine.map((p) => p.recs[type])))
    const reported = mine.filter((p) => p.result !== null)
    const wallMs = Math.max(0, ...mine.map((p) => p.wallMs ?? 0))
    const cpuUs = sum(reported, (p) => p.result.cpuUs.user + p.result.cpuUs.system)
    const completed = rec.GET.count + rec.PUT.count
    const requests = completed + errorTotal(rec.GET.errors) + errorTotal(rec.PUT.errors)
    return {
      host,
      processes: mine.length,
      completed,
      wallMs,
      opsPerSec: wallMs > 0 ? completed / (wallMs / 1000) : null,
      getP99: summarize(rec.GET).p99,
      putP99: summarize(rec.PUT).p99,
      cpuPerReqUs: requests > 0 ? cpuUs / requests : null,
      histograms: byType((type) => serializeRecord(rec[type]).histogram) // the cell's are these added
    }
  })
  const walls = hosts.map((h) => h.wallMs)
  return { hosts, overlap: Math.max(...walls) > 0 ? Math.min(...walls) / Math.max(...walls) : null }
}

// The client hosts' rates added, or null when one of them measured nothing.
const hostsRate = (hosts) => (hosts.every((h) => h.opsPerSec !== null) ? sum(hosts, (h) => h.opsPerSec) : null)

/**
 * @param {{ config: object, runId: string, env: object, run: object, verification: object, primaryMaxRssKb: number }} parts
 *   run as runClients returns it; primaryMaxRssKb: the primary's peak resident set so far
 * @returns {object} the report; `ok` when every operation succeeded and verification passed
 */
function buildReport ({ config, runId, env, run, verification, primaryMaxRssKb }) {
  const procs = run.processes.map((p) => ({
    ...p,
    recs: byType((type) => p.result ? deserializeRecord(p.result.latency[type]) : createRecord())
  }))
  const reported = procs.filter((p) => p.result !== null)
  const merged = byType((type) => mergeRecords(procs.map((p) => p.recs[type])))
  const completed = merged.GET.count + merged.PUT.count
  const failed = errorTotal(merged.GET.errors) + errorTotal(merged.PUT.errors)
  const seconds = run.wallTimeMs / 1000
  const shards = hostFigures(procs)
  const open = config.rate > 0
  const achievedRate = open && seconds > 0 ? (completed + failed) / seconds : null
  const warmupErrors = byType((type) => mergeErrors(reported.map((p) => p.result.warmup.errors[type])))
  const warmup = {
    operations: sum(reported, (p) => p.result.warmup.operations),
    failed: errorTotal(warmupErrors.GET) + errorTotal(warmupErrors.PUT),
    errors: warmupErrors
  }
  const problems = procs.filter((p) => p.result === null).map((p) => `client process ${p.index} (pid ${p.pid}) ended (${p.exit}) before it reported`)
  if (run.server.problem !== null) problems.push(run.server.problem) // told, but no failure: the load was fine
  return {
    tool: 'client',
    config,
    runId,
    env,
    mode: open ? 'open' : 'closed',
    startedAt: run.startedAt,
    wallTimeMs: run.wallTimeMs,
    operations: { planned: config.nOperations, completed, failed },
    // A sweep round whose windows were all dropped measured nothing. With client hosts, the sum of each
    // host's own rate: they all began at one instant, so this is the rate while all of them ran.
    throughput: shards ? hostsRate(shards.hosts) : seconds > 0 ? completed / seconds : null,
    targetRate: open ? config.rate : null,
    achievedRate,
    rateShortfall: open && achievedRate !== null && achievedRate < SHORTFALL * config.rate,
    latency: byType((type) => summarize(merged[type])),
    // Every process's histogram of the type added up, raw (µs, hdr-histogram-js's compressed
    // base64): the sweep writes it out as .hgrm, the report merges it over repeats.
    histograms: byType((type) => serializeRecord(merged[type]).histogram),
    clientHosts: shards,
    processes: procs.map((p) => ({
      index: p.index,
      pid: p.pid,
      host: p.host ?? null,
      latency: byType((type) => summarize(p.recs[type])),
      errors: byType((type) => p.recs[type].errors),
      cpuUs: p.result ? p.result.cpuUs : null,
      maxRssKb: p.result ? p.result.maxRssKb : null,
      reconnects: p.result ? p.result.reconnects : null
    })),
    primaryMaxRssKb,
    errors: byType((type) => merged[type].errors),
    errorCount: failed,
    clientCpuUs: { user: sum(reported, (p) => p.result.cpuUs.user), system: sum(reported, (p) => p.result.cpuUs.system) },
    reconnects: sum(reported, (p) => p.result.reconnects),
    warmup,
    verification,
    serverStats: run.server.stats,
    problems,
    ok: completed === config.nOperations && warmup.failed === 0 && (!verification.checked || verification.ok)
  }
}

const us = (x) => x === null ? '-' : Math.round(x)
const kinds = (errors) => Object.entries(errors).map(([kind, n]) => `${kind}: ${n}`).join(', ')

/** @returns {string} a few lines for stderr */
function formatSummary (report) {
  const { config, operations, latency, verification: v, warmup, clientCpuUs } = report
  const lines = [
    `client: ${operations.planned} operations, ${report.mode} loop, ${config.nClients} processes x ${config.concurrency} in flight, ` +
    `in ${(report.wallTimeMs / 1000).toFixed(3)} s: ${operations.completed} succeeded (${(report.throughput ?? 0).toFixed(1)} ops/s), ` +
    `${operations.failed} failed`
  ]
  for (const type of TYPES) {
    const s = latency[type]
    const failures = s.errors > 0 ? ` (${kinds(report.errors[type])})` : ''
    lines.push(`  ${type} ${s.count} ok, ${s.errors} failed${failures}; ` +
      `µs: min ${us(s.min)} p50 ${us(s.p50)} mean ${us(s.mean)} p99 ${us(s.p99)} max ${us(s.max)}`)
  }
  if (report.mode === 'open') {
    const flag = report.rateShortfall ? ' (SHORT of the target by more than 5%)' : ''
    lines.push(`  rate: target ${report.targetRate} ops/s, achieved ${report.achievedRate.toFixed(1)} ops/s${flag}`)
  }
  if (warmup.failed > 0) lines.push(`  warm-up: ${warmup.failed} of ${warmup.operations} operations failed`)
  if (report.reconnects > 0) lines.push(`  connections: ${report.reconnects} opened again (closed by the server or after a failure)`)
  lines.push(v.checked
    ? `  verification: ${v.records} records in ${v.files} files, ${v.acknowledged} acknowledged: ${v.lost} lost, ` +
      `${v.duplicated} duplicated, ${v.torn} torn, ${v.unknown} unknown${v.blank ? `, ${v.blank} blank (failed writes blanked)` : ''}; ` +
      `${v.bytes} bytes appended, ${v.expectedBytes} expected`
    : `  verification: ${v.reason}`)
  lines.push(`  client CPU: ${(clientCpuUs.user / 1e6).toFixed(2)} s user, ${(clientCpuUs.system / 1e6).toFixed(2)} s system`)
  for (const h of report.clientHosts?.hosts ?? []) {
    lines.push(`  host ${h.host}: ${h.processes} processes, ${h.completed} ops in ${(h.wallMs / 1000).toFixed(3)} s (${us(h.opsPerSec)} ops/s), ` +
      `GET p99 ${us(h.getP99)} µs, CPU ${us(h.cpuPerReqUs)} µs per request`)
  }
  if (report.serverStats !== null) lines.push(formatServerStats(report.serverStats))
  for (const problem of report.problems) lines.push(`  ${problem}`)
  lines.push(report.ok ? 'client: OK' : 'client: FAILED')
  return lines.join('\n') + '\n'
}

module.exports = { buildReport, formatSummary }
