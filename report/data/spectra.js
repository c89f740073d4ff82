'use strict'
// Latency spectra: per cell and operation, the raw histograms of its valid repeats (from the
// client JSON) added up and written as hgrm/<cell>-<op>.hgrm; and which cells share a spectrum
// chart (one per settings and load, a line per kind). Used by report/index.js and report/charts/figures.js.

const path = require('node:path')
const { decodeHistogram, mergeHistograms, formatHgrm, parseHgrm } = require('../../lib/results/hgrm')
const { isMultiProcess } = require('../../lib/kinds')

const OPS = ['GET', 'PUT']

/**
 * Adds to each cell `spectra`: per operation with requests, the merged histogram's .hgrm text
 * and its parsed rows; {} when the folder's client JSON carries no histograms (older folders).
 * @param {object} results from readResults
 * @param {object[]} cells from groupCells; changed in place
 * @returns {object[]} the same cells
 */
function addSpectra (results, cells) {
  for (const cell of cells) {
    cell.spectra = {}
    const jsons = cell.valid.filter((r) => r.json).map((r) => results.readCellJson(r)).filter(Boolean)
    for (const op of OPS) {
      const parts = jsons.filter((j) => j.histograms?.[op] && j.latency?.[op]?.count > 0)
      if (parts.length === 0) continue
      const text = formatHgrm(mergeHistograms(parts.map((j) => decodeHistogram(j.histograms[op]))))
      cell.spectra[op] = { text, ...parseHgrm(text), repeats: parts.length }
    }
  }
  return cells
}

/**
 * Each cell's merged latency spectra as files: hgrm/<cell>-GET.hgrm and -PUT.hgrm in HdrHistogram's text.
 * @param {object[]} cells from addSpectra
 * @returns {[string, string][]} [path inside the results folder, text]
 */
function spectraFiles (cells) {
  return cells.flatMap((cell) => Object.entries(cell.spectra ?? {}).map(([op, { text }]) => [path.join('hgrm', `${cell.id}-${op}.hgrm`), text]))
}

/**
 * The spectrum charts of a set of cells (one settings variant): one per load, a line per kind
 * at one process count (a single process; the cluster kinds at the most workers that fit the cores).
 * @param {object[]} cells from addSpectra, one variant
 * @param {number} cores
 * @returns {{ load: number, lines: { name: string, kind: string, cell: object }[] }[]}
 */
function spectrumGroups (cells, cores) {
  const withSpectra = cells.filter((c) => Object.keys(c.spectra ?? {}).length > 0)
  const loads = [...new Set(withSpectra.map((c) => c.load))].sort((a, b) => a - b)
  const apis = new Set(withSpectra.map((c) => c.api).filter(Boolean))
  return loads.map((load) => {
    const some = withSpectra.filter((c) => c.load === load)
    const fits = some.filter((c) => isMultiProcess(c.kind) && c.nServers <= cores).map((c) => c.nServers)
    const workers = fits.length > 0 ? Math.max(...fits) : Math.min(...some.map((c) => c.nServers))
    const lines = some.filter((c) => !isMultiProcess(c.kind) || c.nServers === workers).map((cell) => ({
      kind: cell.kind,
      cell,
      name: `${cell.kind}${isMultiProcess(cell.kind) ? ` ×${cell.nServers}` : ''}${apis.size > 1 && cell.api ? ` (${cell.api})` : ''}`
    }))
    return { load, lines }
  }).filter((g) => g.lines.length > 0)
}

module.exports = { addSpectra, spectraFiles, spectrumGroups, OPS }
