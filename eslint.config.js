'use strict'
// `npm test` lints first: neostandard (standard's rules for ESLint 9) and a line width of 160. The
// house style keeps short objects and ternaries on shared lines, so the rules that would split
// every multi-line object into one property per line are off.

const neostandard = require('neostandard')

module.exports = [
  ...neostandard({ ignores: ['results/**', 'data/**', 'docs/**', '.node-cache/**', 'coverage/**', '.tap/**', '.rev-cache/**'] }),
  {
    rules: {
      '@stylistic/max-len': ['error', { code: 160, ignoreUrls: true }],
      '@stylistic/object-property-newline': 'off',
      '@stylistic/object-curly-newline': 'off',
      '@stylistic/multiline-ternary': 'off'
    }
  }
]
