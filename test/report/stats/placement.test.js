'use strict'
// The report's placement section: each -lb cell against the cluster of its size with HAProxy's cost,
// split cores over shared ones, sync/async by round trip; each ratio paired by round, answers first.

const t = require('tap')
const { comparePlacement } = require('../../../report/stats/placement')
const { placementAnswers, placementSection } = require('../../../report/page/placement-section')
const { judge } = require('../../../report/stats/intervals')
const render = (markup) => String(markup)

// A cell as report/stats/cell-stats.js leaves it: valid rows with their round, medians and telemetry.
function cell (kind, variant, ops, extra = {}) {
  const valid = ops.map((opsPerSec, k) => ({ repeat: k + 1, opsPerSec, ...extra }))
  const sorted = [...ops].sort((a, b) => a - b)
  return { id: `${kind}-${variant}`, kind, nServers: 2, load: 4, api: kind.startsWith('async') ? 'callback' : '', variant, aa: '', valid, rows: valid,
    ci: { opsPerSec: { median: sorted[sorted.length >> 1] }, getP99: { median: 900 } }, telemetry: { fairness: extra.fairness ?? 1, serverCpuPerReqUs: 400 } }
}

t.test('balancer vs cluster, split vs shared, sync/async by rtt: paired by round', async (t) => {
  const cells = [
    cell('sync-cluster', 'cpuset=shared', [100, 110, 90, 100, 105, 95], { fairness: 0.5 }),
    cell('sync-lb', 'balance=roundrobin, cpuset=shared', [150, 165, 135, 150, 157.5, 142.5], { balancerCpuPerReqUs: 80, fairness: 1 }),
    cell('sync-cluster', 'cpuset=split', [120, 132, 108, 120, 126, 114], { fairness: 0.5 })
  ]
  const { balancers, cores, rtts } = comparePlacement(cells)
  t.equal(balancers.length, 1)
  t.equal(balancers[0].cluster, cells[0], 'the cluster twin: same size, load and other settings')
  t.equal(balancers[0].balance, 'roundrobin')
  t.equal(balancers[0].balancerUs, 80)
  for (const key of ['estimate', 'low', 'high']) t.ok(Math.abs(balancers[0].ratio[key] - 1.5) < 1e-9, `${key} 1.5`)
  t.equal(judge(balancers[0].ratio), 'faster')
  t.equal(cores.length, 1)
  t.match(cores[0], { kind: 'sync-cluster', settings: '' })
  t.ok(Math.abs(cores[0].ratio.estimate - 1.2) < 1e-9)
  t.same(rtts, [])
  const answers = placementAnswers({ balancers, cores, rtts })
  t.match(answers[0], new RegExp('^sync-lb over sync-cluster \\(×2, nClients 4, balance=roundrobin, cpuset=shared\\): ' +
    '1\\.50× \\[1\\.50–1\\.50\\], HAProxy faster; HAProxy spent 80 µs of CPU per request, fairness 1\\.00 against 0\\.50\\.$'))
  t.match(answers[1], /^sync-cluster on split cores over shared \(×2, nClients 4\): 1\.20× \[1\.20–1\.20\], split faster\.$/)
  const html = render(placementSection({ balancers, cores, rtts }, null))
  t.match(html, /<h2>Balancer, cores and round trips<\/h2>\s*<ul class="answers">/, 'the answers come first')
  t.match(html, /HAProxy in front of single-process servers/)
  t.match(html, /Split cores against shared ones/)
})

t.test('sync/async at each round trip, in order of rtt', async (t) => {
  const cells = [
    cell('sync', 'rtt=0', [300, 300, 300]), cell('async', 'rtt=0', [200, 200, 200]),
    cell('sync', 'rtt=5', [110, 110, 110]), cell('async', 'rtt=5', [100, 100, 100])
  ].map((c) => ({ ...c, nServers: 1 }))
  const { rtts } = comparePlacement(cells)
  t.same(rtts.map((r) => [r.rtt, r.model, Number(r.ratio.estimate.toFixed(2))]), [[0, 'single', 1.5], [5, 'single', 1.1]])
  t.same(placementAnswers({ balancers: [], cores: [], rtts }, null),
    ['sync/async (single, async callback, ×1, nClients 4) by round trip: 0 ms 1.50× [1.50–1.50]; 5 ms 1.10× [1.10–1.10].'])
})

t.test('a folder without these cells has no such section', async (t) => {
  const none = comparePlacement([cell('sync', '', [1, 2, 3])])
  t.same(none, { balancers: [], cores: [], rtts: [] })
  t.equal(placementSection(none, null), '')
})
