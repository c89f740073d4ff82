'use strict'
// --storage=cold under a real cgroup v2 kernel (../shared/uml/cgroup2: User-mode Linux, one CPU, an ext4 device at
// /data), in each layout a user meets: a login shell's session scope (systemd), a unit with Delegate=yes, a container
// with a cgroup namespace of its own, the root cgroup. A cold cell measures there (its GETs read about one file each
// from the device) and leaves every cgroup as it found it; a cgroup that holds another process is refused with one
// line before any data is written; after SIGKILL of a cold sweep its guards put everything back. Each guest runs under
// test/fixtures/uml-guest.js: a test timed out or killed leaves no guest kernel and no 3 GiB disk image in /var/tmp.

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync, execFileSync } = require('node:child_process')
const { parse } = require('csv-parse/sync')
const { ROOT } = require('../fixtures/server')
const { staleGuests, WORK_DIR } = require('../fixtures/uml-guest')

const GUARD = path.join(__dirname, '..', 'fixtures', 'uml-guest.js')

// Beside the checkout (as in the project's workplace), or where CGROUP2_UML says.
const UML = [process.env.CGROUP2_UML, path.join(ROOT, '..', 'shared', 'uml', 'cgroup2'), '/work/shared/uml/cgroup2'].find((f) => f && fs.existsSync(f))
const FILE_BYTES = 131072
// --maxInterference=1: a pass is kept whatever else takes the CPU (the other guest, a CI machine's neighbours).
const COLD = ['sweep', '--kinds=sync', '--nServers=1', '--nClients=1', '--storage=cold', '--aa=off', '--rounds=1', '--maxRounds=1',
  '--warmOps=50', '--passes=1', '--window=100', '--maxInterference=1', '--nFiles=2048', `--fileBytes=${FILE_BYTES}`, '--dataPath=/data/cb']
// Before and after the command: the controllers the shell's cgroup gives below it; after: the cbench cgroups left
// anywhere, the shell's own cgroup, whether a data set was written.
const GIVEN = 'cat /sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)/cgroup.subtree_control'
const BEFORE = `echo "before: $(${GIVEN})"; `
const AFTER = 'echo "left: $(find /sys/fs/cgroup -name "cbench-*" | wc -l)"; ' +
  'echo "which: $(for d in $(find /sys/fs/cgroup -name "cbench-*"); do echo "$d (procs: $(cat $d/cgroup.procs | tr "\\n" " "))"; done)"; ' +
  'echo "shell: $(cut -d: -f3 /proc/self/cgroup)"; ' +
  `echo "given: $(${GIVEN})"; echo "data: $(ls /data | grep -c cb)"`

const missing = ['/usr/bin/linux.uml', '/usr/sbin/mkfs.ext4', '/usr/bin/fio', '/usr/bin/vmtouch'].find((f) => !fs.existsSync(f))

// Debian 12's User-mode Linux (6.1) cannot start its init on a host CPU whose register state is larger than it handles
// (an Intel Xeon VM with AMX: "ptrace set fp regs failed, errno = 14", then a panic): this machine cannot run the guest.
// Any other failure of the guest is the test's to report. (A probe of seconds, run without the guard: a probe killed
// midway leaves a disk image that staleGuests removes later.)
function guestProblem () {
  const res = spawnSync(UML, ['--log', '--layout=root', '--', 'true'], { encoding: 'utf8', timeout: 60000 })
  const cause = /userspace - ptrace set fp regs failed[^\n]*/.exec(res.stdout + res.stderr)
  return res.status !== 0 && cause ? `User-mode Linux cannot start on this CPU (its kernel log: "${cause[0]}")` : false
}

const cannotStart = process.getuid() !== 0 ? 'the guest kernel needs root on the host'
  : !UML ? 'needs the cgroup v2 guest, ../shared/uml/cgroup2 (or CGROUP2_UML)'
      : missing ? `${missing} missing (./run_benchmark.sh setup installs it)` : false
const skip = cannotStart || guestProblem()

// The checkout as the guest sees it. The guest mounts a tmpfs of its own on /tmp: a checkout there (a clone in a
// mktemp -d folder) is bound, for this file's run, to a folder of /var/tmp, which the guest sees through hostfs.
let HERE = ROOT
if (!skip && (ROOT + '/').startsWith('/tmp/')) {
  HERE = fs.mkdtempSync('/var/tmp/cbench-checkout-')
  execFileSync('mount', ['--bind', ROOT, HERE])
  t.teardown(() => {
    execFileSync('umount', ['-l', HERE])
    fs.rmdirSync(HERE)
  })
}
const seen = (file) => HERE + file.slice(ROOT.length) // a path of the checkout as the guest sees it
if (!cannotStart) staleGuests() // the disk images of guests a killed run left

