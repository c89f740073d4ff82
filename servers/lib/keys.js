'use strict'
// Key validation: a strict allow-list, so that a key can only ever name a file directly inside
// dataPath (no separators, no dots, no encodings, no control characters).

const path = require('node:path')

const KEY_PATTERN = /^[A-Za-z0-9_-]{1,64}$/

/**
 * @param {unknown} key the `key` query parameter as express parsed it
 * @returns {boolean} whether it is one allowed file name
 */
function isValidKey (key) {
  return typeof key === 'string' && KEY_PATTERN.test(key)
}

/**
 * @param {string} dataPath absolute data folder
 * @param {string} key a key that passed isValidKey
 * @returns {string} the file's path inside dataPath
 */
function resolveKeyPath (dataPath, key) {
  return path.join(dataPath, key)
}

module.exports = { isValidKey, resolveKeyPath }
