// The playground in headless Chromium: load it, add a node, and check that the moved share it
// shows is `keyroute plan`'s for the same two specs; save a screenshot under target/.
// Usage: node test/browser/playground.mjs   (from node/, after wasm/build.sh)

import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'

import { ROOT, launchChromium, serve } from './server.mjs'

const server = await serve()
const browser = await launchChromium()
let ok = false
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 800 } })
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(`${server.url}/wasm/www/index.html`)
  await page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 60_000 })
  await page.click('#add')
  await page.waitForFunction(() => document.getElementById('moved').dataset.moved !== '0')
  const shown = Number(await page.getAttribute('#moved', 'data-moved'))
  const text = await page.textContent('#moved')
  const before = await page.textContent('#spec-before')
  const after = await page.textContent('#spec-after')
  mkdirSync(`${ROOT}target/playground`, { recursive: true })
  writeFileSync(`${ROOT}target/playground/before.json`, before)
  writeFileSync(`${ROOT}target/playground/after.json`, after)
  await page.fill('#key', 'user:42')
  await page.screenshot({ path: `${ROOT}target/playground.png`, fullPage: true })
  execFileSync('cargo', ['build', '-q', '--locked', '-p', 'keyroute-cli'], { cwd: ROOT, stdio: 'inherit' })
  const plan = JSON.parse(
    execFileSync(`${ROOT}target/debug/keyroute`, ['plan', `${ROOT}target/playground/before.json`, `${ROOT}target/playground/after.json`, '--json'], {
      encoding: 'utf8',
    }),
  )
  console.log(`playground: adding a node moves ${text}`)
  console.log(`keyroute plan: moved ${plan.moved} (${plan.method}); the page: ${shown}`)
  ok = errors.length === 0 && shown > 0 && Math.abs(shown - plan.moved) < 1e-12 && text.includes('%')
  if (errors.length) console.error(`page errors: ${errors.join('; ')}`)
  console.log(`${ok ? 'ok' : 'FAILED'}: the page's moved share equals keyroute plan's; screenshot at target/playground.png`)
} finally {
  await browser.close()
  await server.close()
}
process.exit(ok ? 0 : 1)
