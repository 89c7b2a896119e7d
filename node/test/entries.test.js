// The entry points are hand-written faces over generated lists: each exports the same names,
// exactly the values index.d.ts declares (with the generated declarations it re-exports), and
// every constructor it exports builds routers of its own `Router` class.

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import test from 'node:test'

const read = (path) => readFileSync(new URL(path, import.meta.url), 'utf8')

/** The values (not types) a declaration file declares, following its `export *` re-exports. */
function declared(path) {
  const text = read(path)
  const names = new Set([...text.matchAll(/^export declare (?:class|function|const) (\w+)/gm)].map((m) => m[1]))
  for (const [, from] of text.matchAll(/^export \* from '(\.[^']+)\.js'$/gm)) {
    for (const name of declared(new URL(`${from}.d.ts`, new URL(path, import.meta.url)).href)) names.add(name)
  }
  return names
}

/** An entry's export statements with its backend's name taken out. */
function exportsOf(file, backend) {
  return read(`../lib/${file}`)
    .split('\n')
    .filter((line) => /^(import|export)/.test(line))
    .map((line) => line.replaceAll(backend, 'BACKEND'))
}

const sorted = (names) => [...names].sort()

test('the addon and WebAssembly entries export exactly what index.d.ts declares', async () => {
  const types = sorted(declared('../index.d.ts'))
  assert.ok(types.includes('Router') && types.includes('Ring') && types.includes('InvalidSpecError'))
  for (const entry of ['../lib/index.js', '../lib/wasm.js']) {
    const api = await import(entry)
    assert.deepEqual(sorted(Object.keys(api)), types, entry)
  }
})

test('the browser entry is the same face over its own backend', () => {
  const native = exportsOf('index.js', 'auto')
  assert.ok(native.length > 4)
  assert.deepEqual(exportsOf('wasm.js', 'wasm-node'), native)
  assert.deepEqual(exportsOf('browser.js', 'wasm-browser'), native)
})

test("each entry's constructors are subclasses of its own Router", async () => {
  for (const entry of ['../lib/index.js', '../lib/wasm.js']) {
    const api = await import(entry)
    assert.ok(api.ALGORITHMS.length > 10)
    for (const { className, example } of api.ALGORITHMS) {
      assert.equal(Object.getPrototypeOf(api[className]), api.Router, `${entry} ${className}`)
      assert.ok(new api.Router(example) instanceof api.Router)
    }
    const ring = new api.Ring(['a', 'b'])
    assert.ok(ring instanceof api.Router)
    assert.ok(new api.BoundedLoad(ring).router === ring)
  }
  const [addon, wasm] = await Promise.all([import('../lib/index.js'), import('../lib/wasm.js')])
  assert.notEqual(addon.Router, wasm.Router)
  assert.ok(!(new addon.Ring(['a']) instanceof wasm.Router))
})
