'use strict'
// The workload: which operation (GET or PUT) on which file each client process does, in which
// order. Pure functions of the config, shared by the client, the sweep and the tests.

const fileKey = (n) => `file-${n}`

/**
 * Operation i (0-based) of client process p (1-based). Operations 0, r+1, 2(r+1), ... are PUTs
 * (r = readsPerWrite; "inf" means no PUTs, 0 means only PUTs), the r in between GETs. PUTs and GETs
 * each walk the files round-robin on their own, starting at file (p-1) % nFiles, so every file
 * gets both reads and writes whatever r and nFiles are. The processes start spread evenly over the files
 * (file (p-1) when there are fewer files than processes), so that no process reads a file one step after
 * another did: from a cold page cache (--storage=cold) the second read would be a hit.
 * @param {number} i operation index within the process
 * @param {{ readsPerWrite: number|'inf', nFiles: number, nClients: number }} config
 * @param {number} processIndex 1..nClients
 * @returns {{ type: 'GET'|'PUT', key: string }}
 */
function operationAt (i, config, processIndex) {
  const { readsPerWrite, nFiles, nClients } = config
  const start = nFiles >= nClients ? Math.floor((processIndex - 1) * nFiles / nClients) : (processIndex - 1) % nFiles
  if (readsPerWrite === 'inf') return { type: 'GET', key: fileKey((start + i) % nFiles) }
  const putsSoFar = Math.floor(i / (readsPerWrite + 1)) + 1 // PUTs among operations 0..i
  if (i % (readsPerWrite + 1) === 0) return { type: 'PUT', key: fileKey((start + putsSoFar - 1) % nFiles) }
  return { type: 'GET', key: fileKey((start + i - putsSoFar) % nFiles) }
}

/**
 * Measured operations of process p: nOperations split evenly, the remainder one each to the first.
 * @returns {number}
 */
function operationCount (config, processIndex) {
  const { nOperations, nClients } = config
  return Math.floor(nOperations / nClients) + (processIndex <= nOperations % nClients ? 1 : 0)
}

/**
 * Files process p creates at the start of warm-up: file f when f % nClients === p-1. None when
 * warmup is 0 (warm-up off), or when the files were written before the run (fileBytes > 0).
 * @returns {number}
 */
function creationCount (config, processIndex) {
  const { warmup, nFiles, nClients } = config
  if (warmup === 0 || config.fileBytes > 0 || processIndex > nFiles) return 0
  return Math.ceil((nFiles - (processIndex - 1)) / nClients)
}

/**
 * Warm-up operation j of process p: first one PUT to each file it creates, then `warmup`
 * operations of the measured sequence (operationAt 0, 1, ...).
 * @returns {{ type: 'GET'|'PUT', key: string }}
 */
function warmupOperationAt (j, config, processIndex) {
  const creations = creationCount(config, processIndex)
  if (j < creations) return { type: 'PUT', key: fileKey(processIndex - 1 + j * config.nClients) }
  return operationAt(j - creations, config, processIndex)
}

/** @returns {number} warm-up operations of process p: creations plus `warmup` */
function warmupCount (config, processIndex) {
  return config.warmup === 0 ? 0 : creationCount(config, processIndex) + config.warmup
}

module.exports = { operationAt, operationCount, creationCount, warmupOperationAt, warmupCount, fileKey }
