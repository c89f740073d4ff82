'use strict'
// The compare command's output: Markdown for stdout and one self-contained HTML page, both with
// the environment differences first, then every shared cell's ratios B/A. Used by report/compare/compare.js.

const { html } = require('../../lib/html-template')
const { fixed, formatRatio } = require('../stats/verdicts')
const { median } = require('../../lib/median')
const { whyMarkdown, whyHtml } = require('./why')
const { machineLines } = require('./machine')
const { runtimeLabel } = require('../../lib/install/runtime-specs')

// A figure's change, B against A (report/stats/intervals.js judge): faster or slower for throughput, lower
// or higher for a latency; '' when it is not a clear change.
const WORDS = { higher: { faster: 'faster', slower: 'slower' }, lower: { faster: 'lower', slower: 'higher' } }
const mark = (figure) => WORDS[figure.better][figure.verdict] ?? ''
// A verdict entry of verdicts.json in words: "1.35× [1.22–1.49] faster".
const verdictText = (v) => (v ? `${Number.isFinite(v.estimate) ? `${formatRatio(v)} ` : ''}${v.verdict}` : '–')

const num = (x) => (x === null ? '–' : fixed(x, 0))
const cores = (n) => `${n} core${n === 1 ? '' : 's'}`
const ratioText = (f) => (f.ratio ? formatRatio(f.ratio) : '–')

// The sentences both outputs share: what the intervals are, how many changes, the common shift.
function summary (result) {
  const { cells, margin, comparisons, confidence, verdicts } = result
  const marked = cells.flatMap((c) => c.figures.filter((f) => mark(f)).map((f) => ({ cell: c.id, f })))
  const changed = verdicts.filter((v) => v.a && v.b && v.a.verdict !== v.b.verdict)
  const shift = median(cells.map((c) => c.figures[0].ratio?.estimate).filter(Number.isFinite))
  const covered = Math.min(...cells.flatMap((c) => c.figures.map((f) => f.ratio?.confidence ?? 1)))
  return {
    marked,
    method: 'Ratios are B/A: the median of every B/A pair of valid repeats (Hodges–Lehmann), with an interval ' +
      `at ${fixed(confidence * 100, 2)}% each (Bonferroni over ${comparisons} comparisons, so that all hold together ` +
      `with 95%${covered < confidence ? `; with these repeats an interval reaches only ${fixed(covered * 100, 2)}%` : ''}). ` +
      `A figure is marked faster or slower (B against A) when its interval leaves out 1, the same when it lies within ±${Math.round(margin * 100)}%.`,
    verdict: marked.length === 0 ? `No figure changed clearly in the ${cells.length} shared cells.`
      : `${marked.length} of ${comparisons} figures changed clearly: ` +
        `${marked.map(({ cell, f }) => `${cell} ${f.name} ${mark(f)} (${formatRatio(f.ratio)})`).join('; ')}.`,
    verdicts: changed.length === 0 ? 'Every verdict the two folders share is the same in both.'
      : `${changed.length} verdict${changed.length === 1 ? ' differs' : 's differ'}: ` +
        `${changed.map((v) => `${v.label}: ${v.a.verdict} in A, ${v.b.verdict} in B`).join('; ')}.`,
    shift: shift === null
      ? ''
      : `Across the shared cells, the median B/A of ${cells[0].figures[0].name} is ${fixed(shift, 2)}: ` +
        'a change of machine, load or Node version moves every cell alike.'
  }
}

// GitHub's limit on a pull-request comment, in characters.
const COMMENT_LIMIT = 65536