// Starts the guest under test/fixtures/uml-guest.js, which ends it and removes its disk image if this process is gone.
function startGuest (layout, script) {
  // PWD too: bash keeps an inherited PWD that names the same folder, and the guest enters $PWD.
  return spawn(process.execPath, [GUARD, UML, `--layout=${layout}`, '--', 'sh', '-c', script],
    { cwd: HERE, env: { ...process.env, PWD: HERE }, stdio: ['pipe', 'pipe', 'pipe'] })
}

// Runs a shell command in the guest, in the checkout; resolves with its exit status and output.
function guest (layout, script) {
  return new Promise((resolve) => {
    const child = startGuest(layout, script)
    let out = ''
    child.stdout.on('data', (d) => { out += d })
    child.stderr.on('data', (d) => { out += d })
    child.on('close', (code) => resolve({ code, out }))
  })
}

const field = (out, name) => new RegExp(`^${name}: (.*)$`, 'm').exec(out)?.[1]

t.test('a cold cell measures in every layout and leaves the cgroups as they were', { skip }, async (t) => {
  const layouts = { systemd: '/user.slice/session-1.scope', delegated: '/system.slice/bench.service', container: '/', root: '/' }
  const results = path.join(t.testdir(), 'r')
  const runs = {}
  const names = Object.keys(layouts)
  for (let i = 0; i < names.length; i += 2) { // two guests at a time: each has one CPU
    await Promise.all(names.slice(i, i + 2).map(async (layout) => {
      const run = `./run_benchmark.sh ${COLD.join(' ')} --results=${seen(results)}/${layout} >/dev/null 2>&1; echo "exit: $?"; `
      runs[layout] = await guest(layout, BEFORE + run + AFTER)
    }))
  }
  for (const layout of names) {
    const { out } = runs[layout]
    t.equal(field(out, 'exit'), '0', `${layout}: exit 0\n${out}`)
    const [folder] = fs.readdirSync(path.join(results, layout))
    const rows = parse(fs.readFileSync(path.join(results, layout, folder, 'summary.csv')), { columns: true })
    t.ok(rows.length > 0 && rows.every((r) => r.valid === 'true' && r.storage === 'cold'), `${layout}: valid cold rows`)
    const perGet = Number(rows[0].deviceBytesPerGet) / FILE_BYTES
    t.ok(perGet > 0.5 && perGet < 2, `${layout}: ${perGet.toFixed(2)} files a GET read from the device`)
    const kept = fs.readdirSync(path.join(results, layout, folder, 'cells')).filter((f) => f.endsWith('.log'))
      .flatMap((f) => fs.readFileSync(path.join(results, layout, folder, 'cells', f), 'utf8').split('\n').filter((l) => l.includes('could not remove')))
    t.equal(field(out, 'left'), '0', `${layout}: no cbench cgroup left (${field(out, 'which')}; ${kept.join(' ') || 'no cell said it could not remove one'})`)
    t.equal(field(out, 'shell'), layouts[layout], `${layout}: the shell back in its cgroup`)
    t.equal(field(out, 'given'), field(out, 'before'), `${layout}: the controllers given below it as before`)
  }
})

// The refused run's guest: the subshell ends at once, its sleep belongs to init, not to the run or the shell that starts it;
// then the command as said, its results in the guest's own /tmp rather than the checkout's results/.
const refusedRun = () => guest('systemd', `${BEFORE}(sleep 600 &); ./run_benchmark.sh ${COLD.join(' ')} >/tmp/o 2>/tmp/e; echo "exit: $?"; ` +
  `echo "lines: $(wc -l < /tmp/e)"; echo "stdout: $(wc -c < /tmp/o)"; echo "said: $(cat /tmp/e)"; ${AFTER}; ` +
  'eval "$(sed -n "s/.* it works: //p" /tmp/e | sed "s|\'$| --results=/tmp/advised\'|")" >/dev/null 2>&1; echo "advised: $?"')

// The SIGKILL run's guest. The watcher waits for a cell with the server in it (the plan's trial makes and removes one first,
// empty; the data set's writer runs in a cell and leaves it before the server comes): one that still holds a process 1 s
// later; then it kills the run (its pid names the cell: cbench-PID-N) and waits for its cells to go. It runs in a cgroup of
// its own, made before the run starts: its polls (find, sleep) in the run's cgroup were processes not the run's, and the run
// refused to start when it looked at that moment (a CI run, 2026-11-28).
function killedRun () {
  const long = COLD.map((a) => a.replace(/^--(rounds|maxRounds)=1$/, '--$1=50'))
  const watch = 'served() { for c in $(find /sys/fs/cgroup -name "cbench-*-[0-9]*"); do grep -q . "$c/cgroup.procs" 2>/dev/null && ' +
    '{ p=$(basename "$c" | cut -d- -f2); return 0; }; done; return 1; }; ' +
    'i=0; while ! { served && sleep 1 && served; } && [ $i -lt 300 ]; do sleep 0.2; i=$((i+1)); done; ' +
    'echo "cell: $(served && echo served)"; sleep 2; served && kill -9 $p; ' +
    'i=0; while [ -n "$(find /sys/fs/cgroup -name "cbench-*")" ] && [ $i -lt 150 ]; do sleep 0.2; i=$((i+1)); done'
  return guest('delegated', `${BEFORE}mkdir -p /sys/fs/cgroup/watcher; ` +
    `sh -c 'echo $$ > /sys/fs/cgroup/watcher/cgroup.procs && exec sh -c "$1"' watcher '${watch}' >/tmp/watch.out 2>&1 & w=$!; ` +
    'while ! grep -q . /sys/fs/cgroup/watcher/cgroup.procs; do :; done; ' +
    `./run_benchmark.sh ${long.join(' ')} --results=/tmp/r >/tmp/sweep.out 2>&1; wait $w; cat /tmp/watch.out; ` + AFTER +
    '; rmdir /sys/fs/cgroup/watcher; echo "sweep said:"; tail -n 8 /tmp/sweep.out')
}

