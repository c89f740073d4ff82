'use strict'
// `node storage/warm.js DIR NFILES SHARE`: reads SHARE% of a data set's files into the page cache, spread evenly
// (storage/cache.js warmFiles), twice, so that the kernel keeps them as used more than once. Started inside a cold
// cell's memory cgroup (sweep/cell/cache-state.js), so that the pages are charged to it, as the server's own reads are.

const fs = require('node:fs')
const path = require('node:path')
const { warmFiles } = require('./cache')
const { fileKey } = require('../lib/workload')

const [dir, nFiles, share] = process.argv.slice(2)
const files = warmFiles(Number(nFiles), Number(share)).map((f) => path.join(dir, fileKey(f)))
for (let pass = 0; pass < 2; pass++) for (const file of files) fs.readFileSync(file)
