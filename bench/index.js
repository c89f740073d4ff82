'use strict'
// All the benches in sequence, at modest sizes (a few minutes on 2 cores): `npm run bench` or
// `node bench/index.js [--out=FILE] [--only=client,server,memory,store]` (--help lists them). Each result
// is one JSON line on stdout (all of them, with the load average, in FILE too); progress and a table on stderr.

const { spawn } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { wantsHelp, helpSection, entryHelp } = require('../lib/entry-help')
const { rule, text, checked } = require('../lib/config')

const BENCHES = [
  { name: 'client', args: ['--rounds=3', '--seconds=5', '--requests=30000'] },
  { name: 'server', args: ['--rounds=1', '--seconds=5'] },
  { name: 'memory', args: ['--small=10000', '--large=200000'] },
  { name: 'store', args: ['--ms=1000'] }
]

const x = (ratio) => ratio === null ? '-' : `${ratio.toFixed(2)}x`

// Rows [bench, figure, value] that say what each result found.
const ROWS = {
  client: (r) => ['length', 'chunked'].flatMap((framing) => {
    const f = r[framing]
    const cpu = (tool) => `${f.cpuPerRequestUs[tool]} µs CPU/req`
    return [
      ['client', `node client / autocannon (req/s, ${framing})`, `${f.client} / ${f.autocannon} = ${x(f.ratio)} (${cpu('client')}, ${cpu('autocannon')})`],
      ['client', `node client / wrk (req/s, ${framing})`,
        f.wrk === null ? 'wrk not installed' : `${f.client} / ${f.wrk} = ${x(f.ratioWrk)} (wrk ${cpu('wrk')})`]
    ]
  }),
  server: (r) => r.rows.flatMap((row) => [
    ['server', `${row.op} express app / minimal express (CPU µs/req, paired by round)`,
      `${x(row.expressOverMinimalCpu[0])} [${row.expressOverMinimalCpu.slice(1).join('–')}]`],
    ['server', `${row.op} express / node:http (CPU µs/req, paired by round)`,
      `${x(row.expressOverHttpCpu[0])} [${row.expressOverHttpCpu.slice(1).join('–')}]`]]),
  memory: (r) => r.ratios.map((row) => ['memory', `${row.variant} peak RSS ${r.large} / ${r.small} ops`, `primary ${x(row.primary)}, worker ${x(row.worker)}`]),
  store: (r) => r.rows.map((row) => ['store', row.task, `mean ${row.meanUs} µs, p99 ${row.p99Us} µs, CPU ${row.cpuUs} µs`])
}

// Runs one bench with its stderr shown as it goes; resolves with the JSON it prints.
function runBench (name, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, `${name}.js`), ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`exited ${code}`))
      try { resolve(JSON.parse(stdout)) } catch (err) { reject(new Error(`printed no JSON: ${err.message}`)) }
    })
  })
}

function formatTable (rows) {
  const widths = [0, 1].map((k) => Math.max(...rows.map((row) => row[k].length)))
  return rows.map((row) => `${row[0].padEnd(widths[0])}  ${row[1].padEnd(widths[1])}  ${row[2]}`).join('\n') + '\n'
}

const NAMES = BENCHES.map((b) => b.name)
const FLAGS = {
  out: text('a file name'),
  only: rule(`a comma-separated list of ${NAMES.join(', ')}`, (v) => {
    const list = String(v).split(',')
    return list.every((name) => NAMES.includes(name)) ? list : undefined
  })
}
const FLAGS_HELP = { out: 'also write every result, with the load average before and after, to this JSON file', only: 'the benches to run' }
const USAGE = `node bench/index.js [--out=FILE] [--only=${NAMES.join(',')}]`

function parseArgs (argv) {
  if (wantsHelp(argv)) {
    process.stdout.write(entryHelp({
      usage: USAGE,
      about: 'Runs the benches of the harness in turn at modest sizes (a few minutes on 2 cores): each result\n' +
        'is one JSON line on stdout; progress and a table on stderr. Exit status: 0, 1 a bench failed, 2 bad flag.',
      sections: [helpSection('Flags', FLAGS, FLAGS_HELP, { out: 'none', only: NAMES.join(',') })],
      config: false
    }))
    process.exit(0)
  }
  const options = { out: null, only: NAMES }
  for (const arg of argv) {
    const m = /^--(\w+)=(.*)$/.exec(arg)
    if (!m || !Object.hasOwn(FLAGS, m[1])) throw new Error(`bad argument ${arg}; usage: ${USAGE}`)
    options[m[1]] = checked(`--${m[1]}`, FLAGS[m[1]], m[2])
  }
  return options
}

async function main () {
  const { out, only } = parseArgs(process.argv.slice(2))
  const doc = { startedAt: new Date().toISOString(), cores: os.availableParallelism(), node: process.version, loadavgBefore: os.loadavg(), results: [] }
  const rows = [['bench', 'figure', 'value']]
  for (const { name, args } of BENCHES.filter((b) => only.includes(b.name))) {
    process.stderr.write(`bench ${name} ${args.join(' ')}\n`)
    let result
    try {
      result = await runBench(name, args)
      rows.push(...ROWS[name](result))
    } catch (err) {
      result = { bench: name, error: err.message }
      rows.push([name, 'FAILED', err.message.split('\n')[0]])
    }
    doc.results.push(result)
    process.stdout.write(JSON.stringify(result) + '\n')
  }
  doc.loadavgAfter = os.loadavg()
  if (out) fs.writeFileSync(out, JSON.stringify(doc, null, 2) + '\n')
  process.stderr.write(formatTable(rows))
  return doc.results.some((r) => r.error) ? 1 : 0
}

if (require.main === module) {
  main().then((code) => { process.exitCode = code }, (err) => { process.stderr.write(`${err.message}\n`); process.exit(2) })
}
