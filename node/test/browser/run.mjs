// Runs the shared JavaScript tests and the whole conformance corpus on the WebAssembly build in
// headless Chromium, and passes or fails like node:test: one line per test, exit status 1 on
// any failure; what the tests log is shown as `# …` lines.
// Usage: node test/browser/run.mjs   (from node/, after wasm/build.sh)

import { launchChromium, serve } from './server.mjs'

const FILES = ['api.test.js', 'errors.test.js', 'conformance.test.js', 'hotkeys.test.js', 'views.test.js']

const server = await serve()
const browser = await launchChromium()
let failed = true
try {
  const page = await browser.newPage()
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`))
  // What the tests log (the conformance runner's counts per file and backend), as node:test shows it.
  page.on('console', (m) => m.type() === 'log' && console.log(`# ${m.text()}`))
  await page.goto(`${server.url}/node/test/browser/index.html?files=${FILES.join(',')}`)
  await page.waitForFunction(() => document.body.dataset.status !== 'running', null, { timeout: 600_000 })
  const results = await page.evaluate(() => window.keyrouteResults)
  const version = browser.version()
  for (const r of results) console.log(`${r.ok ? 'ok' : 'not ok'} - ${r.name}${r.error ? `\n  ${r.error.replaceAll('\n', '\n  ')}` : ''}`)
  const passed = results.filter((r) => r.ok).length
  console.log(`# Chromium ${version}: ${passed} passed, ${results.length - passed} failed (${FILES.join(', ')})`)
  failed = results.length === 0 || passed !== results.length
} finally {
  await browser.close()
  await server.close()
}
process.exit(failed ? 1 : 0)
