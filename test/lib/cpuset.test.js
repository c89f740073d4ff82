'use strict'
// --cpuset: which cores each side gets, the command that pins a program, and a pin that takes.

const t = require('tap')
const { spawn } = require('node:child_process')
const { once } = require('node:events')
const { allowedCpus, planCpuset, pinPrefix, checkCpuset, processCpus } = require('../../lib/machine/cpuset')

t.test('the allowed cores are read from a Cpus_allowed_list', async (t) => {
  t.same(allowedCpus('Name:\tnode\nCpus_allowed_list:\t0-3,6,8-9\n'), [0, 1, 2, 3, 6, 8, 9])
  t.same(allowedCpus('Cpus_allowed_list:\t1\n'), [1])
})

t.test('split gives the server the first half and the client the rest; shared gives both all', async (t) => {
  t.same(planCpuset('split', [0, 1]), { mode: 'split', server: [0], client: [1] })
  t.same(planCpuset('split', [0, 1, 2]), { mode: 'split', server: [0, 1], client: [2] })
  t.same(planCpuset('shared', [0, 1]), { mode: 'shared', server: [0, 1], client: [0, 1] })
  t.throws(() => planCpuset('split', [3]), /--cpuset=split needs at least 2 cores, this process may use 1 \(3\)/)
})

t.test('shared pins nothing; split runs the program under taskset', async (t) => {
  t.same(pinPrefix('shared', [0, 1]), [])
  t.match(pinPrefix('split', [0, 2]), [/taskset$/, '-c', '0,2'])
})

t.test('a program started under the split prefix runs on its cores only', { skip: checkCpuset() || false }, async (t) => {
  const { client } = planCpuset('split')
  const [cmd, ...args] = pinPrefix('split', client)
  const child = spawn(cmd, [...args, process.execPath, '-e', 'setTimeout(() => {}, 5000)'], { stdio: 'ignore' })
  t.teardown(() => child.kill())
  const fs = require('node:fs')
  // Until taskset has set the cores and become node.
  for (let i = 0; i < 100 && fs.readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0')[0] !== process.execPath; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.same(processCpus(child.pid), client)
  child.kill()
  await once(child, 'exit')
})