// The two runs' guests side by side (each has one CPU), started by the first of the two tests to run.
let refusedAndKilled
const bothRuns = () => (refusedAndKilled ??= Promise.all([refusedRun(), killedRun()]))

t.test('a cgroup with another process in it: exit 2, one line with what to run, no data written; what it says works', { skip }, async (t) => {
  const [{ out }] = await bothRuns()
  t.equal(field(out, 'exit'), '2', out)
  t.equal(field(out, 'lines'), '1', 'one line')
  t.equal(field(out, 'stdout'), '0', 'nothing on stdout')
  t.match(field(out, 'said'), /^run_benchmark.sh: --storage=cold: the cgroup \/user\.slice\/session-1\.scope holds processes that are not this run's/)
  t.match(field(out, 'said'), /; in a cgroup of its own it works: sh -c 'mkdir -p \/sys\/fs\/cgroup\/cbench && .* --dataPath=\/data\/cb'$/)
  t.equal(field(out, 'data'), '0', 'no data set written')
  t.equal(field(out, 'left'), '0', 'no cgroup made')
  t.equal(field(out, 'given'), field(out, 'before'), 'the controllers given below as before')
  t.equal(field(out, 'advised'), '0', 'the command it gives runs the cold sweep')
})

t.test('after SIGKILL of a cold sweep its guards remove its cells and put the run\'s shell back', { skip }, async (t) => {
  const [, { out }] = await bothRuns()
  // Without a cell the sweep ended first: what it said (the guest's /tmp is its own) tells why.
  t.equal(field(out, 'cell'), 'served', `a cell was made, the server in it\n${out}`)
  t.equal(field(out, 'left'), '0', 'no cbench cgroup left')
  t.equal(field(out, 'shell'), '/system.slice/bench.service', 'the shell back in its cgroup')
  t.equal(field(out, 'given'), field(out, 'before'), 'the controllers given below it as before')
})

t.test('a guest whose test is gone is ended, and its disk image removed', { skip }, async (t) => {
  const guests = () => fs.readdirSync(WORK_DIR).filter((d) => d.startsWith('cgroup2.'))
  const before = guests()
  const child = startGuest('root', 'echo up > /tmp/up; sleep 600')
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
  let mine = []
  for (let waited = 0; mine.length === 0 && waited < 30000; waited += 100, await sleep(100)) mine = guests().filter((d) => !before.includes(d))
  t.equal(mine.length, 1, 'the guest made its folder')
  await sleep(5000) // booted, sleeping in the guest
  child.stdin.end() // as when the test's process is killed: the pipe closes
  await Promise.race([exited, sleep(20000)])
  t.not(child.exitCode ?? child.signalCode, null, 'the guard ended')
  t.notOk(fs.existsSync(path.join(WORK_DIR, mine[0])), `${mine[0]} removed`)
  const named = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try { return fs.readFileSync(`/proc/${p}/cmdline`, 'latin1').includes(mine[0]) } catch { return false }
  })
  t.same(named, [], 'no process of the guest left')
})

t.test('staleGuests removes a guest\'s folder no process names once it is old, and leaves a fresh one', { skip: cannotStart }, async (t) => {
  const old = fs.mkdtempSync(path.join(WORK_DIR, 'cgroup2.'))
  const fresh = fs.mkdtempSync(path.join(WORK_DIR, 'cgroup2.'))
  t.teardown(() => fs.rmSync(fresh, { recursive: true, force: true }))
  fs.writeFileSync(path.join(old, 'data.img'), '')
  const then = new Date(Date.now() - 11 * 60000)
  for (const f of [path.join(old, 'data.img'), old]) fs.utimesSync(f, then, then)
  t.same(staleGuests(), [old])
  t.notOk(fs.existsSync(old), 'the old one removed')
  t.ok(fs.existsSync(fresh), 'the fresh one kept')
})
