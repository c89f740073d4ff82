'use strict'
// profile/cpuprofile.js: a real node --cpu-prof recording (test/fixtures/profile/small.cpuprofile,
// trimmed) read as timed leaf-first samples, and profiles merged into one by call path.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { cpuprofileSamples, mergeCpuprofiles } = require('../../profile/cpuprofile')

const load = () => JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'profile', 'small.cpuprofile'), 'utf8'))
const names = (sample) => sample.frames.map((f) => f.name)

t.test('every sample is read, timed from startTime, and the weights cover the profile from the first sample to its end', async (t) => {
  const profile = load()
  const samples = cpuprofileSamples(profile)
  t.equal(samples.length, profile.samples.length)
  t.equal(samples[0].timeUs, profile.startTime + profile.timeDeltas[0])
  t.equal(samples.reduce((a, s) => a + s.weightUs, 0), profile.endTime - samples[0].timeUs)
  t.equal(samples[1].weightUs, profile.timeDeltas[2], 'a weight is the time to the next sample')
  t.equal(samples.at(-1).weightUs, profile.endTime - samples.at(-1).timeUs)
  t.ok(samples.every((s) => s.weightUs >= 0))
})

t.test('frames are leaf first up to the root, without (root), with 1-based lines', async (t) => {
  const samples = cpuprofileSamples(load())
  const sort = samples.find((s) => s.frames[0].name === 'sortFile')
  t.same(sort.frames[0], { name: 'sortFile', file: 'file:///tmp/prof/servers/sort-file.js', line: 3, kernel: false })
  t.same(names(sort).slice(1, 3), ['(anonymous)', 'Module._compile'])
  t.equal(names(sort).at(-1), '(anonymous)', 'run_main_module, just under the root')
  t.notOk(samples.some((s) => names(s).includes('(root)')))
  const read = samples.find((s) => s.frames[0].name === 'readFileUtf8')
  t.same(read.frames.slice(0, 2), [
    { name: 'readFileUtf8', file: '', line: null, kernel: false },
    { name: 'readFileSync', file: 'node:fs', line: 441, kernel: false }
  ])
})

t.test('(idle), (program) and (garbage collector) stay as frames so named', async (t) => {
  const leaves = cpuprofileSamples(load()).map((s) => names(s))
  t.equal(leaves.filter((n) => n.length === 1 && n[0] === '(idle)').length, 16)
  t.equal(leaves.filter((n) => n.length === 1 && n[0] === '(garbage collector)').length, 17)
  t.equal(leaves.filter((n) => n.length === 1 && n[0] === '(program)').length, 2)
})

t.test('the last sample weighs 0 when endTime is before it, and a sample out of order weighs 0', async (t) => {
  const profile = {
    nodes: [{ id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: [2] },
      { id: 2, callFrame: { functionName: 'f', url: '/a.js', lineNumber: 0, columnNumber: 0 } }],
    startTime: 100,
    endTime: 110,
    samples: [2, 2, 2],
    timeDeltas: [5, 10, -3]
  }
  t.same(cpuprofileSamples(profile).map((s) => [s.timeUs, s.weightUs]), [[105, 10], [115, 0], [112, 0]])
})

function checkTree (t, merged) {
  const ids = merged.nodes.map((n) => n.id)
  t.same(ids, ids.map((_, i) => i + 1), 'ids run from 1')
  t.equal(merged.nodes[0].callFrame.functionName, '(root)')
  const parents = new Map()
  for (const n of merged.nodes) {
    for (const c of n.children) {
      t.ok(ids.includes(c), `child ${c} exists`)
      t.notOk(parents.has(c), `child ${c} has one parent`)
      parents.set(c, n.id)
    }
  }
  t.equal(parents.size, merged.nodes.length - 1, 'every node but the root has a parent')
  t.ok(merged.samples.every((id) => ids.includes(id)), 'every sample is a node')
}

t.test('the same profile merged with itself shifted in time has twice the samples and the same nodes', async (t) => {
  const a = load()
  const shift = a.endTime - a.startTime + 1000
  const b = { ...load(), startTime: a.startTime + shift, endTime: a.endTime + shift }
  const merged = mergeCpuprofiles([b, a])
  checkTree(t, merged)
  t.equal(merged.nodes.length, a.nodes.length)
  t.equal(merged.samples.length, 2 * a.samples.length)
  t.equal(merged.startTime, a.startTime)
  t.equal(merged.endTime, b.endTime)
  const times = cpuprofileSamples(merged).map((s) => s.timeUs)
  t.ok(times.every((time, i) => i === 0 || time >= times[i - 1]), 'samples in time order')
  const one = cpuprofileSamples(a)
  const both = cpuprofileSamples(merged)
  t.same(both.slice(0, one.length).map(names), one.map(names), 'the earlier input comes first, stacks unchanged')
  t.same(both.slice(one.length).map((s) => s.timeUs), one.map((s) => s.timeUs + shift))
  const hits = (p, name) => p.nodes.filter((n) => n.callFrame.functionName === name).reduce((x, n) => x + n.hitCount, 0)
  t.equal(hits(merged, 'sortFile'), 2 * hits(a, 'sortFile'))
  const ticks = (p) => p.nodes.find((n) => n.callFrame.functionName === 'churn').positionTicks
  t.same(ticks(merged), ticks(a).map(({ line, ticks }) => ({ line, ticks: 2 * ticks })), 'line ticks summed')
})

t.test('merging no profile at all is refused', async (t) => {
  t.throws(() => mergeCpuprofiles([]), /at least one profile/)
})

t.test('nodes merge by call path: one function under two parents stays two nodes', async (t) => {
  const frame = (functionName) => ({ functionName, scriptId: '1', url: '/app.js', lineNumber: 1, columnNumber: 0 })
  const root = { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }
  const p1 = { nodes: [{ id: 1, callFrame: root, children: [2] }, { id: 2, callFrame: frame('a'), children: [3] }, { id: 3, callFrame: frame('x') }],
    startTime: 0, endTime: 30, samples: [3, 2], timeDeltas: [10, 10] }
  const p2 = { nodes: [{ id: 7, callFrame: root, children: [8, 9] }, { id: 9, callFrame: frame('a'), children: [5] }, { id: 5, callFrame: frame('y') },
    { id: 8, callFrame: frame('x') }], startTime: 5, endTime: 40, samples: [5, 8], timeDeltas: [10, 20] }
  const merged = mergeCpuprofiles([p1, p2])
  checkTree(t, merged)
  t.same(merged.nodes.map((n) => n.callFrame.functionName), ['(root)', 'a', 'x', 'x', 'y'])
  t.same(merged.nodes[0].children, [2, 4], 'a and the x called from the root')
  t.same(merged.nodes[1].children, [3, 5], 'one a, with x and y under it')
  t.same(cpuprofileSamples(merged).map((s) => [s.timeUs, names(s).join('<')]), [[10, 'x<a'], [15, 'y<a'], [20, 'a'], [35, 'x']])
  t.same(merged.timeDeltas, [10, 5, 5, 15])
  t.same([merged.startTime, merged.endTime], [0, 40])
})
