'use strict'
// quick with its server and client processes on other hosts over ssh, here network namespaces of
// this machine that run Debian's sshd (test/fixtures/sshd.js: the tests' hosts, with keys made for
// the run and removed after it): `node bench/ssh-hosts.js [-- QUICK FLAGS]` runs
// `./run_benchmark.sh quick --serverHost=H1 --clientHosts=H2,H3 --ssh=...` and prints one JSON line:
// bench/quick.js's figures (wall time, measured share, the A/A, the verdicts), each client host's
// median ops/s and GET p99 over the valid rows, the hosts' overlap, the time verifying on the server
// host, and whether anything was left on the hosts. The namespaces share this machine's cores: this
// measures the plumbing and that the answers hold, not what separate machines would give.

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parse } = require('csv-parse/sync')
const { startSshHosts, sshdProblem } = require('../test/fixtures/sshd')
const { quickFigures } = require('./quick')
const { median } = require('../report/stats/intervals')
const { wantsHelp, entryHelp } = require('../lib/entry-help')

const ROOT = path.resolve(__dirname, '..')

// Each client host's medians over the valid rows, from the summary's clientHosts text.
function hostMedians (rows) {
  const per = new Map()
  for (const row of rows.filter((r) => r.valid === 'true')) {
    for (const m of row.clientHosts.matchAll(/(\S+) (\d+) ops\/s GET p99 (\d+) µs (\d+) µs\/req/g)) {
      const h = per.get(m[1]) ?? { opsPerSec: [], getP99: [], cpuPerReqUs: [] }
      h.opsPerSec.push(Number(m[2]))
      h.getP99.push(Number(m[3]))
      h.cpuPerReqUs.push(Number(m[4]))
      per.set(m[1], h)
    }
  }
  return Object.fromEntries([...per].map(([host, h]) => [host, Object.fromEntries(Object.entries(h).map(([k, v]) => [k, median(v)]))]))
}

async function main (flags) {
  const why = sshdProblem()
  if (why) throw new Error(`bench/ssh-hosts.js: ${why}`)
  const lab = await startSshHosts({ count: 3 })
  try {
    const [h1, h2, h3] = lab.hosts
    const results = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ssh-'))
    const args = ['quick', `--serverHost=${h1}`, `--clientHosts=${h2},${h3}`, `--ssh=${lab.ssh}`, `--results=${results}`, ...flags]
    const load = os.loadavg().map((x) => Number(x.toFixed(2)))
    const start = performance.now()
    const run = spawnSync(path.join(ROOT, 'run_benchmark.sh'), args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' })
    const wallMs = performance.now() - start
    if (run.status !== 0) process.stderr.write(`bench/ssh-hosts.js: quick exited ${run.status}\n`)
    const dir = path.dirname(run.stdout.trim())
    const rows = parse(fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true })
    const rounds = parse(fs.readFileSync(path.join(dir, 'rounds.csv'), 'utf8'), { columns: true })
    const left = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout.split('\n').filter((l) => /cbench-remote-|lib\/ipc-relay\.js/.test(l))
    const overlap = rows.filter((r) => r.valid === 'true').map((r) => Number(r.shardOverlap))
    process.stdout.write(JSON.stringify({
      command: `./run_benchmark.sh quick --serverHost=${h1} --clientHosts=${h2},${h3} --ssh="-i KEY ..." ${flags.join(' ')}`.trim(),
      hosts: 'network namespaces of this machine, each with its own sshd',
      loadBefore: load,
      ...quickFigures(dir, wallMs),
      clientHosts: hostMedians(rows),
      shardOverlap: { min: Math.min(...overlap), median: median(overlap) },
      verifyMs: median(rounds.map((r) => Number(r.verify))),
      left: left.length
    }) + '\n')
  } finally {
    lab.close()
  }
}

if (require.main === module) {
  const split = process.argv.indexOf('--')
  const own = split === -1 ? process.argv.slice(2) : process.argv.slice(2, split)
  if (wantsHelp(own)) {
    process.stdout.write(entryHelp({ usage: 'node bench/ssh-hosts.js [-- QUICK FLAGS]', config: false,
      about: 'Runs quick with its server and client processes on network namespaces of this machine over ssh (root, sshd)\n' +
        'and prints one JSON line: quick\'s figures, each client host\'s, and whether anything was left on the hosts.' }))
    process.exit(0)
  }
  if (own.length > 0) {
    process.stderr.write(`bench/ssh-hosts.js: bad argument ${own[0]}: quick's flags go after -- (--help says more)\n`)
    process.exit(2)
  }
  main(split === -1 ? [] : process.argv.slice(split + 1)).catch((err) => {
    process.stderr.write(`${err.message}\n`)
    process.exitCode = 1
  })
}
