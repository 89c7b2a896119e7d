// The WebAssembly backend in browsers, bundlers and edge runtimes: the module is found next to
// its glue through `new URL(…, import.meta.url)` (which bundlers rewrite to the emitted asset)
// and instantiated before the API is used (top-level await).

import init from '../wasm/keyroute.js'

await init({ module_or_path: new URL('../wasm/keyroute_bg.wasm', import.meta.url) })

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
