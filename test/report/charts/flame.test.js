'use strict'
// Flame graphs (report/charts/flame.js): parsing folded stacks, scaling per request, the differential
// without normalisation, escaping, and the page itself in headless Chromium (skipped when it is missing).
// Run: npx tap test/report/charts/flame.test.js

const t = require('tap')
const fs = require('node:fs')
const { parseFolded, perRequest, diffStacks, flameHtml } = require('../../../report/charts/flame')

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run']
const EVIL = '<script>alert(1)</script>'

const PLAIN = new Map([
  ['main;serve;handleRequest;readFile', 200],
  ['main;serve;handleRequest;send', 80],
  ['main;serve;handleError', 20],
  [`main;${EVIL}`, 2.4],
  ['main;gc', 10]
]) // total 312.4
const ASYNC = new Map([['main;serve;readFile', 40], ['main;serve;stat', 5], ['main;serve;send', 10], ['main;gc', 5]])
const SYNC = new Map([['main;serve;readFileSync', 30], ['main;serve;stat', 20], ['main;serve;send', 10], ['main;gc', 5]])

const embedded = (page) => JSON.parse(/<script type="application\/json" id="flame-data">(.*?)<\/script>/s.exec(page)[1])

t.test('parseFolded sums duplicate stacks, skips blank lines and keeps spaces inside frame names', async (t) => {
  const stacks = parseFolded('main;a;b 10\r\nmain;a;b 5\n\n   \nmain;Module._compile node:internal/x.js:12 2.5\nmain 0\n')
  t.same([...stacks], [['main;a;b', 15], ['main;Module._compile node:internal/x.js:12', 2.5], ['main', 0]])
})

t.test('parseFolded rejects a malformed line and names its number', async (t) => {
  t.throws(() => parseFolded('main;a 1\n\nmain;b twelve\n'), /line 3\b/)
  t.throws(() => parseFolded('main;a 1\nmain;b -4'), /line 2\b/, 'a negative value')
  t.throws(() => parseFolded('main;a'), /line 1\b/, 'no value')
  t.throws(() => parseFolded('12'), /line 1\b/, 'no stack')
})

t.test('perRequest divides every value by the requests and leaves its input alone', async (t) => {
  const stacks = new Map([['main;a', 100], ['main;b', 5]])
  t.same([...perRequest(stacks, 10)], [['main;a', 10], ['main;b', 0.5]])
  t.equal(stacks.get('main;a'), 100)
  for (const bad of [0, -1, NaN, Infinity, '10']) t.throws(() => perRequest(stacks, bad), /requests must be a number > 0/, `rejects ${bad}`)
})

t.test('diffStacks compares per request without equalising totals, over the union of stacks', async (t) => {
  const a = perRequest(new Map([['main;read', 100], ['main;only-a', 30]]), 10)
  const b = perRequest(new Map([['main;read', 100], ['main;only-b', 40]]), 20)
  t.same(diffStacks(a, b), [
    { stack: 'main;read', a: 10, b: 5 },
    { stack: 'main;only-a', a: 3, b: 0 },
    { stack: 'main;only-b', a: 0, b: 2 }
  ], 'the same 100 µs over twice the requests is half the cost per request')
})

t.test('flameHtml escapes every name and title and embeds the tree with its totals', async (t) => {
  const page = flameHtml({ title: 'Flame <"sync"> & co', subtitle: "it's <b>", stacks: PLAIN })
  t.notMatch(page, '<script>alert', 'the frame name cannot open a script')
  t.equal(page.match(/<script/g).length, 2, 'only the data and the page script')
  t.equal(page.match(/<\/script/g).length, 2)
  t.match(page, '<h1>Flame &lt;&quot;sync&quot;&gt; &amp; co</h1>')
  t.match(page, '<p class="sub">it&#39;s &lt;b&gt;</p>')
  t.match(page, '<p id="total">total 312.4 µs per request</p>')
  t.notMatch(page, /(src|href)=/, 'nothing external')
  const data = embedded(page)
  t.equal(data.total, 312.4)
  t.equal(data.unit, 'µs per request')
  t.equal(data.tree.c[0].n, 'main')
  t.same(data.tree.c[0].c.map((c) => [c.n, c.v]), [[EVIL, 2.4], ['gc', 10], ['serve', 300]], 'inclusive values, children by name')
})

t.test('a differential flameHtml sizes frames by the larger side and keeps both totals', async (t) => {
  const page = flameHtml({ title: 'async vs sync', stacks: ASYNC, base: SYNC, labels: { a: 'async', b: 'sync' } })
  const { tree, total, baseTotal, differential } = embedded(page)
  t.same([differential, total, baseTotal], [true, 60, 65])
  const serve = tree.c[0].c.find((c) => c.n === 'serve')
  t.same([serve.v, serve.b, serve.w], [55, 60, 40 + 30 + 20 + 10], 'a frame is as wide as the max of each stack under it, summed')
  t.match(page, 'total async 60 µs per request, sync 65 µs per request (difference -5)')
})

