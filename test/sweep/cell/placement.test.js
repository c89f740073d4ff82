'use strict'
// Where a run's processes go: what the placement flags accept, what the machine must have for
// them, and the prefixes and row fields of one run.

const t = require('tap')
const http = require('node:http')
const { placementProblem, placeRun, connectRun, hostsOption } = require('../../../sweep/cell/placement')
const { VALIDATORS: { rtt: rttValue, cpuset: cpusetValue } } = require('../../../lib/results/dimensions')
const { checkCpuset } = require('../../../lib/machine/cpuset')

t.test('the validators name what they take', async (t) => {
  t.equal(hostsOption('netns'), 'netns')
  t.throws(() => hostsOption('vm'), { message: 'must be one of local, netns' })
  t.equal(rttValue('5'), 5)
  t.throws(() => rttValue('-1'), { message: 'must be an integer number of ms from 0 to 1000' })
  t.throws(() => rttValue('1.5'), { message: 'must be an integer number of ms from 0 to 1000' })
  t.throws(() => rttValue('2000'), { message: 'must be an integer number of ms from 0 to 1000' })
  t.equal(cpusetValue('split'), 'split')
  t.throws(() => cpusetValue('half'), { message: 'must be shared or split' })
})

t.test('a round trip without a separate host is refused with one line', async (t) => {
  t.equal(placementProblem({ hosts: 'local', rtts: [0, 1], cpusets: ['shared'] }),
    '--rtt above 0 needs --hosts=netns (a round trip between two hosts), got --rtt=0,1 with --hosts=local')
  t.equal(placementProblem({ hosts: 'local', rtts: [0], cpusets: ['shared'] }), null)
})

t.test('split pins the server side and the client to disjoint cores; shared pins nothing', { skip: checkCpuset() || false }, async (t) => {
  const split = placeRun({ cpuset: 'split' }, null)
  t.match(split.serverPrefix, [/taskset$/, '-c', '0'])
  t.match(split.clientPrefix, [/taskset$/, '-c', '1'])
  t.same(split.row, { cpuset: 'split', serverCpus: '0', clientCpus: '1', hosts: 'local' })
  t.equal(split.serverHostname, null)
  const shared = placeRun({}, null)
  t.same([shared.serverPrefix, shared.clientPrefix], [[], []])
  t.same(shared.row, { cpuset: 'shared', serverCpus: '0,1', clientCpus: '0,1', hosts: 'local' })
})

t.test('in a namespace the server runs under its prefix, before the pin', async (t) => {
  const hosts = { prefix: ['/usr/sbin/ip', 'netns', 'exec', 'cbench-1'], server: '10.213.0.2' }
  const run = placeRun({ cpuset: 'shared' }, hosts)
  t.same(run.serverPrefix, hosts.prefix)
  t.equal(run.serverHostname, '10.213.0.2')
  t.equal(run.row.hosts, 'netns')
})

t.test('connectRun: local runs connect as configured; a relay carries the round trip where netem is missing', async (t) => {
  const local = await connectRun(null, 0, 8100)
  t.same([local.host, local.port, await local.close()], [null, 8100, {}])
  const server = http.createServer((q, r) => r.end('ok')).listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  t.teardown(() => server.close())
  const hosts = { netem: false, server: '127.0.0.1', client: '127.0.0.1', setRtt: () => t.fail('no netem here') }
  const zero = await connectRun(hosts, 0, server.address().port)
  t.not(zero.port, server.address().port, 'a round trip of 0 goes through the relay too, so that its cost is alike')
  t.same(await zero.close(), { rttMethod: 'relay', rttMeasuredUs: '' })
  const relayed = await connectRun(hosts, 2, server.address().port)
  t.not(relayed.port, server.address().port)
  const body = await new Promise((resolve) =>
    http.get({ host: relayed.host, port: relayed.port, agent: false }, (res) => res.setEncoding('utf8').on('data', resolve)))
  t.equal(body, 'ok')
  const fields = await relayed.close()
  t.equal(fields.rttMethod, 'relay')
  t.ok(fields.rttMeasuredUs >= 2000, `held at least 2 ms: ${fields.rttMeasuredUs} µs`)
})
