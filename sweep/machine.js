'use strict'
// ./run_benchmark.sh machine [--json]: this machine's fingerprint (lib/machine/fingerprint.js), its line or its record.

const { ConfigError } = require('../lib/config')
const { measureFingerprint, fingerprintLine } = require('../lib/machine/fingerprint')

/**
 * @param {string[]} args after `machine`
 * @returns {{ json: boolean }}
 * @throws {ConfigError} for anything but --json
 */
function parseMachineCommand (args) {
  const bad = args.find((a) => a !== '--json')
  if (bad !== undefined) throw new ConfigError(`machine: unknown argument ${JSON.stringify(bad)}; use machine [--json]`)
  return { json: args.includes('--json') }
}

/** Prints the fingerprint: its line, or with --json its record; resolves with the exit status. */
async function runMachineCommand ({ json }) {
  const fp = await measureFingerprint()
  process.stdout.write(json ? `${JSON.stringify(fp, null, 2)}\n` : `${fingerprintLine(fp)}\n`)
  return 0
}

module.exports = { parseMachineCommand, runMachineCommand }
