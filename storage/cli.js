'use strict'
// `node storage/cli.js --backing=DIR --mountpoint=DIR [--ioDelay=µs] [--ioDelayQd4=µs] [--ioDepth=N]`: mounts delayfs,
// prints the ready line and, at the end, the counters as JSON on stdout; Ctrl-C or SIGTERM unmounts.

const { checkFuse } = require('./check')
const { mountDelayFs } = require('./mount')
const { cleanStaleMounts } = require('./stale')
const { IO_DEPTH } = require('../lib/results/dimensions')

const DEFAULTS = { ioDelay: '1000', ioDepth: String(IO_DEPTH) }
const USAGE = `usage: node storage/cli.js --backing=DIR --mountpoint=DIR [--ioDelay=${DEFAULTS.ioDelay}] [--ioDelayQd4=µs] [--ioDepth=${DEFAULTS.ioDepth}]
  Mounts DIR at the mountpoint through delayfs: every read, fsync and durable (O_DSYNC) write waits
  ioDelay µs with one in service, ioDelayQd4 µs with 4 or more (linear between; not given: ioDelay at
  every depth), at most ioDepth of them at once; a buffered write waits for nothing.
  SIGUSR1 to this process prints the counters; Ctrl-C unmounts.`

function usageError (message) {
  process.stderr.write(`storage: ${message}\n${USAGE}\n`)
  process.exit(2)
}

/** Parses --key=value flags; exits 2 naming a bad or unknown flag. */
function parseFlags (argv) {
  const flags = { ...DEFAULTS }
  for (const arg of argv) {
    const m = /^--(backing|mountpoint|ioDelay|ioDelayQd4|ioDepth)=(.+)$/.exec(arg)
    if (!m) usageError(`unknown or malformed flag ${arg}`)
    flags[m[1]] = m[2]
  }
  for (const key of ['backing', 'mountpoint']) if (!flags[key]) usageError(`--${key} is required`)
  for (const [key, min] of [['ioDelay', 0], ['ioDelayQd4', 0], ['ioDepth', 1]]) {
    if (flags[key] === undefined) continue
    if (!/^\d+$/.test(flags[key]) || Number(flags[key]) < min) usageError(`--${key} must be an integer >= ${min}, got ${flags[key]}`)
    flags[key] = Number(flags[key])
  }
  return flags
}

/** Runs the CLI with argv (without node and the script). */
async function main (argv) {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  const flags = parseFlags(argv)
  const reason = checkFuse()
  if (reason) {
    process.stderr.write(`storage: ${reason}\n`)
    process.exit(1)
  }
  cleanStaleMounts()
  let handle
  try {
    handle = await mountDelayFs(flags)
  } catch (err) {
    process.stderr.write(`storage: ${err.message}\n`)
    process.exit(1)
  }
  let stopping = false
  const stop = async () => {
    if (stopping) return
    stopping = true
    const counters = await handle.unmount()
    process.stdout.write(`${JSON.stringify(counters)}\n`)
    process.exit(0)
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  process.on('SIGHUP', stop)
  process.on('SIGUSR1', async () => process.stdout.write(`${JSON.stringify(await handle.stats())}\n`))
  handle.exited.then(({ code, signal }) => {
    if (stopping) return
    process.stderr.write(`storage: delayfs ended by itself (${signal || `exit code ${code}`})\n`)
    stop()
  })
  // Ready only once the signals unmount: a SIGTERM sent on the ready line must not find the default action still in place.
  const qd4 = flags.ioDelayQd4 === undefined ? '' : ` ioDelayQd4=${flags.ioDelayQd4}`
  process.stdout.write(`mounted ${handle.mountpoint} pid=${handle.pid} ioDelay=${flags.ioDelay}${qd4} ioDepth=${flags.ioDepth}\n`)
}

module.exports = { main }

if (require.main === module) main(process.argv.slice(2))
