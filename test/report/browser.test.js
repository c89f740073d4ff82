'use strict'
// Opens a rendered report.html (file://) in headless Chromium: it must load cleanly and show
// every chart and table, the analysis sections included. Skipped when /usr/bin/chromium is missing. Run: npx tap test/report/browser.test.js

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const { chromium } = require('playwright-core')
const { renderReport } = require('../../report')
const { writeSweepFolder } = require('../fixtures/results-folder')

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run']

t.test('report.html opens offline with no errors and shows every chart and row', {
  skip: fs.existsSync(CHROMIUM) ? false : `Chromium is missing at ${CHROMIUM}: the browser test needs it`
}, async (t) => {
  const dir = t.testdir()
  const { rows } = writeSweepFolder(dir, { aa: true })
  const charts = renderReport(dir).filter((f) => f.endsWith('.svg')).length
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  t.teardown(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
  const problems = []
  const requests = []
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`) })
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`))
  page.on('request', (r) => requests.push(r.url()))
  const url = pathToFileURL(path.join(dir, 'report.html')).href
  await page.goto(url, { waitUntil: 'load' })

  t.same(problems, [], 'no console errors, page errors or failed requests')
  t.same(requests, [url], 'the page fetches nothing but itself')
  const svgs = page.locator('figure > svg')
  t.equal(await svgs.count(), charts, 'every chart is in the page')
  for (let i = 0; i < charts; i++) {
    const svg = svgs.nth(i)
    t.ok(await svg.isVisible(), `chart ${i + 1} is visible`)
    const box = await svg.boundingBox()
    t.ok(box.width > 300 && box.height > 200, `chart ${i + 1} has a size (${box.width}x${box.height})`)
    // A cell's candlesticks are a few shapes; every other chart has many.
    const few = ((await svgs.nth(i).locator('xpath=..').getAttribute('id')) ?? '').startsWith('candles-')
    t.ok(await svg.locator('path').count() > (few ? 8 : 20), `chart ${i + 1} has drawn paths`)
    t.ok(await svg.locator('text').count() > 5, `chart ${i + 1} has text`)
  }
  for (const title of ['Server event loops with 4 client processes', 'Universal Scalability Law']) {
    t.ok(await page.locator(`figure[aria-label*="${title}"] > svg`).isVisible(), `the "${title}" chart is shown`)
  }
  // 8 sync/async pairs, 12 cluster gains and the A/A pair; 2 sync/async and 2 model matrices.
  for (const [name, count] of [['verdicts', 21], ['usl', 4], ['medians', 16], ['phases', 0]].filter(([n]) => n !== 'phases')) {
    const table = page.locator(`table.${name}`)
    t.ok(await table.isVisible(), `the ${name} table is shown`)
    t.equal(await table.locator('tbody tr').count(), count, `with ${count} rows`)
  }
  t.ok(await page.locator('table.medians .bound').isVisible(), 'the client-bound badge is shown')
  t.equal(await page.locator('table.summary tbody tr').count(), rows.length, 'one summary row per run')
  t.equal(await page.locator('table.summary tbody tr.invalid').count(), 1, 'the invalid run is highlighted')
  t.equal(await page.evaluate(() => window.injected), undefined, 'no planted script ran')
  const screenshot = path.join(dir, 'report.png')
  await page.screenshot({ path: screenshot, fullPage: true })
  t.ok(fs.statSync(screenshot).size > 50000, 'the full-page screenshot was taken')
})

t.test('the first screen is the answer: the verdicts chart and the verdicts with their intervals, then the sentences', {
  skip: fs.existsSync(CHROMIUM) ? false : `Chromium is missing at ${CHROMIUM}: the browser test needs it`
}, async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir, { aa: true, rounds: 8, speeds: { async: 450, 'async-cluster': 425 } })
  renderReport(dir)
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  t.teardown(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  await page.goto(pathToFileURL(path.join(dir, 'report.html')).href)
  const onScreen = (selector) => page.evaluate((sel) => [...document.querySelectorAll(sel)]
    .filter((el) => el.getBoundingClientRect().top < window.innerHeight).map((el) => el.textContent.replace(/\s+/g, ' ').trim()), selector)
  t.same((await onScreen('h2'))[0], 'The answer', 'the page opens with the answer')
  t.equal((await onScreen('#verdicts-chart svg')).length, 1, 'its chart is on the first screen')
  const chart = await page.locator('#verdicts-chart svg').textContent()
  t.match(chart, /sync vs async, 1 process, 2 client processes/, 'the chart names each comparison')
  t.match(chart, /A\/A: async, cluster of 2 workers, 4 client processes \(A\/A\)/)
  const ratio = String.raw`\d\.\d\d× \[\d\.\d\d–\d\.\d\d\]`
  const rows = await page.evaluate(() => [...document.querySelectorAll('table.verdicts tbody tr')]
    .map((tr) => [...tr.children].map((td) => td.innerText).join(' ').replace(/\s+/g, ' ').trim()))
  t.ok(rows.some((r) => new RegExp(`^sync vs async, 1 process, 2 client processes ${ratio} (⚠ )?sync faster`).test(r)), 'each verdict with its interval')
  t.ok(rows.some((r) => new RegExp(`^A/A: async, cluster of 2 workers, 4 client processes ${ratio} the same within ±5%`).test(r)), 'the A/A calibration')
  const sentences = await page.evaluate(() => [...document.querySelectorAll('#answers li')].map((el) => el.textContent.replace(/\s+/g, ' ').trim()))
  t.ok(sentences.some((s) => new RegExp(`^With 1 process, sync over async: sync faster at nClients 2, 4: ${ratio}`).test(s)), 'the answers in sentences follow')
  t.ok(sentences.some((s) => /^Calibration: the A\/A pair .* came out the same within ±5%, as it must\.$/.test(s)), 'with the calibration')
  await page.click('#answers li:first-child a')
  t.equal(decodeURIComponent(new URL(page.url()).hash.slice(1)), 'verdicts', 'a sentence links to the table')
})
