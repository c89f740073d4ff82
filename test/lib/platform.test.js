'use strict'
// lib/platform.js: the platform and /proc seam, as BENCH_PLATFORM and BENCH_PROC set it in a child process, and the lines
// that say what needs Linux. Run: node test/lib/platform.test.js

const t = require('tap')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { runtimePackage } = require('../../lib/install/runtime-specs')

const ROOT = path.join(__dirname, '..', '..')
// What lib/platform.js says in a process with these variables.
function seen (env) {
  const code = 'const p = require("./lib/platform"); console.log(JSON.stringify({ platform: p.PLATFORM, linux: p.isLinux, proc: p.hasProc(), ' +
    'stat: p.procPath(7, "stat"), lines: p.notLinuxLines(["storage", "others"]) }))'
  const res = spawnSync(process.execPath, ['-e', code], { cwd: ROOT, env: { ...process.env, BENCH_PLATFORM: '', BENCH_PROC: '', ...env }, encoding: 'utf8' })
  return JSON.parse(res.stdout)
}

t.test('BENCH_PLATFORM and BENCH_PROC decide the platform and where /proc is read; Linux with /proc says nothing',
  { skip: process.platform !== 'linux' && 'reads Linux\'s /proc' }, async (t) => {
    const here = seen({})
    t.same({ ...here, lines: here.lines.length }, { platform: 'linux', linux: true, proc: true, stat: '/proc/7/stat', lines: 0 })
    const mac = seen({ BENCH_PLATFORM: 'darwin' })
    t.same({ platform: mac.platform, linux: mac.linux, proc: mac.proc }, { platform: 'darwin', linux: false, proc: false }, 'no /proc off Linux')
    t.match(mac.lines[0], /^not Linux \(darwin\): storage latency \(--ioDelay: the FUSE delay layer\)/)
    t.match(mac.lines[1], /^not Linux \(darwin\): the CPU other processes took in a pass is judged from the machine's CPU times \(os\.cpus\(\)\)/)
    const empty = seen({ BENCH_PROC: path.join(ROOT, 'test') }) // a folder with no self/stat: /proc not mounted
    t.same({ proc: empty.proc, stat: empty.stat }, { proc: false, stat: path.join(ROOT, 'test', '7', 'stat') })
    t.match(empty.lines[0], /^no \/proc here: storage latency/)
  })

t.test('Bun\'s and Deno\'s npm packages for each platform and CPU, none where the registry has none', async (t) => {
  t.equal(runtimePackage('bun', 'linux', 'x64'), '@oven/bun-linux-x64')
  t.equal(runtimePackage('bun', 'darwin', 'arm64'), '@oven/bun-darwin-aarch64')
  t.equal(runtimePackage('deno', 'linux', 'arm64'), '@deno/linux-arm64-glibc')
  t.equal(runtimePackage('deno', 'darwin', 'x64'), '@deno/darwin-x64')
  t.equal(runtimePackage('deno', 'freebsd', 'x64'), null)
  t.equal(runtimePackage('bun', 'linux', 'ia32'), null)
})
