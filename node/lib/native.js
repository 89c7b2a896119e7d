// The Node addon backend: the native library built from `node/src` (napi-rs), loaded from the
// package folder (`require('keyroute')` loads this same module: dist/index.cjs is require(esm)).

import { createRequire } from 'node:module'

const load = createRequire(import.meta.url)
const file = `../keyroute.${process.platform}-${process.arch}-${process.platform === 'linux' ? 'gnu' : 'native'}.node`

let addon
try {
  addon = load(file)
} catch (e) {
  throw new Error(
    `keyroute: no native addon for ${process.platform}-${process.arch} (${file}): ${e.message}. ` +
      "The npm package carries a prebuilt binary for linux-x64-gnu; elsewhere, install it from a source " +
      "checkout with a Rust toolchain (npm install /path/to/keyroute/node), or use the WebAssembly " +
      "build: import from 'keyroute/wasm'.",
    { cause: e },
  )
}

export const { NativeRouter, NativeTransition, NativeBoundedLoad, NativeHotKeys, diff, errorTable, limitTable } = addon
export const { parseServer, redisSlot, specNodes, splitKeys, splitKey } = addon

/** The per-key call, a plain Node-API function over a router handle (node/src/fast.rs). */
export const routeIndex = addon.routeIndexFunction()
export const handleOf = (router) => router.handle()
