'use strict'
// Run on another host over ssh (lib/machine/remote-fork.js): `node lib/machine/ipc-relay.js VERSION SCRIPT [ARG ...]`
// forks SCRIPT (a path in this checkout) on Node VERSION ('-': the one running the relay) with an
// IPC channel, and carries that channel over stdin and stdout as JSON lines: ["m", message] both
// ways; ["t"] in is answered at once by ["t", hrtime] (the control node measures the offset of this
// host's clock with it). The child's output goes to stderr. End of stdin (the ssh session ended,
// even by a SIGKILL of the control node) closes the channel, so the child ends, and the relay with it.

const { fork } = require('node:child_process')
const path = require('node:path')
const readline = require('node:readline')
const { ROOT } = require('../config')
const { binaryFor } = require('../install/node-versions')
const { onGone } = require('./child-gone')

function relay ([version, script, ...args]) {
  const execPath = version === '-' || version === process.version ? process.execPath : binaryFor(version)
  if (!execPath) {
    process.stderr.write(`ipc-relay: no Node ${version} on this host (./run_benchmark.sh node install ${version.slice(1)} puts it in .node-cache/)\n`)
    process.exitCode = 4
    return
  }
  const child = fork(path.join(ROOT, script), args, { execPath, stdio: ['ignore', 2, 2, 'ipc'] })
  const out = (frame) => process.stdout.write(`${JSON.stringify(frame)}\n`)
  const lines = readline.createInterface({ input: process.stdin })
  child.on('message', (msg) => out(['m', msg]))
  lines.on('line', (line) => {
    const [type, msg] = JSON.parse(line)
    if (type === 't') out(['t', String(process.hrtime.bigint())])
    else if (child.connected) child.send(msg)
  })
  lines.on('close', () => { if (child.connected) child.disconnect() })
  onGone(child, (code, signal) => {
    process.exitCode = code ?? 128
    if (signal) process.stderr.write(`ipc-relay: ${script} ended by ${signal}\n`)
    lines.close()
    process.stdin.destroy()
  })
}

if (require.main === module) relay(process.argv.slice(2))
