// The README's JavaScript section, executed: every ```js block under "From JavaScript" runs as
// written, importing `keyroute` (the package resolves its own name) on the backend under test.

import assert from 'node:assert/strict'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import test from 'node:test'

import { backend } from './setup.js'

test(`the README's JavaScript runs (${backend})`, async () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  const section = readme.split('## From JavaScript')[1]?.split('\n## ')[0] ?? ''
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1])
  assert.ok(blocks.length > 0, 'the README has a JavaScript section with code')
  for (const [i, code] of blocks.entries()) {
    const source = backend === 'wasm' ? code.replaceAll("from 'keyroute'", "from 'keyroute/wasm'") : code
    const file = new URL(`./.readme-${process.pid}-${i}.mjs`, import.meta.url)
    writeFileSync(file, source)
    try {
      await import(file.href)
    } finally {
      rmSync(file)
    }
  }
})
