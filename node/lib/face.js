// The one public API of each backend: `makeApi` (api.js) over a backend module, made once per
// module, so an entry point and its backend's generated constructor list
// (generated/presets-<backend>.js) share one `Router` class, and `instanceof` holds between them.

import { makeApi } from './api.js'

const apis = new WeakMap()

/** The API over `backend` (a backend module's namespace: native.js, wasm-node.js, …). */
export function apiOf(backend) {
  let api = apis.get(backend)
  if (api === undefined) {
    api = makeApi(backend)
    apis.set(backend, api)
  }
  return api
}