// The gate's outcome (--fail-on=slower) in words: a heading, then what is slower, or what was watched.
function gateLines (gate) {
  if (!gate) return []
  if (gate.acrossMachines) {
    return ['## Gate (--fail-on=slower): not judged', '', `A and B were made on different machines (${gate.acrossMachines}): the gate does not ` +
      'judge code across machines. Run both on one machine and compare those two folders.', '']
  }
  const watched = `${gate.cells.length} cell${gate.cells.length === 1 ? '' : 's'} (every figure) and ` +
    `${gate.verdicts.length} comparison${gate.verdicts.length === 1 ? '' : 's'}`
  return gate.slower.length === 0
    ? ['## Gate (--fail-on=slower): passed', '', `Nothing watched is slower beyond noise: ${watched}.`, '']
    : ['## Gate (--fail-on=slower): failed', '', `Slower beyond noise, of ${watched} watched:`, '', ...gate.slower.map((s) => `- ${s}`), '']
}

/**
 * @param {object} result from compareFolders
 * @param {{ limit?: number }} [how] limit: the most characters; past it the shared cells' table keeps only the cells that
 *   changed, so that the Markdown fits a pull-request comment (the HTML page has them all)
 * @returns {string} Markdown
 */
function compareMarkdown (result, { limit = COMMENT_LIMIT } = {}) {
  const whole = markdownOf(result, result.cells)
  if (whole.length <= limit) return whole
  const changed = result.cells.filter((c) => c.figures.some(mark))
  return markdownOf(result, changed, `${result.cells.length - changed.length} cells without a clear change are left out of this table to fit a ` +
    `pull-request comment (${COMMENT_LIMIT.toLocaleString('en-US')} characters); the HTML page has every cell.`)
}

function markdownOf (result, rows, leftOut = '') {
  const { a, b, envDiffs, cells, verdicts, onlyA, onlyB, what, figures } = result
  const s = summary(result)
  const heads = [`${figures[0].name} A`, `${figures[0].name} B`, ...figures.map((f) => `${f.name} B/A`)]
  const cell = (f) => `${ratioText(f)}${mark(f) ? ` **${mark(f)}**` : ''}`
  const lines = ['# Compare: B/A', '', `- A: ${a.dir} (${a.env.command}, ${a.env.serverRuntimes.map(runtimeLabel).join(', ')}, ${cores(a.env.cpus)})`,
    `- B: ${b.dir} (${b.env.command}, ${b.env.serverRuntimes.map(runtimeLabel).join(', ')}, ${cores(b.env.cpus)})`, '',
    ...machineLines(result.machine), ...gateLines(result.gate),
    '## Environment differences', '',
    ...(envDiffs.length === 0 ? ['None: the same Node, CPU, kernel, flags and packages.']
      : ['| field | A | B |', '|---|---|---|', ...envDiffs.map((d) => `| ${d.field} | ${d.a} | ${d.b} |`)]),
    '', `## Verdicts (${what}, each folder's own)`, '', s.verdicts, '', '| comparison | A | B |', '|---|---|---|',
    ...verdicts.map((v) => `| ${v.label} | ${verdictText(v.a)} | ${verdictText(v.b)} |`),
    '', `## Shared cells (${cells.length})`, '', s.verdict, s.shift, '', s.method, '',
    `| cell | ${heads.join(' | ')} |`, `|---|${heads.map(() => '---|').join('')}`,
    ...rows.map((c) => `| ${c.id} | ${num(median(c.figures[0].a))} | ${num(median(c.figures[0].b))} | ${c.figures.map(cell).join(' | ')} |`)]
  if (leftOut) lines.push('', leftOut)
  if (onlyA.length + onlyB.length > 0) lines.push('', `Only in A: ${onlyA.join(', ') || 'none'}. Only in B: ${onlyB.join(', ') || 'none'}.`)
  lines.push(...whyMarkdown(result.why))
  return lines.filter((line, i, all) => !(line === '' && all[i - 1] === '')).join('\n') + '\n'
}

/**
 * @param {object} result from compareFolders
 * @returns {string} a self-contained HTML page
 */