t.test('in headless Chromium', { skip: fs.existsSync(CHROMIUM) ? false : `Chromium is missing at ${CHROMIUM}: the browser test needs it` }, async (t) => {
  const { chromium } = require('playwright-core')
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  t.teardown(() => browser.close())
  async function open (page) {
    const tab = await browser.newPage({ viewport: { width: 1000, height: 700 } })
    const problems = []
    tab.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
    tab.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`) })
    tab.on('dialog', (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss() })
    tab.on('request', (r) => problems.push(`request: ${r.url()}`))
    await tab.setContent(page)
    return { tab, problems }
  }
  const rgb = (locator) => locator.evaluate((el) => el.ownerDocument.defaultView.getComputedStyle(el).backgroundColor.match(/\d+/g).map(Number))

  t.test('a plain graph shows its frames, searches and zooms', async (t) => {
    const { tab, problems } = await open(flameHtml({ title: 'sync', subtitle: 'c=8', stacks: PLAIN }))
    t.match(await tab.locator('#total').textContent(), 'total 312.4 µs per request')
    for (const name of ['all', 'main', 'serve', 'handleRequest']) {
      const frame = tab.locator(`.frame[data-name="${name}"]`)
      t.ok(await frame.isVisible(), `${name} is visible`)
      t.equal(await frame.textContent(), name, 'and shows its name')
    }
    const [root, main] = [await tab.locator('.frame[data-name="all"]').boundingBox(), await tab.locator('.frame[data-name="main"]').boundingBox()]
    t.ok(main.y < root.y, 'the root is at the bottom')
    t.equal(await tab.locator('.frame').evaluateAll((els) => els.filter((el) => el.dataset.name === '<script>alert(1)</script>').length), 1,
      'the odd name is a frame, as data')
    await tab.hover('.frame[data-name="serve"]')
    t.match(await tab.locator('#details').textContent(), /^serve: 300 µs per request \(96\.0% of total\)$/)

    await tab.fill('#search', 'handle')
    t.same(await tab.locator('.frame.match').evaluateAll((els) => els.map((el) => el.dataset.name).sort()), ['handleError', 'handleRequest'])
    t.equal(await tab.locator('#matches').textContent(), '2 frames match, 300 µs per request (96.0% of total)')
    await tab.fill('#search', '/^(gc|send)$/')
    t.equal(await tab.locator('#matches').textContent(), '2 frames match, 90 µs per request (28.8% of total)')
    await tab.fill('#search', '/(/')
    t.equal(await tab.locator('#matches').textContent(), 'not a valid regular expression')
    await tab.fill('#search', '')
    t.equal(await tab.locator('.frame.match').count(), 0, 'clearing the search removes the highlight')
    t.equal(await tab.locator('#matches').textContent(), '')

    const width = (name) => tab.locator(`.frame[data-name="${name}"]`).evaluate((el) => el.getBoundingClientRect().width)
    const full = await width('all')
    await tab.click('.frame[data-name="handleRequest"]')
    t.ok(Math.abs(await width('handleRequest') - full) < 0.01, 'a clicked frame takes the full width')
    t.ok(Math.abs(await width('serve') - full) < 0.01, 'its ancestors stay')
    t.equal(await tab.locator('.frame[data-name="gc"]').count(), 0, 'frames beside it go')
    await tab.click('#reset')
    t.ok(await width('handleRequest') < full, 'reset zoom restores the whole graph')
    t.equal(await tab.locator('.frame[data-name="gc"]').count(), 1)
    t.same(problems, [], 'no errors, dialogs or requests')
  })

  t.test('a frame under half a pixel is not drawn, and a long name is cut to fit', async (t) => {
    const long = `Module._load ${'x'.repeat(200)}`
    const { tab, problems } = await open(flameHtml({ title: 'sizes', stacks: new Map([['main;wide', 1000], ['main;tiny', 0.001], [`main;${long}`, 100]]) }))
    t.equal(await tab.locator('.frame[data-name="tiny"]').count(), 0)
    t.equal(await tab.locator('.frame[data-name="wide"]').count(), 1)
    const text = await tab.locator(`.frame[data-name="${long}"]`).textContent()
    t.ok(text.length > 5 && text.endsWith('..') && long.startsWith(text.slice(0, -2)), `cut to "${text}"`)
    t.same(problems, [])
  })

  t.test('a differential graph colours growth red, shrinkage blue and no change grey', async (t) => {
    const { tab, problems } = await open(flameHtml({ title: 'async vs sync', stacks: ASYNC, base: SYNC, labels: { a: 'async', b: 'sync' } }))
    const [grew, shrank, same, gone] = await Promise.all(['readFile', 'stat', 'send', 'readFileSync'].map((n) => rgb(tab.locator(`.frame[data-name="${n}"]`))))
    t.ok(grew[0] > grew[2] + 50, `readFile grew: red-ish ${grew}`)
    t.ok(shrank[2] > shrank[0] + 50, `stat shrank: blue-ish ${shrank}`)
    t.ok(gone[2] > gone[0] + 50, `readFileSync, only in sync: blue-ish ${gone}`)
    t.ok(Math.max(...same) - Math.min(...same) < 10, `send is unchanged: grey ${same}`)
    await tab.hover('.frame[data-name="stat"]')
    t.equal(await tab.locator('#details').textContent(),
      'stat: async 5 µs per request (8.3% of total), sync 20 µs per request (30.8%), difference -15 µs per request (-75%)')
    await tab.fill('#search', 'read')
    t.equal(await tab.locator('#matches').textContent(), '2 frames match, 40 µs per request (66.7% of total) in async, 30 µs per request (46.2%) in sync')
    t.same(problems, [], 'no errors, dialogs or requests')
  })
})
