'use strict'
// docs/REFERENCE.md keeps up with the code it describes: summary.csv's columns and env.json's fields
// as the commands write them, every flag and config key, each command's defaults, the cell ids it
// shows, the client JSON's env; and report/data/read.js reads the results formats REFERENCE names.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { ROOT, SCHEMA, loadConfig } = require('../../lib/config')
const { MOOT, SUFFIXES, firstValues } = require('../../lib/results/dimensions')
const { KIND_NAMES } = require('../../lib/kinds')
const { describeEnv } = require('../../lib/results/environment')
const { HOST_OPTIONS } = require('../../lib/machine/ssh')
const { SWEEP_LISTS, SWEEP_OPTIONS } = require('../../sweep/plan/options')
const { cellId } = require('../../sweep/plan/grid')
const { PRESETS } = require('../../sweep/commands')
const { COLUMNS: PEAK_COLUMNS, PEAK_OPTIONS, PEAK_DEFAULTS, PEAK_NSERVERS } = require('../../sweep/peak/peak')
const { COLUMNS: SWEEP_COLUMNS } = require('../../sweep/cell/cell')
const { COLUMNS: CAPACITY_COLUMNS } = require('../../sweep/capacity/run')
const { sweepHelp } = require('../../sweep/help')
const { collectEnv, planEnv, finishEnv } = require('../../sweep/results/env')
const { readResults } = require('../../report/data/read')
const { RESULTS_FORMAT } = require('../../lib/results/dimensions')
const { writeSweepFolder } = require('../fixtures/results-folder')

const reference = fs.readFileSync(path.join(ROOT, 'docs', 'REFERENCE.md'), 'utf8')
const lines = reference.split('\n')

// The rows of every REFERENCE table with this header row, as their cells (`\|` stays in its cell).
function tableRows (t, header) {
  const rows = []
  lines.forEach((line, at) => {
    if (line !== header) return
    for (const row of lines.slice(at + 2)) {
      if (!row.startsWith('|')) break
      rows.push(row.trim().slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim()))
    }
  })
  t.ok(rows.length > 0, `REFERENCE has a table "${header}"`)
  return rows
}
const quoted = (cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1])
// A name may hold digits (--ioDelayQd4) and a hyphen (--fail-on, as compare's).
const flagsIn = (cell) => [...cell.matchAll(/`--([A-Za-z][A-Za-z0-9]*(?:-[a-z]+)*)/g)].map((m) => m[1])
const missing = (from, within) => [...new Set(from)].filter((x) => !within.includes(x))

// What each command writes as summary.csv (sweep/index.js: the runner of each command).
const HEADERS = {
  sweep: SWEEP_COLUMNS, quick: SWEEP_COLUMNS, versions: SWEEP_COLUMNS, runtimes: SWEEP_COLUMNS, run: SWEEP_COLUMNS,
  capacity: CAPACITY_COLUMNS, peak: PEAK_COLUMNS
}

t.test('summary.csv: each command\'s header in REFERENCE is the one it writes, column for column', async (t) => {
  const documented = {}
  for (const [commands, columns] of tableRows(t, '| command | columns, in order |')) {
    for (const command of quoted(commands)) documented[command] = quoted(columns)
  }
  t.same(Object.keys(documented).sort(), Object.keys(HEADERS).sort(), 'a header for every command that writes summary.csv')
  for (const [command, written] of Object.entries(HEADERS)) {
    const shown = documented[command] ?? []
    t.same(missing(written, shown), [], `${command}: every column it writes is in REFERENCE's header`)
    t.same(missing(shown, written), [], `${command}: REFERENCE's header has no column it does not write`)
    t.same(shown, written, `${command}: REFERENCE's header is in the order written`)
  }
})

t.test('summary.csv: every column written has a meaning in REFERENCE, and every column explained is written', async (t) => {
  const explained = tableRows(t, '| column | meaning |').flatMap(([columns]) => quoted(columns))
  const written = Object.values(HEADERS).flat()
  t.same(missing(written, explained), [], 'no column written without a meaning')
  t.same(missing(explained, written), [], 'no meaning of a column nobody writes')
})

