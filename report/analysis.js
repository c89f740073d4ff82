'use strict'
// What a sweep folder's numbers say, in one object the outputs read (report/outputs.js): its comparisons and
// verdicts, the calibration, the run's figures, the scaling fit, crossovers, versions, models, placement,
// the real storage check, why (when a run with --profile left a profile), the pool model (cells that vary libuv's pool) and
// the fs API table (cells that vary the async API and the file size).

const { comparisons } = require('./stats/comparisons')
const { calibration, undecidedNeeds } = require('./stats/verdicts')
const { runFigures, runNote } = require('./stats/run-figures')
const { MARGIN } = require('../lib/median')
const { fitScaling } = require('./stats/usl-fit')
const { crossoverGroups } = require('./stats/crossover')
const { compareVersions } = require('./stats/versions')
const { compareModels } = require('./stats/models')
const { comparePlacement } = require('./stats/placement')
const { realStorage } = require('./stats/real-storage')
const { whyAnalysis } = require('./stats/why')
const { poolModel } = require('./stats/pool-model')
const { fsApiAnalysis } = require('./fsapi/analysis')

/**
 * @param {object} results from report/data/read.js readResults (a sweep folder)
 * @param {object[]} all its cells, A/A ones too (report/stats/cell-stats.js summariseCells)
 * @param {object[]} cells the cells without the A/A ones
 * @param {object|null} profile from report/data/profile.js readProfile
 * @returns {object} verdicts, margin, calibration, undecided (what the undecided verdicts need), run, runNote, fits, crossover, versions,
 *   models, placement, why, pool, storage, fsapi
 */
function analyse (results, all, cells, profile) {
  const margin = results.env.options?.margin ?? MARGIN
  const verdicts = comparisons(all, { margin })
  const run = runFigures(results)
  const why = profile && whyAnalysis(profile, verdicts)
  return { verdicts, margin, calibration: calibration(verdicts, results.env), undecided: undecidedNeeds(verdicts, results.env), run,
    runNote: runNote(run), fits: fitScaling(cells), crossover: crossoverGroups(cells), versions: compareVersions(results, cells),
    models: compareModels(cells), placement: comparePlacement(cells),
    why, pool: poolModel(results, cells, verdicts, why), storage: realStorage(results.env, cells, verdicts), fsapi: fsApiAnalysis(all, verdicts, why) }
}

module.exports = { analyse }
