// The WebAssembly backend in Node.js: wasm-bindgen's glue (wasm/keyroute.js, `--target web`)
// given the module's bytes from the package folder, synchronously.

import { readFileSync } from 'node:fs'

import { initSync } from '../wasm/keyroute.js'

initSync({ module: readFileSync(new URL('../wasm/keyroute_bg.wasm', import.meta.url)) })

export { NativeRouter, NativeTransition, NativeBoundedLoad, NativeHotKeys, NativeLiveView, diff, errorTable, limitTable } from '../wasm/keyroute.js'
export { parseServer, redisSlot, specNodes, splitKeys, splitKey } from '../wasm/keyroute.js'

/** Which backend this is (`keyroute.backend`). */
export const name = 'wasm'

/** The per-key call over a router handle: here the router itself (as the addon's fast path). */
export const routeIndex = (router, key) => router.routeIndex(key)
export const handleOf = (router) => router
/** The per-key call of a live view: here the live view itself. */
export const viewRouteAt = (view, key) => view.routeAt(key)
export const viewHandleOf = (view) => view
