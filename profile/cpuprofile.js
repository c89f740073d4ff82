'use strict'
// Reads V8 .cpuprofile objects (node --cpu-prof, the inspector's Profiler.stop) as timed samples
// with leaf-first frames, and merges several profiles of one process into one file for DevTools.

function frameOf (callFrame) {
  const { functionName, url, lineNumber } = callFrame
  return {
    name: functionName || '(anonymous)',
    file: url || '',
    line: lineNumber >= 0 ? lineNumber + 1 : null, // 0-based in the profile, 1-based as perf's
    kernel: false
  }
}

function parentsOf (nodes) {
  const parent = new Map()
  for (const node of nodes) for (const child of node.children || []) parent.set(child, node.id)
  return parent
}

/**
 * The samples of a .cpuprofile, frames leaf first without the (root) node; (idle), (program) and
 * (garbage collector) stay as frames so named. timeUs is on the profile's clock (monotonic, as
 * process.hrtime), weightUs the time to the next sample, or to endTime for the last; a negative
 * gap (V8 may store samples slightly out of order) weighs 0. Samples of one node share a frames array.
 * @param {{ nodes: object[], startTime: number, endTime: number, samples: number[], timeDeltas: number[] }} profile
 * @returns {Array<{ timeUs: number, weightUs: number, frames: Array<{ name: string, file: string, line: number|null, kernel: false }> }>}
 */
function cpuprofileSamples (profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = parentsOf(profile.nodes)
  const stacks = new Map()
  const stackOf = (id) => {
    if (!stacks.has(id)) {
      const frames = []
      for (let at = id; at !== undefined; at = parent.get(at)) {
        const node = byId.get(at)
        if (node && node.callFrame.functionName !== '(root)') frames.push(frameOf(node.callFrame))
      }
      stacks.set(id, frames)
    }
    return stacks.get(id)
  }
  const times = []
  let time = profile.startTime
  for (const delta of profile.timeDeltas) times.push(time += delta)
  return profile.samples.map((id, i) => {
    const next = i + 1 < times.length ? times[i + 1] : profile.endTime
    return { timeUs: times[i], weightUs: Math.max(0, next - times[i]), frames: stackOf(id) }
  })
}

function frameKey ({ functionName, url, lineNumber, columnNumber }) {
  return `${functionName}\0${url}\0${lineNumber}\0${columnNumber}`
}

/**
 * One .cpuprofile from several of one process (e.g. disjoint windows): nodes with the same call
 * path (same parent path and callFrame) become one, ids renumbered from 1 (the root) with
 * hitCount and positionTicks summed, and the samples of all inputs in time order with timeDeltas
 * recomputed.
 * The gap between two inputs is not marked: view the result, attribute from the inputs.
 * @param {object[]} profiles .cpuprofile objects
 * @returns {{ nodes: object[], startTime: number, endTime: number, samples: number[], timeDeltas: number[] }}
 */
function mergeCpuprofiles (profiles) {
  if (profiles.length === 0) throw new TypeError('mergeCpuprofiles needs at least one profile, got none')
  const nodes = []
  const byPath = new Map() // `${parent id}\0${callFrame key}` → merged node
  const add = (parentId, callFrame) => {
    const key = `${parentId}\0${frameKey(callFrame)}`
    let node = byPath.get(key)
    if (!node) {
      node = { id: nodes.length + 1, callFrame: { ...callFrame }, hitCount: 0, children: [] }
      nodes.push(node)
      byPath.set(key, node)
      if (parentId) nodes[parentId - 1].children.push(node.id)
    }
    return node
  }
  const timed = []
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]))
    const parent = parentsOf(profile.nodes)
    const mergedId = new Map()
    // Parents first: walk down from each root so a child always finds its parent's merged id.
    const roots = profile.nodes.filter((node) => !parent.has(node.id))
    const queue = roots.map((node) => [node, 0])
    for (let i = 0; i < queue.length; i++) {
      const [node, parentId] = queue[i]
      const merged = add(parentId, node.callFrame)
      merged.hitCount += node.hitCount || 0
      for (const { line, ticks } of node.positionTicks || []) {
        const at = (merged.positionTicks ??= []).find((p) => p.line === line)
        if (at) at.ticks += ticks
        else merged.positionTicks.push({ line, ticks })
      }
      mergedId.set(node.id, merged.id)
      for (const child of node.children || []) queue.push([byId.get(child), merged.id])
    }
    let time = profile.startTime
    profile.samples.forEach((id, i) => {
      time += profile.timeDeltas[i]
      timed.push({ time, id: mergedId.get(id) })
    })
  }
  timed.sort((a, b) => a.time - b.time) // stable: equal times keep input order
  const startTime = Math.min(...profiles.map((p) => p.startTime))
  const endTime = Math.max(...profiles.map((p) => p.endTime))
  const timeDeltas = timed.map(({ time }, i) => time - (i ? timed[i - 1].time : startTime))
  return { nodes, startTime, endTime, samples: timed.map((s) => s.id), timeDeltas }
}

module.exports = { cpuprofileSamples, mergeCpuprofiles }
