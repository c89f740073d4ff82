'use strict'
// The page-cache state of a data folder: its data set written before the server starts, how much of it
// is cached (vmtouch counts the resident pages with mincore), the cache emptied of it (written back,
// then dropped with posix_fadvise DONTNEED: vmtouch -e), and the bytes a server's processes read from
// the device (/proc/PID/io read_bytes: a buffered read that misses the cache is not a page fault).

const fs = require('node:fs')
const path = require('node:path')
const { spawnSync, execFile } = require('node:child_process')
const { promisify } = require('node:util')
const { findOnPath } = require('../lib/find-on-path')
const { readMounts } = require('./stale')
const { procPath } = require('../lib/platform')
const { fileKey } = require('../lib/workload')

const MAX_FILE = '1024G' // vmtouch skips files above its -m (500 MiB by default)
const RAM_FILESYSTEMS = ['tmpfs', 'ramfs']
const WRITERS = 8
const execFileP = promisify(execFile)

const vmtouchProblem = () => (findOnPath('vmtouch', process.env.PATH) ? '' : 'vmtouch is not installed (./run_benchmark.sh setup installs it)')

function vmtouch (args) {
  const res = spawnSync('vmtouch', ['-f', '-m', MAX_FILE, ...args], { encoding: 'utf8' })
  if (res.error || res.status !== 0) throw new Error(`vmtouch ${args.join(' ')}: ${res.error?.message || res.stderr.trim() || `exit ${res.status}`}`)
  return res.stdout
}

/**
 * The share of a folder's (or file's) pages in the page cache.
 * @param {string} target
 * @returns {{ resident: number, pages: number, percent: number }} percent: 100 for an empty folder
 */
function residency (target) {
  const found = /Resident Pages: (\d+)\/(\d+)/.exec(vmtouch([target]))
  if (!found) throw new Error(`vmtouch ${target}: no "Resident Pages" line`)
  const [resident, pages] = [Number(found[1]), Number(found[2])]
  return { resident, pages, percent: pages === 0 ? 100 : 100 * resident / pages }
}

/**
 * Drops a folder's (or file's) pages from the page cache: its file system written back first (a dirty
 * page cannot be dropped), then DONTNEED on every file. Asynchronous: writing back takes seconds, in
 * which the run's other servers are starting.
 * @param {string} target
 * @returns {Promise<void>}
 */
async function evict (target) {
  for (const [command, args] of [['sync', ['-f', target]], ['vmtouch', ['-f', '-m', MAX_FILE, '-q', '-e', target]]]) {
    try {
      await execFileP(command, args)
    } catch (err) {
      throw new Error(`${command} ${args.join(' ')}: ${`${err.stderr ?? ''}`.trim() || err.message}`)
    }
  }
}

/**
 * Reads a folder's (or file's) pages into the page cache (vmtouch -t): a plain folder's data set cached on purpose,
 * as a machine that pages out what stays idle (this VM's DAMON: a minute unread) would not keep it.
 * @param {string} target
 * @returns {Promise<void>}
 */
async function touch (target) {
  try {
    await execFileP('vmtouch', ['-f', '-m', MAX_FILE, '-q', '-t', target])
  } catch (err) {
    throw new Error(`vmtouch -t ${target}: ${`${err.stderr ?? ''}`.trim() || err.message}`)
  }
}

/** Bytes the process read from the device so far (its threads', dead ones too), or 0 when it is gone. */
function readBytes (pid) {
  try {
    return Number(/^read_bytes: (\d+)$/m.exec(fs.readFileSync(procPath(pid, 'io'), 'utf8'))?.[1] ?? 0)
  } catch {
    return 0
  }
}

/** The mount a path is on (the longest mount point above its real path). */
function mountOf (target) {
  const real = fs.realpathSync(target)
  const above = readMounts().filter((m) => real === m.mountpoint || real.startsWith(m.mountpoint === '/' ? '/' : `${m.mountpoint}/`))
  return above.sort((a, b) => b.mountpoint.length - a.mountpoint.length)[0]
}

/** Why a folder cannot hold a cold data set (it is in memory), or ''. */
function ramFolderProblem (dir) {
  const mount = mountOf(dir)
  return RAM_FILESYSTEMS.includes(mount?.type)
    ? `the data folder ${dir} is on ${mount.type} (${mount.mountpoint}), which is memory: no device to read from; give --dataPath on a disk`
    : ''
}

/**
 * Writes a data set: files file-0 .. file-(nFiles-1) of fileBytes each, lines of the config's value (the
 * shape the server sorts), so that every GET reads that much whatever it appended.
 * @param {string} dir
 * @param {{ nFiles: number, fileBytes: number, value: string }} config
 * @returns {Promise<void>}
 */
async function writeDataSet (dir, { nFiles, fileBytes, value }) {
  const line = Buffer.from(`${value} preloaded\n`)
  const body = Buffer.concat([Buffer.from(line.toString().repeat(Math.ceil(fileBytes / line.length))).subarray(0, fileBytes - 1), Buffer.from('\n')])
  // A few writes at a time, so that the run's other servers, starting meanwhile, are heard.
  let next = 0
  const writer = async () => {
    while (next < nFiles) await fs.promises.writeFile(path.join(dir, fileKey(next++)), body)
  }
  await Promise.all(Array.from({ length: Math.min(WRITERS, nFiles) }, writer))
}

/**
 * The files of a data set that make `share` % of it, spread evenly: file f when (f+1)·share/100 and f·share/100 have
 * different whole parts, so that a client walking the files in turn finds that share of them cached wherever it is.
 * @param {number} nFiles
 * @param {number} share 0 to 100
 * @returns {number[]} round(nFiles × share / 100) file numbers
 */
function warmFiles (nFiles, share) {
  return Array.from({ length: nFiles }, (_, f) => f).filter((f) => Math.floor((f + 1) * share / 100) > Math.floor(f * share / 100))
}

module.exports = { residency, evict, touch, readBytes, mountOf, ramFolderProblem, writeDataSet, warmFiles, vmtouchProblem }
