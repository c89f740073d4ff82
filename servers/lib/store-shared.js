'use strict'
// What the three stores share: the open flags, the HTTP meaning of fs errors, a short write undone
// (servers/lib/durability.js), and the GET work of the historic benchmark.

const fs = require('node:fs')
const { undoPartial, shortWriteError } = require('./durability')
const { sortPieces } = require('../../lib/sort-pieces') // the GET work of the historic benchmark, shared with the client's check

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW } = fs.constants
const READ_FLAGS = O_RDONLY | O_NOFOLLOW
const APPEND_FLAGS = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW
const OUT_OF_SPACE = new Set(['ENOSPC', 'EDQUOT'])

/**
 * An fs error whose meaning for the client is known: 403 for a symlink, 404 for no file (on a
 * read: on an append it means the data folder is gone, a 500), 507 for no space.
 * @param {Error} err an fs error
 * @param {boolean} reading whether it came from a read
 * @returns {Error} err with the status it answers, if known
 */
function classify (err, reading) {
  if (err.code === 'ELOOP') err.status = 403
  else if (err.code === 'EISDIR' || (reading && err.code === 'ENOENT')) err.status = 404
  else if (OUT_OF_SPACE.has(err.code)) err.status = 507
  return err
}

/** @returns {Error} what reading a directory answers: 404 */
function notAFile () {
  return Object.assign(new Error('not a regular file'), { code: 'EISDIR', status: 404 })
}

/**
 * After a write of `written` bytes: null if the whole body went in, else the error, the partial undone.
 * @returns {Error|null}
 */
function writeFailure (fd, file, written, length, shared) {
  if (written === length) return null
  let outcome = 'nothing'
  try {
    if (written > 0) outcome = undoPartial(fd, file, written, shared)
  } catch (err) {
    outcome = `left (${err.code || err.message})`
  }
  return shortWriteError(written, length, outcome)
}

module.exports = { READ_FLAGS, APPEND_FLAGS, classify, notAFile, writeFailure, sortPieces }
