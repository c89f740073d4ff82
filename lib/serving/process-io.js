'use strict'
// What a server process says and how: log lines on stderr with its pid, storage faults told
// once then counted, the ready line, and the limits and exit codes its parts agree on.

const { createFaultLog, faultLine } = require('./faults')

const STOP_GRACE_MS = 4000 // SIGTERM to exit stays under 5 s
const EXIT_LISTEN_FAILED = 3
const PARENT_GONE = 'the process that started this server is gone'

/** Writes one line to stderr, with this process's pid. */
const log = (line) => process.stderr.write(`[${process.pid}] ${line}\n`)

/**
 * The log of storage faults in the process that writes the log; told again at exit.
 * @returns {{ note: Function, flush: Function }} (lib/serving/faults.js)
 */
function loggedFaults () {
  const faults = createFaultLog({ emit: (e) => log(faultLine(e)) })
  process.on('exit', () => faults.flush())
  return faults
}

/** @returns {string} why listening failed, in one line */
function portInUse (err, config) {
  return err.code === 'EADDRINUSE'
    ? `port ${config.serverPort} on ${config.serverHostname} is already in use`
    : `cannot listen on ${config.serverHostname}:${config.serverPort}: ${err.code || err.message}`
}

/** The ready line (readyLine) as read back: its port is the first group. */
const READY_LINE = /^listening http:\/\/\S+:(\d+) /

/** @returns {string} the line on stdout that says every worker listens */
function readyLine (kind, config, port, workers) {
  return `listening http://${config.serverHostname}:${port} kind=${kind} workers=${workers} pid=${process.pid}\n`
}

module.exports = { log, loggedFaults, portInUse, readyLine, READY_LINE, STOP_GRACE_MS, EXIT_LISTEN_FAILED, PARENT_GONE }
