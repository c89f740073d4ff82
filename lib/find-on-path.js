'use strict'
// Where an executable is: the first directory of a PATH-like list that holds it. Used by the
// checks of the tools the project runs (storage/, balancer/, lib/machine/cpuset.js, lib/haproxy-check.js).

const fs = require('node:fs')
const path = require('node:path')

/**
 * @param {string} name the executable's file name
 * @param {string} [PATH] directories separated by path.delimiter
 * @returns {string|null} its path, or null when no directory holds an executable file of that name
 */
function findOnPath (name, PATH = '') {
  for (const dir of PATH.split(path.delimiter)) {
    if (!dir) continue
    const file = path.join(dir, name)
    try {
      fs.accessSync(file, fs.constants.X_OK)
      if (fs.statSync(file).isFile()) return file
    } catch {}
  }
  return null
}

module.exports = { findOnPath }
