'use strict'
// A tagged template for HTML in which every interpolated value is escaped unless it is
// wrapped in raw(): strings from a results folder cannot inject markup. Used by the report.

const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

class Raw {
  constructor (text) {
    this.text = text
  }

  toString () {
    return this.text
  }
}

/** Marks trusted markup (a template's result, an SVG from ECharts) so html`` keeps it. */
function raw (text) {
  return new Raw(text)
}

/**
 * html`<p>${value}</p>`: escapes strings and numbers, keeps raw() values, joins arrays,
 * drops null, undefined and false.
 * @returns {Raw} markup that can be nested in another html`` template
 */
function html (strings, ...values) {
  return raw(strings.reduce((out, s, i) => out + render(values[i - 1]) + s))
}

function render (value) {
  if (value instanceof Raw) return value.text
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === null || value === undefined || value === false) return ''
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c])
}

module.exports = { html, raw }
