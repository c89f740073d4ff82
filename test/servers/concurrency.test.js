'use strict'
// Concurrent POSTs to one key through 2 worker processes (cluster and reusePort) or 2 pool threads
// (sync-pool): every record lands exactly once, whole.

const t = require('tap')
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const { KINDS, startServer } = require('../fixtures/server')
const { isMultiProcess } = require('../../lib/kinds')

const RECORDS = 600
const IN_FLIGHT = 48
const PAD = 'p'.repeat(16 * 1024) // large records make a torn write likely if writes were split

for (const kind of KINDS.filter(isMultiProcess)) {
  t.test(`${kind}: ${RECORDS} concurrent appends to one key are all there exactly once`, async (t) => {
    const dataPath = t.testdir()
    const srv = await startServer(t, kind, { dataPath, args: ['--nServers=2', '--bodyLimit=65536'] })
    t.equal(srv.workers, 2)
    const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT })
    t.teardown(() => agent.destroy())
    const post = (i) => new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: srv.port, method: 'POST', path: '/put?key=shared', agent }, (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (d) => { body += d }).on('end', () => resolve(body))
      })
      req.on('error', reject)
      req.end(`rec-${i}-${PAD}-end\n`)
    })
    let next = 0
    const acks = []
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (next < RECORDS) acks.push(await post(next++))
    }))
    t.equal(acks.filter((a) => a === 'success').length, RECORDS, 'every POST acknowledged')
    const lines = fs.readFileSync(path.join(dataPath, 'shared'), 'utf8').split('\n')
    t.equal(lines.pop(), '', 'the file ends with a whole record')
    const seen = new Map()
    let torn = 0
    for (const line of lines) {
      const m = /^rec-(\d+)-(p+)-end$/.exec(line)
      if (!m || m[2] !== PAD) torn++
      else seen.set(m[1], (seen.get(m[1]) || 0) + 1)
    }
    t.equal(torn, 0, 'no torn record')
    t.equal(seen.size, RECORDS, 'every record present')
    t.ok([...seen.values()].every((n) => n === 1), 'no record twice')
  })
}
