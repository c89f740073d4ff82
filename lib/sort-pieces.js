'use strict'
// The GET work of the historic benchmark, what GET /get answers: the file's text split on
// sortSplitString, the pieces sorted and joined again (as long as the file). In lib/ so that the
// client, which checks the answers, and the servers, which give them, can share one definition.

/**
 * Splits text on sortSplitString, sorts the pieces and joins them.
 * @param {string} text
 * @param {string} sortSplitString '' splits between every character
 * @returns {string}
 */
function sortPieces (text, sortSplitString) {
  return text.split(sortSplitString).sort().join(sortSplitString)
}

module.exports = { sortPieces }
