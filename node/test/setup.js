// What every test file imports: the keyroute API on the backend under test, and the
// conformance corpus. `KEYROUTE_BACKEND=wasm` selects the WebAssembly build (Node.js); the
// default is the native addon. In Chromium, an import map replaces this module with
// `browser/setup.js`, so the same test files run there unchanged.

import { readFileSync, readdirSync } from 'node:fs'

export const backend = process.env.KEYROUTE_BACKEND === 'wasm' ? 'wasm' : 'native'
export const keyroute = await import(backend === 'wasm' ? '../lib/wasm.js' : '../lib/index.js')
export const inBrowser = false

const corpusDir = new URL('../../conformance/vectors/v1/', import.meta.url)

/** Every vector file, `{name, doc}`, in name order. */
export async function loadCorpus() {
  const names = readdirSync(corpusDir).filter((n) => n.endsWith('.json')).sort()
  return names.map((name) => ({ name, doc: JSON.parse(readFileSync(new URL(name, corpusDir), 'utf8')) }))
}