t.test('env.json: REFERENCE lists every top-level field a run writes, and only those', async (t) => {
  // The commands' own plans (sweep/commands.js, sweep/peak/peak.js), one of them on other hosts (whose ssh
  // check is not made here), through what sweep/runner.js writes at the start and at the end.
  const hosts = require('../../sweep/hosts/hosts')
  const elsewhere = { '../../sweep/hosts/hosts': { ...hosts, planRemote: () => ({ checked: [] }) } }
  const run = require('../../sweep/commands').planSweep('run', [], 'sync')
  const plans = [
    run,
    { ...run, envExtra: { ...run.envExtra, device: {} } }, // storage-check's (and a cold run's) plan, with the device it measured
    t.mockRequire('../../sweep/commands', elsewhere).planSweep('run', [], 'sync'),
    t.mockRequire('../../sweep/peak/peak', elsewhere).planPeak(['--kinds=sync'])
  ]
  const written = plans.flatMap((plan) => Object.keys(finishEnv(planEnv(plan), { interrupted: false, rounds: { rounds: 6 } })))
  t.ok(written.includes('hosts') && written.includes('latencyUnit'), 'the plans make the fields of other hosts and of peak')
  const listed = tableRows(t, '| field | meaning |').flatMap(([fields]) => quoted(fields))
  t.same(missing(written, listed), [], 'every field written is in REFERENCE\'s env.json table')
  t.same(missing(listed, written), [], 'REFERENCE\'s env.json table has no field that is not written')
})

t.test('the client JSON\'s env in REFERENCE has the fields describeEnv records', async (t) => {
  const listed = /`env` \(([^)]*)\)/.exec(reference)?.[1].split(',').map((field) => field.trim()) ?? []
  t.same(listed.sort(), Object.keys(describeEnv()).sort())
})

const FLAGS = { ...SWEEP_LISTS, ...SWEEP_OPTIONS, ...PEAK_OPTIONS, ...HOST_OPTIONS }

t.test('every flag of every command has a row in REFERENCE\'s flag table, and every row names a real flag', async (t) => {
  const documented = tableRows(t, '| flag | default | meaning |').flatMap(([flags]) => flagsIn(flags))
  t.same(missing(Object.keys(FLAGS), documented), [], 'no flag without a row')
  t.same(missing(documented, Object.keys(FLAGS)), [], 'no row of a flag that does not exist')
})

t.test('a default REFERENCE gives as a plain number is one --help shows', async (t) => {
  const shown = new Map()
  for (const [, flag, value] of sweepHelp(null).matchAll(/^ {2}--(\w+) \(default: (.*)\)$/gm)) shown.set(flag, [...(shown.get(flag) ?? []), value])
  let checked = 0
  for (const [flags, given] of tableRows(t, '| flag | default | meaning |')) {
    const names = flagsIn(flags)
    const values = given.replaceAll('`', '').split(', ')
    if (values.length !== names.length || !values.every((v) => /^\d+(\.\d+)?$/.test(v))) continue
    names.forEach((name, k) => {
      checked++
      t.ok(shown.get(name)?.includes(values[k]), `--${name}: REFERENCE says ${values[k]}, --help ${shown.get(name)?.join(' or ')}`)
    })
  }
  t.ok(checked >= 10, `${checked} defaults compared`)
})

t.test('every config key has a row in the configuration table with config.json\'s default, and every row is a key', async (t) => {
  const defaults = JSON.parse(fs.readFileSync(path.join(ROOT, 'config.json'), 'utf8'))
  const rows = new Map(tableRows(t, '| key | default | meaning |').map(([key, shown]) => [quoted(key)[0], shown]))
  t.same(missing(Object.keys(SCHEMA), [...rows.keys()]), [], 'no config key without a row')
  t.same(missing([...rows.keys()], Object.keys(SCHEMA)), [], 'no row of a key the config does not take')
  for (const [key, value] of Object.entries(defaults)) t.ok(rows.get(key)?.includes(String(value)), `${key}'s row shows ${value}`)
})

t.test('the placement and balancer flags show their default', async (t) => {
  const rows = tableRows(t, '| flag | default | meaning |')
  for (const [flag, shown] of [['balance', '`roundrobin`'], ['cpuset', '`shared`'], ['hosts', '`local`'], ['rtt', '`0`']]) {
    const row = rows.find(([flags]) => flags.startsWith(`\`--${flag}=`))
    t.equal(row?.[1], shown, `--${flag} row shows ${shown}`)
  }
})

// What each command runs by default: sweep/commands.js PRESETS, and peak's own.
const DEFAULTS = {
  ...Object.fromEntries(Object.entries(PRESETS).map(([command, { lists, rounds }]) =>
    [command, { kinds: lists.kinds, nServers: lists.nServers, nClients: lists.nClients, ...pick(rounds, ['rounds', 'budget', 'window', 'passes']) }])),
  peak: { kinds: KIND_NAMES, nServers: PEAK_NSERVERS, rounds: PEAK_DEFAULTS.rounds }
}
function pick (object, keys) {
  return Object.fromEntries(keys.map((key) => [key, object[key]]))
}

const PRESET_COLUMNS = ['kinds', 'nServers', 'nClients', 'rounds', 'budget', 'window', 'passes']

