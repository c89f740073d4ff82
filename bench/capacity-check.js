'use strict'
// The capacity check with the client alone: for each cell of a capacity folder, a server of the
// cell (its kind, Node, storage) started and warmed as the search's is (a closed loop of --warmOps
// operations; 0: a fresh server for every try), then `node client --rate=R` at 0.8x and 1.5x the
// capacity found, from fresh files and 3 times as long as a probe (lengthened as a probe is for the
// SLO's percentile), --repeats times each. Prints whether the SLO held, judged as a probe is (all
// requests pooled, sweep/capacity/judge.js), at 0.8x and broke at 1.5x, with cores, Node and load average.
// `node bench/capacity-check.js DIR [--repeats=N] [--warmOps=N] [--cells=PREFIX]`; a JSON line per cell.

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { planSweep } = require('../sweep/commands')
const { openServer } = require('../sweep/cell/harness')
const { judgePooled, probeSeconds } = require('../sweep/capacity/judge')
const { deserializeRecord, mergeRecords, summarize } = require('../client/stats')
const { OPS } = require('../client/data-worker')
const { wantsHelp, entryHelp } = require('../lib/entry-help')
const { splitId, currentRuntime } = require('../lib/install/runtime-specs')

const ROOT = path.resolve(__dirname, '..')
const FACTORS = [0.8, 1.5]
const CHECK = 3 // a try lasts 3 times --probe: longer than any probe of the search (as long as its confirming probe, which it no longer has)
const load = () => os.loadavg().map((x) => Number(x.toFixed(2)))
const flag = (argv, name, fallback) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback

// `node client` against the opened server; its JSON report.
function client (opened, flags) {
  const json = path.join(path.dirname(opened.configFile), 'check.json')
  const args = [path.join(ROOT, 'client'), `--config=${opened.configFile}`, `--serverPort=${opened.server.port}`, ...flags, `--json=${json}`]
  const run = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' })
  if (!fs.existsSync(json)) throw new Error(`node client ${flags.join(' ')} exited ${run.status}: ${run.stderr.trim().split('\n').pop()}`)
  const report = JSON.parse(fs.readFileSync(json, 'utf8'))
  fs.rmSync(json)
  return report
}

// A server of the cell, started as the harness starts one (its storage mounted when ioDelay is set).
async function open (cell, tmp, generation) {
  const opened = await openServer({ cell, generation }, {
    dir: tmp, dataRoot: tmp, options: { readyTimeout: 15000, keepData: false }, signal: new AbortController().signal
  })
  if (!opened.error) return opened
  await opened.close()
  throw opened.error
}

// The run's requests, GET and PUT, in one record (the report's histograms are the processes' added).
function pooled (report) {
  return mergeRecords(['GET', 'PUT'].map((type) => {
    const { count, min, max, mean } = report.latency[type]
    return deserializeRecord({ count, min, max, sum: (mean ?? 0) * count, errors: {}, histogram: report.histograms[type] })
  }))
}

// Every try at the rate, on the kept server with its files removed first, or (warmOps 0) on a fresh one.
async function tryRate ({ rate, repeats, warm, seconds, config, slo }, server) {
  const tries = []
  for (let k = 0; k < repeats; k++) {
    const opened = await server.get()
    try {
      OPS.clear({ dir: opened.dataPath })
      const report = client(opened, [`--rate=${rate}`, `--nOperations=${Math.round(rate * seconds)}`, `--warmup=${config.warmup}`])
      const all = pooled(report)
      const verdict = judgePooled(all, slo.targets)
      const figures = summarize(all)
      tries.push({ held: report.errorCount === 0 && verdict.judged && verdict.over === null, requests: verdict.requests, failed: report.errorCount,
        us: Object.fromEntries(slo.targets.map((t) => [t.name, figures[t.name]])), achieved: Math.round(report.achievedRate) })
    } finally {
      if (warm === 0) await server.close()
    }
  }
  return { rate, seconds, held: tries.filter((t) => t.held).length, of: repeats, tries }
}