function compareHtml (result) {
  const { a, b, envDiffs, cells, verdicts, onlyA, onlyB, what, figures } = result
  const s = summary(result)
  const gate = gateLines(result.gate)
  const machine = machineLines(result.machine)
  const rows = (lines) => lines.filter((l) => l.startsWith('| ') && !l.startsWith('| cost')).map((l) => l.slice(2, -2).split(' | '))
  const heads = [`${figures[0].name} A`, `${figures[0].name} B`, ...figures.map((f) => `${f.name} B/A`)]
  const td = (f) => html`<td class="${mark(f) ? 'changed' : ''}">${ratioText(f)}${mark(f) && html`<br><strong>${mark(f)}</strong>`}</td>`
  const cellRow = (c) => html`<tr><td>${c.id}</td><td>${num(median(c.figures[0].a))}</td><td>${num(median(c.figures[0].b))}</td>${c.figures.map(td)}</tr>`
  return `<!doctype html>\n${html`<html lang="en"><head><meta charset="utf-8"><title>Compare ${b.name} / ${a.name}</title>
<style>body { font: 15px/1.5 system-ui, sans-serif; max-width: 1060px; margin: 0 auto; padding: 20px; color: #222; }
table { border-collapse: collapse; font-size: 13px; } th, td { padding: 4px 8px; border-bottom: 1px solid #e6e9ed; text-align: left; }
td.changed { background: #fbeee6; } .note { color: #444; font-size: 14px; }</style></head><body>
<h1>Compare: B/A</h1><ul><li>A: ${a.dir} (${a.env.command}, ${a.env.serverRuntimes.map(runtimeLabel).join(', ')}, ${cores(a.env.cpus)})</li>
<li>B: ${b.dir} (${b.env.command}, ${b.env.serverRuntimes.map(runtimeLabel).join(', ')}, ${cores(b.env.cpus)})</li></ul>
${machine.length > 0 && html`<h2>${machine[0].slice(3)}</h2><p>${machine[2]}</p>
${rows(machine).length > 0 && html`<table class="machine"><thead><tr><th>cost (µs)</th><th>A</th><th>B</th><th>B/A</th></tr></thead>
<tbody>${rows(machine).map((r) => html`<tr>${r.map((x) => html`<td>${x.replace(' **moved**', ' (moved)')}</td>`)}</tr>`)}</tbody></table>`}`}
${gate.length > 0 && html`<h2>${gate[0].slice(3)}</h2><p>${gate[2]}</p>
${gate.length > 4 && html`<ul>${gate.slice(4, -1).map((s) => html`<li>${s.slice(2)}</li>`)}</ul>`}`}
<h2>Environment differences</h2>${envDiffs.length === 0 ? html`<p>None: the same Node, CPU, kernel, flags and packages.</p>`
  : html`<table class="env"><thead><tr><th>field</th><th>A</th><th>B</th></tr></thead><tbody>
  ${envDiffs.map((d) => html`<tr><td>${d.field}</td><td>${d.a}</td><td>${d.b}</td></tr>`)}</tbody></table>`}
<h2>Verdicts (${what}, each folder's own)</h2><p>${s.verdicts}</p>
<table class="verdicts"><thead><tr><th>comparison</th><th>A</th><th>B</th></tr></thead><tbody>
${verdicts.map((v) => html`<tr><td>${v.label}</td><td>${verdictText(v.a)}</td><td>${verdictText(v.b)}</td></tr>`)}</tbody></table>
<h2>Shared cells (${cells.length})</h2><p><strong>${s.verdict}</strong> ${s.shift}</p><p class="note">${s.method}</p>
<table class="cells"><thead><tr><th>cell</th>${heads.map((h) => html`<th>${h}</th>`)}</tr></thead>
<tbody>${cells.map(cellRow)}</tbody></table>
${onlyA.length + onlyB.length > 0 && html`<p class="note">Only in A: ${onlyA.join(', ') || 'none'}. Only in B: ${onlyB.join(', ') || 'none'}.</p>`}
${whyHtml(result.why)}</body></html>`}\n`
}

module.exports = { compareMarkdown, compareHtml }
