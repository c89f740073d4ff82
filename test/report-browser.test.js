'use strict'
// Opens a rendered report.html (file://) in headless Chromium: it must load cleanly and show
// every chart and table, the analysis sections included. Skipped when /usr/bin/chromium is missing. Run: npx tap test/report-browser.test.js

const t = require('tap')
const fs = require('node:fs')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const { chromium } = require('playwright-core')
const { renderReport } = require('../report')
const { writeSweepFolder } = require('./fixtures/results-folder')

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
    t.ok(await svg.locator('path').count() > 20, `chart ${i + 1} has drawn paths`)
    t.ok(await svg.locator('text').count() > 5, `chart ${i + 1} has text`)
  }
  for (const title of ['Server event loops with 4 client processes', 'Universal Scalability Law']) {
    t.ok(await page.locator(`figure[aria-label*="${title}"] > svg`).isVisible(), `the "${title}" chart is shown`)
  }
  for (const [name, count] of [['verdicts', 2], ['speedups', 4], ['noise', 1], ['usl', 4], ['medians', 16]]) {
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

t.test('the first screen states the answers, each with its ratio and interval, and links to the charts', {
  skip: fs.existsSync(CHROMIUM) ? false : `Chromium is missing at ${CHROMIUM}: the browser test needs it`
}, async (t) => {
  const dir = t.testdir()
  writeSweepFolder(dir, { aa: true })
  renderReport(dir)
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  t.teardown(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  await page.goto(pathToFileURL(path.join(dir, 'report.html')).href)
  const firstScreen = await page.evaluate(() => [...document.querySelectorAll('h2, #answers li')]
    .filter((el) => el.getBoundingClientRect().bottom <= window.innerHeight).map((el) => el.textContent.replace(/\s+/g, ' ').trim()))
  t.equal(firstScreen[0], 'Answers', 'the page opens with the answers')
  const ratio = String.raw`\d\.\d\d× \[\d\.\d\d–\d\.\d\d\]`
  const says = (pattern, what) => t.ok(firstScreen.some((s) => new RegExp(pattern).test(s)), what)
  says(`^With 1 process, sync over async: sync faster at nClients 2, 4: ${ratio}\\. \\(chart\\)$`, 'which kind is fastest with one process')
  says(`^With a cluster of 2 workers, sync over async: sync faster at nClients 2, 4: ${ratio} to ${ratio}\\.`, 'and with two workers')
  says(`^Clustering sync, 2 workers over 1 process: the cluster faster at nClients 2, 4: ${ratio}\\.`, 'what clustering buys')
  says(`^Noise floor: the A/A cell .* differed from itself by up to 5%: A/B ${ratio}\\.`, 'where the noise floor lies')
  says('^4 of 20 comparisons are within noise: clustering sync ×1 at nClients 2, 4; clustering async ×1 at nClients 2, 4\\.', 'what is within noise')
  await page.click('#answers li:first-child a')
  const target = decodeURIComponent(new URL(page.url()).hash.slice(1))
  t.equal(target, 'throughput-heatmap.svg', 'the link names the chart')
  t.ok(await page.locator(`figure[id="${target}"] svg`).isVisible(), 'and leads to it')
})