async function checkCell (cell, { slo, env, repeats, warmOps, tmp }) {
  const capacity = cell.capacity?.estimate
  if (!Number.isFinite(capacity)) return { cell: cell.cell, skipped: 'no capacity in the folder' }
  const { config, options } = env
  // Format 3 names the runtime (node-v20.20.2), older folders the Node (v20.20.2); the Node running this is taken as it is.
  const runtime = splitId(cell.runtime ?? cell.node)
  const runs = `${runtime.name}-${runtime.version}` === currentRuntime() ? 'node' : `${runtime.name}@${runtime.version.replace(/^v/, '')}`
  const flags = [`--runtime=${runs}`, `--ioDelay=${cell.ioDelay}`, `--nServers=${cell.nServers}`, `--nClients=${cell.nClients}`,
    `--concurrency=${config.concurrency}`, `--readsPerWrite=${cell.readsPerWrite}`, ...(cell.asyncApi ? [`--asyncApi=${cell.asyncApi}`] : [])]
  const [run] = planSweep('run', [...flags, `--dataPath=${tmp}`], cell.kind).runs
  // As the search's server has served thousands by its last probes (at most 10 s of the closed loop).
  const warm = Math.min(warmOps, Math.round((cell.closedLoop?.estimate ?? capacity) * 10))
  let opened = null
  let generation = 0
  const server = {
    async get () {
      if (opened) return opened
      opened = await open(run.cell, tmp, ++generation)
      if (warm > 0) client(opened, [`--nOperations=${warm}`, `--warmup=${config.warmup}`])
      return opened
    },
    async close () {
      await opened?.close()
      opened = null
    }
  }
  const out = { cell: cell.cell, capacity, slo: slo.text, warmOps: warm,
    command: `./run_benchmark.sh run ${cell.kind} ${flags.join(' ')} (the server), node client --rate=R --nOperations=R*seconds --warmup=${config.warmup}` }
  try {
    for (const factor of FACTORS) {
      const rate = Math.round(capacity * factor)
      const seconds = probeSeconds(rate, options.probe * CHECK, slo.targets)
      out[`x${factor}`] = await tryRate({ rate, repeats, warm, seconds, config, slo }, server)
    }
  } finally {
    await server.close()
  }
  return out
}

async function main (argv) {
  if (wantsHelp(argv)) {
    process.stdout.write(entryHelp({ usage: 'node bench/capacity-check.js DIR [--repeats=N] [--warmOps=N] [--cells=PREFIX]',
      about: 'Checks a capacity folder with the client alone: each cell\'s server warmed by --warmOps (20000, at most\n' +
        '10 s) closed-loop operations (0: a fresh server for every try), then node client at 0.8x and 1.5x its\n' +
        'capacity, 3 times as long as a probe, --repeats (3) times each; prints a JSON line per cell with\n' +
        'cores, Node and load average.', config: false }))
    return 0
  }
  const dir = argv.find((a) => !a.startsWith('--'))
  const repeats = Number(flag(argv, 'repeats', 3))
  const warmOps = Number(flag(argv, 'warmOps', 20000))
  const only = flag(argv, 'cells', '')
  const bad = !dir || !fs.existsSync(path.join(dir, 'capacity.json')) ? 'give a capacity results folder (one with capacity.json)'
    : !Number.isInteger(repeats) || repeats < 1 || !Number.isInteger(warmOps) || warmOps < 0
        ? '--repeats takes a whole number of 1 or more, --warmOps of 0 or more'
        : null
  if (bad) {
    process.stderr.write(`bench/capacity-check.js: ${bad}\n`)
    return 2
  }
  const { slo, cells } = JSON.parse(fs.readFileSync(path.join(dir, 'capacity.json'), 'utf8'))
  const env = JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8'))
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-capacity-check-'))
  fs.mkdirSync(path.join(tmp, 'cells')) // the server's log
  try {
    for (const cell of cells.filter((c) => c.cell.startsWith(only))) {
      const before = load()
      const checked = await checkCell(cell, { slo, env, repeats, warmOps, tmp })
      process.stdout.write(JSON.stringify({ cpus: os.cpus().length, loadBefore: before, loadAfter: load(), ...checked }) + '\n')
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
  return 0
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code }, (err) => {
    process.stderr.write(`${err.message}\n`)
    process.exitCode = 1
  })
}
