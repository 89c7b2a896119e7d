// The Node addon backend: the native library built from `node/src` (napi-rs). It is found, in
// this order, as `keyroute.<platform>.node` in the package folder (what a checkout's
// `npm run build-native` writes) and as the npm package `keyroute-<platform>` (the published
// package's optionalDependency for this platform; lib/platform.cjs names both). Importing this
// module throws when neither loads; lib/auto.js then falls back to WebAssembly.

import { createRequire } from 'node:module'

import platform from './platform.cjs'

const load = createRequire(import.meta.url)
export const platformName = platform.platformName()

function loadAddon() {
  const tried = []
  for (const [id, what] of [
    [`../keyroute.${platformName}.node`, `keyroute.${platformName}.node in the package folder`],
    [`keyroute-${platformName}`, `the package keyroute-${platformName}`],
  ]) {
    try {
      return load(id)
    } catch (e) {
      // Not there: try the next place. There but not loadable (another libc, a damaged file):
      // say why, as that is what the user must fix.
      tried.push(e.code === 'MODULE_NOT_FOUND' ? `${what}: not installed` : `${what}: ${e.message}`)
    }
  }
  throw new Error(
    `keyroute: no native addon for ${platformName} (${tried.join('; ')}). The npm package keyroute-${platformName} ` +
      "carries it where one is published; from a source checkout, `npm run build-native` in node/ builds it (Rust " +
      "needed). The WebAssembly backend routes identically: import from 'keyroute/wasm', or let 'keyroute' fall back to it.",
  )
}

const addon = loadAddon()

/** Which backend this is (`keyroute.backend`). */
export const name = 'native'

export const { NativeRouter, NativeTransition, NativeBoundedLoad, NativeHotKeys, diff, errorTable, limitTable } = addon
export const { parseServer, redisSlot, specNodes, splitKeys, splitKey } = addon
/** Views: the live view (both backends), its sources and the census (the addon only). */
export const { NativeLiveView, watchSource, publishView, fleetStatus } = addon

/** The per-key call, a plain Node-API function over a router handle (node/src/fast.rs). */
export const routeIndex = addon.routeIndexFunction()
export const handleOf = (router) => router.handle()
/** The per-key call of a live view, a plain Node-API function over its handle. */
export const viewRouteAt = addon.viewRouteAtFunction()
export const viewHandleOf = (view) => view.handle()
