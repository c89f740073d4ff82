'use strict'
// Parses the text of `perf script -F comm,pid,tid,time,period,ip,sym,dso --ns` (perf 6.1) into
// samples with leaf-first frames; JS frames from node's perf map get a name, a file and a line.

const HEADER = /^(.+?)\s+(\d+)\/(\d+)\s+(\d+)\.(\d+):\s*(\d+)?/
const FRAME = /^\s*([0-9a-f]+)\s+(.*)$/i
// node --perf-basic-prof names: `JS:^name file:line:col` (Node >= 18: marker ^ * ~ or none),
// older `LazyCompile:*name file:line`; the name may be empty for an anonymous function.
const JS_PREFIX = /^(?:JS|LazyCompile|Function|InterpretedFunction|Script|Eval):[~*^+]?/
const JS_LOCATION = /^(.*?) ?(\S+?):(\d+)(?::\d+)?$/

// The dso is the last parenthesised group, which may itself hold parentheses
// (`(/memfd:doublemapper (deleted))`), so it is found by matching from the end.
function splitDso (rest) {
  if (!rest.endsWith(')')) return { sym: rest.trim(), dso: '' }
  let depth = 0
  for (let i = rest.length - 1; i >= 0; i--) {
    if (rest[i] === ')') depth++
    else if (rest[i] === '(' && --depth === 0) return { sym: rest.slice(0, i).trim(), dso: rest.slice(i + 1, -1) }
  }
  return { sym: rest.trim(), dso: '' }
}

/**
 * One frame from a perf symbol and dso: a JS frame of node's perf map becomes its function name
 * ('(anonymous)' when empty), its script path or node: URL and its 1-based line; any other frame
 * keeps its symbol as the name, the dso as the file and a null line.
 * @param {string} sym
 * @param {string} dso
 * @returns {{ name: string, file: string, line: number|null, kernel: boolean }}
 */
function parseFrame (sym, dso) {
  const kernel = dso.startsWith('[kernel')
  const prefix = JS_PREFIX.exec(sym)
  if (prefix) {
    const rest = sym.slice(prefix[0].length)
    const loc = JS_LOCATION.exec(rest)
    if (loc) return { name: loc[1].trim() || '(anonymous)', file: loc[2], line: Number(loc[3]), kernel }
    return { name: rest.trim() || '(anonymous)', file: '', line: null, kernel }
  }
  return { name: sym, file: dso, line: null, kernel }
}

// Seconds with up to 9 decimals to integer ns, from the digits: a float would lose the last ones.
function toNs (seconds, fraction) {
  return Number(seconds) * 1e9 + Number(fraction.slice(0, 9).padEnd(9, '0'))
}

/**
 * The samples of a `perf script -F comm,pid,tid,time,period,ip,sym,dso --ns` text. Equal frames
 * are one shared object (a recording repeats the same few thousand): read them, never change them.
 * @param {string} text
 * @returns {Array<{ comm: string, pid: number, tid: number, timeNs: number, periodNs: number,
 *   frames: Array<{ name: string, file: string, line: number|null, kernel: boolean }> }>} frames leaf first
 */
function parsePerfScript (text) {
  const samples = []
  const frames = new Map() // `sym (dso)` → its frame
  let current = null
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      current = null
      continue
    }
    if (current && /^\s/.test(line)) {
      const frame = FRAME.exec(line)
      if (frame) {
        if (!frames.has(frame[2])) {
          const { sym, dso } = splitDso(frame[2])
          frames.set(frame[2], parseFrame(sym, dso))
        }
        current.frames.push(frames.get(frame[2]))
      }
      continue
    }
    const header = HEADER.exec(line)
    if (!header) continue // perf's own warnings, or a frame line without its header
    current = {
      comm: header[1],
      pid: Number(header[2]),
      tid: Number(header[3]),
      timeNs: toNs(header[4], header[5]),
      periodNs: header[6] === undefined ? 0 : Number(header[6]),
      frames: []
    }
    samples.push(current)
  }
  return samples
}

module.exports = { parsePerfScript, parseFrame }