// A default as REFERENCE's table writes it: all kinds as "all", a budget in seconds, a list with commas.
function shownDefault (key, value) {
  if (key === 'kinds' && value.length === KIND_NAMES.length) return 'all'
  return key === 'budget' ? `${value} s` : [value].flat().join(',')
}

t.test('each command\'s defaults in REFERENCE\'s table are those the command runs with', async (t) => {
  const rows = tableRows(t, `| command | ${PRESET_COLUMNS.join(' | ')} |`)
  t.same(rows.map(([command]) => quoted(command)[0]).sort(), Object.keys(DEFAULTS).sort(), 'a row for every command with defaults')
  for (const [first, ...cells] of rows) {
    const command = quoted(first)[0]
    PRESET_COLUMNS.forEach((key, k) => {
      const shown = cells[k].replace(/\s*\(.*\)$/, '') // a note in parentheses is for people
      const value = DEFAULTS[command]?.[key]
      if (value === undefined) t.notMatch(shown, /^\d/, `${command}: no ${key} of its own, and REFERENCE gives none (${shown})`)
      else t.equal(shown, shownDefault(key, value), `${command}: ${key}`)
    })
  }
})

// A command's defaults as REFERENCE's prose states them: "./run_benchmark.sh quick  # ... within a
// budget of 110 s ... at least 6 rounds", "versions ... at least 8 rounds of 6 passes of 200-operation windows".
const CLAIMS = {
  rounds: [/at least (\d+) rounds/, Number],
  passes: [/(\d+) passes/, Number],
  window: [/(\d+)-operation windows/, Number],
  budget: [/(?:budget(?: of)?|at most) (\d+(?:\.\d+)?) ?(s|min)\b/, (n, unit) => Number(n) * (unit === 'min' ? 60 : 1)],
  nServers: [/\bnServers (\d+(?:,\d+)*)/, (list) => list.split(',').map(Number)],
  nClients: [/\bnClients (\d+(?:,\d+)*)/, (list) => list.split(',').map(Number)]
}

// REFERENCE in blocks: a paragraph, a list item, or a line of a code block with the comment lines that follow it.
function blocks () {
  const out = []
  let code = false
  let block = null
  for (const line of lines) {
    if (line.startsWith('```')) {
      code = !code
      block = null
      continue
    }
    const starts = code ? !/^\s*#/.test(line) : line.trim() === '' || /^\s*- /.test(line) || line.startsWith('#')
    if (line.trim() === '') block = null
    else if (starts || block === null) out.push(block = [line])
    else block.push(line)
  }
  return out.map((b) => b.join(' '))
}

t.test('what REFERENCE\'s prose says of a command\'s defaults is what the command runs with', async (t) => {
  let checked = 0
  for (const text of blocks()) {
    const commands = [...new Set([...text.matchAll(/\.\/run_benchmark\.sh (sweep|quick|versions|runtimes|capacity)\b/g)].map((m) => m[1]))]
    if (commands.length !== 1) continue
    const [command] = commands
    for (const [key, [pattern, value]] of Object.entries(CLAIMS)) {
      const m = pattern.exec(text)
      if (!m || text.includes(`--${key}=`)) continue // a flag on the line sets its own value
      checked++
      t.same(value(...m.slice(1)), DEFAULTS[command][key], `${command}'s ${key}, as "${m[0]}" says`)
    }
  }
  t.ok(checked >= 8, `${checked} statements compared`)
})

// A cell id read back, suffix by suffix in the dimensions' order, and made again by cellId.
function remade (id) {
  const [, kind, nServers, nClients, rest] = /^([a-z-]+?)-s(\d+)-c(\d+)(.*)$/.exec(id)
  if (!KIND_NAMES.includes(kind)) return `${id}: no kind ${kind}`
  const firsts = firstValues(loadConfig([]).config)
  const cell = { ...Object.fromEntries(Object.keys(SUFFIXES).map((d) => [d, firsts[d][0]])), kind, nServers: Number(nServers), nClients: Number(nClients) }
  const optional = []
  let tail = rest
  for (const [d, suffix] of Object.entries(SUFFIXES)) {
    // The runtime has no suffix of its own: its id is node-v24.21.0, bun-1.4.5.
    const m = new RegExp(suffix === '' ? '^-((?:node|bun|deno)-[^-]+)' : `^-${suffix}([^-]+)`).exec(tail)
    if (!m) continue
    cell[d] = m[1]
    optional.push(d)
    tail = tail.slice(m[0].length)
  }
  const variant = /^-([AB])$/.exec(tail)?.[1]
  if (tail && !variant) return `${id}: cannot read ${tail}`
  for (const [d, moot] of Object.entries(MOOT)) if (moot(cell)) cell[d] = ''
  return cellId({ ...cell, variant }, optional)
}

