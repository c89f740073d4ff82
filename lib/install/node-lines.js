'use strict'
// Node.js release lines and their support dates (nodejs/Release schedule.json), to say which
// lines a result covers: end of life, maintenance LTS, active LTS or current. Update with the schedule.

/** major → dates (YYYY-MM-DD) a line started, became LTS, entered maintenance and ends. */
const LINES = {
  18: { start: '2022-04-19', lts: '2022-10-25', maintenance: '2023-10-18', end: '2025-04-30', codename: 'Hydrogen' },
  20: { start: '2023-04-18', lts: '2023-10-24', maintenance: '2024-10-22', end: '2026-04-30', codename: 'Iron' },
  22: { start: '2024-04-24', lts: '2024-10-29', maintenance: '2025-10-21', end: '2027-04-30', codename: 'Jod' },
  23: { start: '2024-10-16', maintenance: '2025-04-01', end: '2025-06-01' },
  24: { start: '2025-05-06', lts: '2025-10-28', maintenance: '2026-10-20', end: '2028-04-30', codename: 'Krypton' },
  25: { start: '2025-10-15', maintenance: '2026-04-01', end: '2026-06-01' },
  26: { start: '2026-04-22', lts: '2026-10-28', maintenance: '2027-10-20', end: '2029-04-30' }
}

const day = (date) => new Date(date).toISOString().slice(0, 10)

/**
 * The status of a release line on a date.
 * @param {number} major
 * @param {Date|string} [date]
 * @returns {'end of life'|'maintenance LTS'|'active LTS'|'current'|'maintenance'|'not yet released'|'unknown'}
 */
function lineStatus (major, date = new Date()) {
  const line = LINES[major]
  const today = day(date)
  if (!line) return 'unknown'
  if (today < line.start) return 'not yet released'
  if (today >= line.end) return 'end of life'
  if (line.lts && today >= line.maintenance) return 'maintenance LTS'
  if (line.lts && today >= line.lts) return 'active LTS'
  return today >= line.maintenance ? 'maintenance' : 'current'
}

/**
 * The LTS lines supported on a date (active or maintenance), oldest first.
 * @param {Date|string} [date]
 * @returns {number[]}
 */
function supportedLts (date = new Date()) {
  return Object.keys(LINES).map(Number).filter((m) => /LTS$/.test(lineStatus(m, date)))
}

/**
 * The newest LTS line on a date (the active LTS).
 * @param {Date|string} [date]
 * @returns {number}
 */
function newestLts (date = new Date()) {
  return supportedLts(date).at(-1)
}

module.exports = { lineStatus, supportedLts, newestLts }
