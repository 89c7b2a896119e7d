// The backend `import 'keyroute'` uses in Node.js, chosen once when the package loads: the
// native addon (lib/native.js) when it is installed for this platform, WebAssembly
// (lib/wasm-node.js) otherwise, which routes every key identically (both pass the whole
// conformance corpus). Falling back prints one line on stderr, once per process.
// `KEYROUTE_BACKEND=native` insists on the addon (loading fails with the reason it is missing);
// `KEYROUTE_BACKEND=wasm` takes WebAssembly without trying the addon, and without the line.
// `keyroute.backend` says which is in use: 'native' or 'wasm'.
//
// Loaded synchronously (require of an ES module), so that `require('keyroute')` keeps working:
// a top-level await here would make the package impossible to require.

import { createRequire } from 'node:module'

import { InvalidArgumentError } from './generated/errors.js'

const load = createRequire(import.meta.url)

function choose() {
  const forced = process.env.KEYROUTE_BACKEND
  if (forced === 'wasm') return load('./wasm-node.js')
  if (forced !== undefined && forced !== '' && forced !== 'native') {
    throw new InvalidArgumentError(`KEYROUTE_BACKEND is 'native' or 'wasm', not ${JSON.stringify(forced)}`)
  }
  try {
    return load('./native.js')
  } catch (e) {
    if (forced === 'native') throw e
    const reason = String(e?.message ?? e).replace(/^keyroute: /, '').split('. ')[0]
    process.stderr.write(
      `keyroute: using the WebAssembly backend (${reason}); it routes identically. ` +
        'Set KEYROUTE_BACKEND=wasm to choose it without this line.\n',
    )
    return load('./wasm-node.js')
  }
}

const chosen = choose()

/** Which backend is in use (`keyroute.backend`): 'native' or 'wasm'. */
export const name = chosen.name

export const { NativeRouter, NativeTransition, NativeBoundedLoad, NativeHotKeys, diff, errorTable, limitTable } = chosen
export const { parseServer, redisSlot, specNodes, splitKeys, splitKey, routeIndex, handleOf } = chosen
export const { NativeLiveView, viewRouteAt, viewHandleOf, watchSource, publishView, fleetStatus } = chosen