t.test('every cell id REFERENCE shows is one the sweep makes: no suffix of a dimension moot for the cell', async (t) => {
  const ids = [...reference.matchAll(/`((?:sync|async)[a-z-]*-s\d+-c\d+[^`]*)`/g)].map((m) => m[1])
  t.ok(ids.length > 0, 'REFERENCE shows a cell id')
  for (const id of ids) t.equal(remade(id), id, id)
  t.not(remade('sync-cluster-s2-c4-api-callback'), 'sync-cluster-s2-c4-api-callback', 'a sync kind\'s -api- suffix is caught')
})

t.test('REFERENCE names every dimension that is moot for some cells', async (t) => {
  const sentence = /A dimension that means\s+nothing for a cell is not run twice: ([^(]*)\(/.exec(reference)?.[1] ?? ''
  t.same(quoted(sentence).sort(), Object.keys(MOOT).sort())
})

t.test('a results folder of a newer format is refused with one line that says to update the checkout', async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir)
  const file = path.join(dir, 'env.json')
  const env = JSON.parse(fs.readFileSync(file, 'utf8'))
  fs.writeFileSync(file, JSON.stringify({ ...env, format: 99 }))
  t.throws(() => readResults(dir), { message: `${file}: results format 99 is newer than this checkout reads (1-${RESULTS_FORMAT}): update the checkout` })
  for (const format of [0, '2', 1.5]) {
    fs.writeFileSync(file, JSON.stringify({ ...env, format }))
    t.throws(() => readResults(dir), { message: `${file}: results format ${JSON.stringify(format)} is not one this checkout reads (1-${RESULTS_FORMAT})` })
  }
})

t.test('the format a run writes is the newest the report reads, and it reads it', async (t) => {
  t.equal(collectEnv({}).format, RESULTS_FORMAT, 'env.json carries the format')
  const row = tableRows(t, '| field | meaning |').find(([fields]) => quoted(fields).includes('format'))?.[1] ?? ''
  t.match(row, `a whole number: ${RESULTS_FORMAT}.`, 'REFERENCE names the format written')
  t.match(row, `read formats 1-${RESULTS_FORMAT} `, 'and the formats read')
  const dir = t.testdir()
  const { rows } = writeSweepFolder(dir)
  const file = path.join(dir, 'env.json')
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), format: RESULTS_FORMAT }))
  t.equal(readResults(dir).rows.length, rows.length)
})

t.test('a folder without a format reads as format 1, as every folder kept in docs/ does', async (t) => {
  const dir = t.testdir()
  const { rows } = writeSweepFolder(dir)
  t.equal(readResults(dir).rows.length, rows.length, 'the synthetic folder')
  const kept = fs.readdirSync(path.join(ROOT, 'docs')).map((name) => path.join(ROOT, 'docs', name)).filter((d) => fs.existsSync(path.join(d, 'env.json')))
  t.ok(kept.length > 0, 'docs/ keeps results folders')
  for (const folder of kept) {
    const summaryRows = fs.readFileSync(path.join(folder, 'summary.csv'), 'utf8').trim().split('\n').length - 1
    t.equal(readResults(folder).rows.length, summaryRows, `${path.basename(folder)} is read`)
  }
})

// GitHub's anchor of a heading: lower case, no punctuation but '-' and '_', each space a '-'; a repeat gets -1, -2, ...
function anchors (markdown) {
  const seen = new Map()
  const out = new Set()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const m = !fenced && /^#{1,6} (.*)$/.exec(line)
    if (!m) continue
    const slug = m[1].toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    out.add(n === 0 ? slug : `${slug}-${n}`)
  }
  return out
}

t.test('every link to a section of REFERENCE (and README\'s to RESULTS) names one of its headings', async (t) => {
  const have = anchors(reference)
  t.ok(have.has('two-commits-in-one-run---rev'), 'a heading with code and a colon')
  const sources = [['README.md', /docs\/REFERENCE\.md#([\w-]+)/g], ['docs/REFERENCE.md', /\]\(#([\w-]+)\)/g],
    ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'REFERENCE.md')
      .map((f) => [`docs/${f}`, /REFERENCE\.md#([\w-]+)/g])]
  let links = 0
  for (const [file, pattern] of sources) {
    for (const [, anchor] of fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(pattern)) {
      links++
      t.ok(have.has(anchor), `${file}: #${anchor}`)
    }
  }
  t.ok(links > 10, `${links} links checked`)
  const results = anchors(fs.readFileSync(path.join(ROOT, 'docs', 'RESULTS.md'), 'utf8'))
  for (const [, anchor] of fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').matchAll(/docs\/RESULTS\.md#([\w-]+)/g)) {
    t.ok(results.has(anchor), `README.md: docs/RESULTS.md#${anchor}`)
  }
})
