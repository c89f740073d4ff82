'use strict'
// The one progress bar (cli-progress) of the commands: on stderr, and only when stderr is a
// terminal, so that a run's output piped to a file holds no bar; and --quiet, which holds back
// everything a run says on stderr, bar included, unless it fails.

const { SingleBar, Presets } = require('cli-progress')

/**
 * Starts a progress bar.
 * @param {number} total
 * @param {string} format cli-progress's format, e.g. '{bar} {value}/{total} runs | {run}'
 * @param {object} [payload] the format's other fields at the start
 * @param {{ clear?: boolean }} [how] clear: remove the bar once it is complete
 * @returns {SingleBar|null} null when stderr is not a terminal
 */
function progressBar (total, format, payload = {}, { clear = false } = {}) {
  if (!process.stderr.isTTY || held) return null
  const bar = new SingleBar({ stream: process.stderr, format, hideCursor: true, clearOnComplete: clear, etaBuffer: 5 }, Presets.shades_classic)
  bar.start(total, 0, payload)
  return bar
}

let held = null

/**
 * Holds back what this process writes on stderr (--quiet) until the returned function is called.
 * @returns {(failed: boolean) => void} ends the hold; failed: write what was held, else drop it
 */
function holdStderr () {
  const write = process.stderr.write
  held = []
  process.stderr.write = (chunk, encoding, done) => {
    held.push(String(chunk))
    const callback = [encoding, done].find((f) => typeof f === 'function')
    if (callback) process.nextTick(callback)
    return true
  }
  return (failed) => {
    process.stderr.write = write
    if (failed) process.stderr.write(held.join(''))
    held = null
  }
}

module.exports = { progressBar, holdStderr }
